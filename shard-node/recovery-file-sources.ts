/**
 * The file-based recoveries a primary is serving (ES `RecoverySourceHandler.phase1` and its
 * `MultiChunkTransfer`): each one's pinned commit (its files held from deletion,
 * shard-node/storage/segment-commits.ts `pinCommit`) and retention hold (the translog's ops above
 * the commit's seq_no, for phase 2), read in chunks as the coordinator asks for them, through one
 * rate limiter per node (ES `indices.recovery.max_bytes_per_sec`, default 40mb). A pin is released
 * when its recovery ends or is cancelled, when a new file recovery of the same copy starts, or
 * after {@link RECOVERY_IDLE_MS} without a chunk read (its coordinator died).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoverySourceHandler.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/recovery.html
 */
import { randomUUID } from 'node:crypto';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { EsError } from '../protocol/errors.ts';
import { MAX_FILE_CHUNK_BYTES, type RecoveryFileMetadata } from '../protocol/recovery-files.ts';
import { RateLimiter } from '../shared/snapshots/rate-limiter.ts';
import { RECOVERY_IDLE_MS } from './recovery-sources.ts';

/** ES's default `indices.recovery.max_bytes_per_sec` (40mb). */
export const DEFAULT_RECOVERY_MAX_BYTES_PER_SEC = 40 * 1024 * 1024;

/** A pinned commit for one file-based recovery. */
export interface PinnedFiles {
  /** The copy's directory. */
  dir: string;
  files: readonly RecoveryFileMetadata[];
  /** Releases the commit's files and the retention hold (idempotent). */
  release: () => void;
}

interface Pin extends PinnedFiles {
  index: string;
  shard: number;
  target: number;
  lastUsed: number;
}

/** One chunk read: its bytes and the ms the throttle held it. */
export interface FileChunk {
  bytes: Buffer;
  throttledMs: number;
}

/** The pinned commits of one shard node's file-based recoveries. */
export class FileRecoverySources {
  private readonly pins = new Map<string, Pin>();
  private readonly idleMs: number;
  private readonly now: () => number;
  /** Shared by every recovery this node serves (ES throttles a node's recoveries together). */
  readonly limiter = new RateLimiter(DEFAULT_RECOVERY_MAX_BYTES_PER_SEC);
  private timer: NodeJS.Timeout | null = null;

  /** `idleMs`: idle timeout (default {@link RECOVERY_IDLE_MS}); `now`: clock in epoch ms. */
  constructor(idleMs = RECOVERY_IDLE_MS, now: () => number = Date.now) {
    this.idleMs = idleMs;
    this.now = now;
  }

  /** Recoveries being served (pins held). */
  get size(): number {
    return this.pins.size;
  }

  /** Registers `pinned` for the copy of `index`/`shard` on node `target`, releasing an earlier one of that copy. @returns the recovery id */
  open(index: string, shard: number, target: number, pinned: PinnedFiles): string {
    this.releaseTarget(index, shard, target);
    const id = randomUUID();
    this.pins.set(id, { ...pinned, index, shard, target, lastUsed: this.now() });
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), Math.max(Math.min(this.idleMs / 4, 10_000), 10));
      this.timer.unref();
    }
    return id;
  }

  /**
   * `length` bytes of pinned `file` from `offset` (fewer at its end), after the throttle admits
   * them at `maxBytesPerSec` (0: unlimited; default {@link DEFAULT_RECOVERY_MAX_BYTES_PER_SEC}).
   * @throws EsError 404 for an unknown or released id; 400 for a file the commit does not name or
   *   a range outside it
   */
  async read(id: string, index: string, shard: number, file: string, offset: number, length: number, maxBytesPerSec?: number): Promise<FileChunk> {
    const pin = this.pins.get(id);
    if (!pin || pin.index !== index || pin.shard !== shard) throw gone(id);
    pin.lastUsed = this.now();
    const meta = pin.files.find((f) => f.name === file);
    if (!meta) throw new EsError(400, 'illegal_argument_exception', `file [${file}] is not part of the commit pinned by recovery [${id}]`);
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > meta.length || !Number.isSafeInteger(length) || length < 0 || length > MAX_FILE_CHUNK_BYTES)
      throw new EsError(400, 'illegal_argument_exception', `chunk [${offset}, +${length}] is outside file [${file}] of [${meta.length}] bytes`);
    const n = Math.min(length, meta.length - offset);
    if (maxBytesPerSec !== undefined) this.limiter.bytesPerSec = maxBytesPerSec;
    const throttledMs = await this.limiter.pause(n);
    const bytes = Buffer.allocUnsafe(n);
    const fh = await open(join(pin.dir, file), 'r');
    try {
      let at = 0;
      while (at < n) {
        const { bytesRead } = await fh.read(bytes, at, n - at, offset + at);
        if (bytesRead === 0) throw new EsError(500, 'illegal_state_exception', `file [${file}] ended at ${offset + at} bytes, ${meta.length} expected`);
        at += bytesRead;
      }
    } finally {
      await fh.close();
    }
    pin.lastUsed = this.now();
    return { bytes, throttledMs };
  }

  /** Releases recovery `id`'s pin (idempotent; an id of another kind is ignored). */
  release(id: string): void {
    const pin = this.pins.get(id);
    if (!pin) return;
    this.pins.delete(id);
    pin.release();
    if (this.pins.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Releases the pins held for the copy of `index`/`shard` on node `target`. */
  releaseTarget(index: string, shard: number, target: number): void {
    for (const [id, p] of this.pins) if (p.index === index && p.shard === shard && p.target === target) this.release(id);
  }

  /** Releases the pins idle for longer than the timeout. @returns how many */
  sweep(): number {
    const t = this.now();
    let released = 0;
    for (const [id, p] of this.pins) {
      if (t - p.lastUsed >= this.idleMs) {
        this.release(id);
        released++;
      }
    }
    return released;
  }

  /** Releases every pin (node shutdown). */
  close(): void {
    for (const id of [...this.pins.keys()]) this.release(id);
  }
}

function gone(id: string): EsError {
  return new EsError(404, 'resource_not_found_exception', `no file recovery [${id}] is pinned on this primary (finished, cancelled or idle for too long)`);
}
