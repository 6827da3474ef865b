/**
 * The target's side of a file-based peer recovery's phase 1 (ES `PeerRecoveryTargetService` and
 * `RecoveryTarget`: `receiveFileInfo`, `writeFileChunk`, `cleanFiles`): files land in a staging
 * directory beside the copy (`<shard>.recovering`, which survives an emptied copy and a restart);
 * a file that arrives whole is fsynced and its length and CRC32 checked against the primary's
 * before it takes its name, so an interrupted recovery resumes reusing every file received whole
 * (same name, length and checksum: ES's "reused" files). The copy's SQLite store is filled from
 * each segment as it arrives (shard-node/staged-store-fill.ts). Finishing waits for it, then replaces
 * the copy with the staged one and opens it from its commit point (hosted-snapshot.ts `install`,
 * as a restore does): no document is re-analysed. Phase 2 then replays the ops above the commit.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoveryTarget.java
 * @see docs/recovery.md
 */
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { EsError } from '../protocol/errors.ts';
import type { RecoveryStateResponse } from '../protocol/recovery.ts';
import type {
  RecoveryFileMetadata,
  RecoveryFilesFinishRequest,
  RecoveryFilesPlanRequest,
  RecoveryFilesPlanResponse,
  RecoveryFileWriteRequest,
  RecoveryFileWriteResponse,
} from '../protocol/recovery-files.ts';
import { readFileIdentity } from '../shared/snapshots/repository-files.ts';
import { decodeCommitPoint } from './engine/segment-file/commit-point.ts';
import type { IndexRegistry } from './index-registry.ts';
import { copyRecoveryState, type RecoveryStates } from './recovery-states.ts';
import { StagedStoreFill } from './staged-store-fill.ts';
import { fsyncDir } from './storage/durable-dir.ts';

/** Suffix of a file being received. */
const PART = '.part';

/** One planned phase 1: the staging directory, the primary's files, and the bytes received of each. */
interface Plan {
  staging: string;
  files: Map<string, RecoveryFileMetadata>;
  received: Map<string, number>;
  /** The staged store, filled as the files arrive. */
  fill: StagedStoreFill;
}

/**
 * Whether the file at `path` is `meta` whole: its length, and the CRC32 of every byte before its
 * last 4 equal to the footer's (docs/segment-files.md) and to the primary's checksum.
 */
export async function fileMatches(path: string, meta: RecoveryFileMetadata): Promise<boolean> {
  const size = (await stat(path).catch(() => null))?.size;
  if (size !== meta.length || size < 8) return false;
  let crc = 0;
  for await (const chunk of createReadStream(path, { start: 0, end: size - 5, highWaterMark: 1024 * 1024 })) crc = crc32(chunk as Buffer, crc);
  const footer = await readFileIdentity(path).catch(() => null);
  return footer !== null && footer.checksum === meta.checksum && crc.toString(36) === meta.checksum;
}

/**
 * @throws EsError 409 `illegal_state_exception` unless the copy here is a replica out of sync (a
 *   file-based recovery replaces the whole copy: never a primary's nor an in-sync one's)
 */
function checkRecoveringReplica(registry: IndexRegistry, index: string, shard: number): void {
  const ordinal = registry.ordinalOf(index);
  const copy = registry.copiesOf(index, shard).find((c) => c.node === ordinal);
  if (!copy || copy.primary || copy.inSync)
    throw new EsError(
      409,
      'illegal_state_exception',
      `[${index}][${shard}] the copy on node [${registry.nodeId}] is not a recovering replica: its files cannot be replaced`,
    );
}

/** The file-based recoveries this node is the target of. */
export class FileRecoveryTargets {
  private readonly plans = new Map<string, Plan>();
  private readonly registry: IndexRegistry;
  private readonly states: RecoveryStates;

  constructor(registry: IndexRegistry, states: RecoveryStates) {
    this.registry = registry;
    this.states = states;
  }

