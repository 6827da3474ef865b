/**
 * The latest recovery of each shard copy on this node (ES `RecoveryState`, kept by
 * `PeerRecoveryTargetService` on the target), reported in the node stats for `GET /_recovery` and
 * `GET /_cat/recovery` (coordinator/cluster/recovery-responses.ts). A peer recovery's target
 * records its stages as the coordinator's calls reach it: `index` (files received, reused, bytes),
 * `verify_index`, `translog` (ops replayed), `finalize`, `done`. A copy that has no recorded
 * recovery (opened from its own store at start-up, or created empty) reports `existing_store` or
 * `empty_store`, `done`, as ES reports a primary's store recovery.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoveryState.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cat-recovery.html
 */
import type { RecoveryStateResponse } from '../protocol/recovery.ts';
import type { Shard } from './engine/shard.ts';
import type { RecoveryFileMetadata } from '../protocol/recovery-files.ts';
import type { RecoveryStage, RecoveryType, ShardRecoveryState } from '../protocol/recovery-report.ts';

/** One recorded recovery: the reported state, the index's uuid (a re-created index starts afresh) and stage timers. */
interface Entry {
  uuid: string;
  /** The coordinator's id of the recovery (one for both phases). */
  id: string;
  state: ShardRecoveryState;
  /** Per file: its length and bytes received (`?detailed`). */
  files: Map<string, { length: number; recovered: number; reused: boolean }>;
  /** When the current stage began (epoch ms). */
  stageAt: number;
}

const key = (index: string, shard: number) => `${index}\u0000${shard}`;

/** The node's recovery states, by index name and shard. */
export class RecoveryStates {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  /** When this node started (epoch ms): the start of the store recoveries it did not record. */
  private readonly startedAt: number;

  /** `now`: clock in epoch ms. */
  constructor(now: () => number = Date.now) {
    this.now = now;
    this.startedAt = now();
  }

  /**
   * Starts a recovery of `type` (a peer recovery's phase 1 with `files`, each reused or not; an
   * ops-based one with none), replacing the copy's previous record.
   */
  start(
    index: string,
    uuid: string,
    shard: number,
    id: string,
    type: RecoveryType,
    source: number | null,
    files: readonly (RecoveryFileMetadata & { reused: boolean })[] = [],
  ): void {
    const at = this.now();
    const reused = files.filter((f) => f.reused);
    const sum = (fs: readonly RecoveryFileMetadata[]) => fs.reduce((n, f) => n + f.length, 0);
    const state: ShardRecoveryState = {
      type,
      stage: files.length > 0 ? 'index' : type === 'peer' ? 'translog' : 'done',
      primary: false,
      startTime: at,
      ...(source !== null ? { source } : {}),
      files: { total: files.length, reused: reused.length, recovered: 0 },
      bytes: { total: sum(files), reused: sum(reused), recovered: 0 },
      indexTimeMs: 0,
      throttleTimeMs: 0,
      translog: { recovered: 0, total: -1 },
      translogTimeMs: 0,
      verifyTimeMs: 0,
    };
    if (state.stage === 'done') state.stopTime = at;
    const perFile = new Map(files.map((f) => [f.name, { length: f.length, recovered: 0, reused: f.reused }]));
    this.entries.set(key(index, shard), { uuid, id, state, files: perFile, stageAt: at });
  }

  /** Starts an ops-based peer recovery's state (stage `translog`) unless recovery `id` is recorded already (its phase 1 ran). */
  ensurePeer(index: string, uuid: string, shard: number, id: string, source: number): void {
    const e = this.entries.get(key(index, shard));
    if (!e || e.uuid !== uuid || e.id !== id) this.start(index, uuid, shard, id, 'peer', source);
  }

  /** Counts `bytes` of `file` received; `whole`: the file is complete and verified. */
  fileBytes(index: string, shard: number, file: string, bytes: number, whole: boolean): void {
    const e = this.entries.get(key(index, shard));
    if (!e) return;
    e.state.bytes.recovered += bytes;
    const f = e.files.get(file);
    if (f) f.recovered += bytes;
    if (whole) e.state.files.recovered++;
  }

