/**
 * The recoveries a primary is serving (ES `PeerRecoverySourceService`'s ongoing recoveries): each
 * one's pinned {@link RecoverySnapshot}, read chunk by chunk as the coordinator asks for it. A pin
 * is released when its recovery finishes, is cancelled, is replaced by a new recovery of the same
 * copy, or stays idle for {@link RECOVERY_IDLE_MS} (an abandoned recovery: its coordinator died),
 * so that nothing holds segments or translog on the primary for ever.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/PeerRecoverySourceService.java
 */
import { randomUUID } from 'node:crypto';
import { EsError } from '../protocol/errors.ts';
import { EventLoopSlices } from '../shared/event-loop-slices.ts';
import type { RecoverySnapshot } from './engine/recovery-snapshot.ts';
import { encodedSize, encodeRecoveryOps } from './recovery-wire.ts';
import type { TranslogOp } from './engine/translog.ts';

/** How long (ms) a pinned recovery snapshot may go without a chunk being read before it is released. */
export const RECOVERY_IDLE_MS = 60_000;
/** Largest chunk a caller may ask for (bytes of encoded ops). */
export const MAX_RECOVERY_CHUNK_BYTES = 64 * 1024 * 1024;

/** One recovery being served. */
interface Source {
  index: string;
  shard: number;
  target: number;
  snapshot: RecoverySnapshot;
  /** An op read past the last chunk's byte limit, sent first in the next one. */
  carry: TranslogOp | null;
  lastUsed: number;
  /** A chunk is being built (chunks of one recovery are read one at a time). */
  busy: boolean;
  exhausted: boolean;
}

/** One chunk of encoded ops. */
export interface RecoveryChunk {
  body: Buffer;
  ops: number;
  /** True on the last chunk (the snapshot is exhausted and released). */
  done: boolean;
}

/** The pinned recovery snapshots of one shard node. */
export class RecoverySources {
  private readonly sources = new Map<string, Source>();
  private readonly idleMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;

  /** `idleMs`: idle timeout (default {@link RECOVERY_IDLE_MS}); `now`: clock in epoch ms. */
  constructor(idleMs = RECOVERY_IDLE_MS, now: () => number = Date.now) {
    this.idleMs = idleMs;
    this.now = now;
  }

  /** Recoveries being served (pins held). */
  get size(): number {
    return this.sources.size;
  }

  /**
   * Registers a pinned snapshot for the copy of `index`/`shard` on node `target`, releasing an
   * earlier one of the same copy (a retried recovery). @returns the recovery id
   */
  open(index: string, shard: number, target: number, snapshot: RecoverySnapshot): string {
    for (const [id, s] of this.sources) if (s.index === index && s.shard === shard && s.target === target) this.release(id);
    const id = randomUUID();
    this.sources.set(id, { index, shard, target, snapshot, carry: null, lastUsed: this.now(), busy: false, exhausted: false });
    this.startSweeping();
    return id;
  }

  /**
   * Reads the next chunk of recovery `id`: ops up to `maxBytes` encoded (at least one op, so an op
   * larger than the limit still goes) and at most `maxOps`, read in event-loop slices. The last
   * chunk (`done`) releases the snapshot.
   * @throws EsError 404 `resource_not_found_exception` for an unknown or released id (idle timeout),
   *   409 when the id names another shard or a chunk of it is being read already
   */
  async chunk(id: string, index: string, shard: number, maxBytes: number, maxOps: number): Promise<RecoveryChunk> {
    const s = this.get(id, index, shard);
    if (s.busy) throw new EsError(409, 'illegal_state_exception', `recovery [${id}] is reading a chunk already`);
    s.busy = true;
    try {
      const limit = Math.min(Math.max(maxBytes, 1), MAX_RECOVERY_CHUNK_BYTES);
      const ops: TranslogOp[] = [];
      let bytes = 0;
      const slices = new EventLoopSlices();
      while (ops.length < maxOps && !s.exhausted) {
        const op = s.carry ?? s.snapshot.next();
        s.carry = null;
        if (op === null) {
          s.exhausted = true;
          break;
        }
        const size = encodedSize(op);
        if (ops.length > 0 && bytes + size > limit) {
          s.carry = op;
          break;
        }
        ops.push(op);
        bytes += size;
        await slices.tick();
        if (!this.sources.has(id)) throw gone(id); // released meanwhile (cancel, timeout)
      }
      // A full page that ends exactly at the snapshot's end is followed by an empty last chunk.
      const body = await encodeRecoveryOps(ops, bytes);
      const done = s.exhausted && s.carry === null;
      if (done) this.release(id);
      else s.lastUsed = this.now();
      return { body, ops: ops.length, done };
    } finally {
      s.busy = false;
    }
  }

  /** Releases recovery `id`'s pin (idempotent). */
  release(id: string): void {
    const s = this.sources.get(id);
    if (!s) return;
    this.sources.delete(id);
    s.snapshot.release();
    if (this.sources.size === 0) this.stopSweeping();
  }

  /** Releases every pin held for the copy of `index`/`shard` on node `target` (its recovery finalized). */
  releaseTarget(index: string, shard: number, target: number): void {
    for (const [id, s] of this.sources) if (s.index === index && s.shard === shard && s.target === target) this.release(id);
  }

  /** Releases the pins idle for longer than the timeout. @returns how many */
  sweep(): number {
    const t = this.now();
    let released = 0;
    for (const [id, s] of this.sources) {
      if (!s.busy && t - s.lastUsed >= this.idleMs) {
        this.release(id);
        released++;
      }
    }
    return released;
  }

  /** Releases every pin and stops the timer (node shutdown). */
  close(): void {
    for (const id of [...this.sources.keys()]) this.release(id);
  }

  private get(id: string, index: string, shard: number): Source {
    const s = this.sources.get(id);
    if (!s) throw gone(id);
    if (s.index !== index || s.shard !== shard) throw new EsError(409, 'illegal_state_exception', `recovery [${id}] is not a recovery of [${index}][${shard}]`);
    s.lastUsed = this.now();
    return s;
  }

  private startSweeping(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), Math.max(Math.min(this.idleMs / 4, 10_000), 10));
    this.timer.unref();
  }

  private stopSweeping(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

function gone(id: string): EsError {
  return new EsError(404, 'resource_not_found_exception', `no recovery [${id}] is pinned on this primary (finished, cancelled or idle for too long)`);
}