  /** `recovery/files/plan`: keeps the staged files that match, removes the rest, starts the recovery state. */
  async plan(req: RecoveryFilesPlanRequest): Promise<RecoveryFilesPlanResponse> {
    const { registry } = this;
    registry.shard(req.index, req.shard);
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'replica');
    checkRecoveringReplica(registry, req.index, req.shard);
    const staging = registry.snapshotCopy(req.index, req.shard, registry.shard(req.index, req.shard)).recoveryStaging();
    await this.plans.get(`${req.index}/${req.shard}`)?.fill.abandon(); // a retried recovery: the previous attempt's store goes
    this.plans.delete(`${req.index}/${req.shard}`);
    await mkdir(staging, { recursive: true });
    const files = new Map(req.files.map((f) => [f.name, f]));
    const reused = new Set<string>();
    for (const name of await readdir(staging)) {
      const meta = files.get(name);
      if (meta && (await fileMatches(join(staging, name), meta))) reused.add(name);
      else await rm(join(staging, name), { recursive: true, force: true });
    }
    fsyncDir(staging);
    const received = new Map(req.files.map((f) => [f.name, reused.has(f.name) ? f.length : 0]));
    const fill = new StagedStoreFill(staging);
    this.plans.set(`${req.index}/${req.shard}`, { staging, files, received, fill });
    for (const name of reused) await fill.fileReady(name);
    const uuid = registry.metadataList().find((m) => m.name === req.index)?.uuid ?? '';
    this.states.start(
      req.index,
      uuid,
      req.shard,
      req.recovery.id,
      'peer',
      req.recovery.source,
      req.files.map((f) => ({ ...f, reused: reused.has(f.name) })),
    );
    return { node: registry.nodeId, index: req.index, shard: req.shard, reused: [...reused] };
  }

  /**
   * `recovery/files/write`: one chunk of a file at `offset` (which must be where the file's bytes
   * end so far); the last one is fsynced and verified before the file takes its name.
   * @throws EsError 409 without a plan or out of order; 500 `corrupt_index_exception` when the
   *   whole file does not match the primary's (its bytes are dropped)
   */
  async write(req: RecoveryFileWriteRequest, body: () => Promise<Uint8Array>): Promise<RecoveryFileWriteResponse> {
    this.registry.checkTerm(req.index, req.shard, req.primaryTerm, 'replica');
    const plan = this.planOf(req.index, req.shard);
    const meta = plan.files.get(req.file);
    const at = plan.received.get(req.file);
    if (!meta || at !== req.offset || at >= meta.length)
      throw new EsError(
        409,
        'illegal_state_exception',
        `[${req.index}][${req.shard}] file [${req.file}] chunk at [${req.offset}] is not the next one (at [${at ?? 'none'}])`,
      );
    const bytes = await body();
    const part = join(plan.staging, req.file + PART);
    const fh = await open(part, req.offset === 0 ? 'w' : 'r+');
    try {
      await fh.write(bytes, 0, bytes.byteLength, req.offset);
      if (req.last) await fh.sync();
    } finally {
      await fh.close();
    }
    plan.received.set(req.file, at + bytes.byteLength);
    if (req.last) {
      if (!(await fileMatches(part, meta))) {
        plan.received.set(req.file, 0);
        await rm(part, { force: true });
        throw new EsError(
          500,
          'corrupt_index_exception',
          `[${req.index}][${req.shard}] received file [${req.file}] does not match the primary's length and checksum`,
        );
      }
      await rename(part, join(plan.staging, req.file));
      fsyncDir(plan.staging);
      await plan.fill.fileReady(req.file);
    }
    this.states.fileBytes(req.index, req.shard, req.file, bytes.byteLength, req.last);
    if (req.throttledMs) this.states.throttled(req.index, req.shard, req.throttledMs);
    return { node: this.registry.nodeId, index: req.index, shard: req.shard, received: at + bytes.byteLength };
  }

  /**
   * `recovery/files/finish`: stage `verify_index` (every file whole; the commit point and segments
   * decode with their checksums as the store is filled), then the staged copy replaces the copy
   * and opens from its commit point (stage `translog`). @returns the new copy's state
   * @throws EsError 409 without a plan, with a file missing, or when the copy is no longer a recovering replica
   */
  async finish(req: RecoveryFilesFinishRequest): Promise<RecoveryStateResponse> {
    const { registry } = this;
    registry.checkTerm(req.index, req.shard, req.primaryTerm, 'replica');
    const plan = this.planOf(req.index, req.shard);
    this.states.stage(req.index, req.shard, 'verify_index');
    for (const name of plan.files.keys())
      if (!existsSync(join(plan.staging, name)))
        throw new EsError(409, 'illegal_state_exception', `[${req.index}][${req.shard}] file [${name}] was not received`);
    const pointPath = join(plan.staging, req.commit);
    const point = decodeCommitPoint(await readFile(pointPath), pointPath);
    this.plans.delete(`${req.index}/${req.shard}`);
    await plan.fill.finish(point, point.seqNo, Math.min(req.globalCheckpoint, point.seqNo)); // most rows were written during the copy
    const shard = registry
      .snapshotCopy(req.index, req.shard, registry.shard(req.index, req.shard))
      .install(plan.staging, () => checkRecoveringReplica(registry, req.index, req.shard));
    this.states.stage(req.index, req.shard, 'translog');
    return copyRecoveryState(registry.nodeId, req, shard);
  }

  private planOf(index: string, shard: number): Plan {
    const plan = this.plans.get(`${index}/${shard}`);
    if (!plan) throw new EsError(409, 'illegal_state_exception', `[${index}][${shard}] no file-based recovery is planned on this copy`);
    return plan;
  }
}