  /** Moves the copy's recovery to `stage`, adding the time spent in the stage it leaves. */
  stage(index: string, shard: number, stage: RecoveryStage): void {
    const e = this.entries.get(key(index, shard));
    if (!e || e.state.stage === stage) return;
    const at = this.now();
    const spent = at - e.stageAt;
    if (e.state.stage === 'index') e.state.indexTimeMs += spent;
    else if (e.state.stage === 'verify_index') e.state.verifyTimeMs += spent;
    else if (e.state.stage === 'translog') e.state.translogTimeMs += spent;
    e.state.stage = stage;
    e.stageAt = at;
    // The last chunk is applied: the total is what was replayed (the estimate counted seq_nos, some superseded).
    if (stage === 'finalize') e.state.translog.total = e.state.translog.recovered;
    if (stage === 'done') e.state.stopTime = at;
  }

  /** Counts `ops` replayed in the translog stage; `total` when known (ES `total_on_start`). */
  translogOps(index: string, shard: number, ops: number, total?: number): void {
    const e = this.entries.get(key(index, shard));
    if (!e) return;
    if (e.state.stage === 'init' || e.state.stage === 'index' || e.state.stage === 'verify_index') this.stage(index, shard, 'translog');
    e.state.translog.recovered += ops;
    if (total !== undefined) e.state.translog.total = Math.max(total, e.state.translog.recovered);
  }

  /** Adds `ms` the source throttled this recovery's file chunks. */
  throttled(index: string, shard: number, ms: number): void {
    const e = this.entries.get(key(index, shard));
    if (e) e.state.throttleTimeMs += ms;
  }

  /**
   * The copy's latest recovery: the recorded one (of the same index `uuid`), else a store recovery
   * (`existing_store` when the copy holds operations, else `empty_store`), `done`, since this node
   * started or the index was created. `primary`: whether the copy is the primary now.
   */
  report(index: string, uuid: string, shard: number, primary: boolean, holdsOps: boolean, created: number): ShardRecoveryState {
    const e = this.entries.get(key(index, shard));
    if (e && e.uuid === uuid) {
      const details = [...e.files].map(([name, f]) => ({ name, length: f.length, recovered: f.recovered, reused: f.reused }));
      const running = e.state.stage === 'index' ? this.now() - e.stageAt : 0; // the index stage so far
      return { ...e.state, primary, indexTimeMs: e.state.indexTimeMs + running, details };
    }
    const at = Math.max(this.startedAt, created);
    const type: RecoveryType = holdsOps ? 'existing_store' : 'empty_store';
    return {
      type,
      stage: 'done',
      primary,
      startTime: at,
      stopTime: at,
      files: { total: 0, reused: 0, recovered: 0 },
      bytes: { total: 0, reused: 0, recovered: 0 },
      indexTimeMs: 0,
      throttleTimeMs: 0,
      translog: { recovered: 0, total: 0 },
      translogTimeMs: 0,
      verifyTimeMs: 0,
    };
  }
}

/**
 * A copy's checkpoints as a recovery target reports them (`recovery/state`, `recovery/reset` and the
 * end of a file-based copy): where phase 2 of a peer recovery starts from.
 */
export function copyRecoveryState(
  node: string,
  req: { index: string; shard: number },
  shard: Pick<Shard, 'localCheckpoint' | 'maxSeqNo' | 'copyId' | 'globalCheckpoint' | 'heldWithinGlobalCheckpoint'>,
): RecoveryStateResponse {
  return {
    node,
    index: req.index,
    shard: req.shard,
    checkpoint: shard.localCheckpoint,
    maxSeqNo: shard.maxSeqNo,
    copyId: shard.copyId,
    globalCheckpoint: shard.globalCheckpoint,
    withinGlobalCheckpoint: shard.heldWithinGlobalCheckpoint,
  };
}
