/**
 * The response shapes of the snapshot APIs, pure functions of what the repository holds: a
 * snapshot as ES's `SnapshotInfo.toXContentExternal` prints it (`GET /_snapshot/{repo}/{snap}`,
 * the create response), its `_status` (ES `SnapshotStatus`), and the `_cat/snapshots` table (ES
 * `RestSnapshotAction`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/get-snapshot-api.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/get-snapshot-status-api.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cat-snapshots.html
 */
import { formatTimeValue } from '../../shared/time-value.ts';
import type { CatColumn, CatTable } from '../http/cat-table.ts';
import type { ShardSnapshot, SnapshotInfo } from '../../shared/snapshots/repository-layout.ts';
import { ES_COMPAT_VERSION } from '../http/routes/info-routes.ts';

/** ES's `Version.id` of {@link ES_COMPAT_VERSION} (8.15.0 → 8150099). */
export function versionId(version: string = ES_COMPAT_VERSION): number {
  const [major, minor, patch] = version.split('.').map(Number);
  return major * 1_000_000 + minor * 10_000 + patch * 100 + 99;
}

/** A snapshot still running ({@link snapshotJson} prints it `IN_PROGRESS`). */
export interface RunningSnapshot {
  snapshot: string;
  uuid: string;
  indices: string[];
  include_global_state: boolean;
  metadata?: Record<string, unknown>;
  start_time_in_millis: number;
  shards: number;
}

/**
 * A snapshot as ES prints it; `verbose=false` keeps only its name, uuid, repository, indices and
 * state (ES `SnapshotInfo` without the details).
 */
export function snapshotJson(repository: string, info: SnapshotInfo | RunningSnapshot, verbose = true): Record<string, unknown> {
  const done = 'state' in info;
  const head = { snapshot: info.snapshot, uuid: info.uuid, repository };
  if (!verbose) return { ...head, indices: info.indices, data_streams: [], state: done ? info.state : 'IN_PROGRESS' };
  const out: Record<string, unknown> = {
    ...head,
    version_id: versionId(),
    version: ES_COMPAT_VERSION,
    indices: info.indices,
    data_streams: [],
    include_global_state: info.include_global_state,
  };
  if (info.metadata) out.metadata = info.metadata;
  out.state = done ? info.state : 'IN_PROGRESS';
  out.start_time = new Date(info.start_time_in_millis).toISOString();
  out.start_time_in_millis = info.start_time_in_millis;
  if (done) {
    out.end_time = new Date(info.end_time_in_millis).toISOString();
    out.end_time_in_millis = info.end_time_in_millis;
    out.duration_in_millis = info.end_time_in_millis - info.start_time_in_millis;
    out.failures = info.failures;
    out.shards = info.shards;
  } else {
    out.duration_in_millis = Date.now() - info.start_time_in_millis;
    out.failures = [];
    out.shards = { total: 0, failed: 0, successful: 0 };
  }
  out.feature_states = [];
  return out;
}

/** File and byte counts as `_status` prints them (ES `SnapshotStats`). */
interface StatusStats {
  incremental: { file_count: number; size_in_bytes: number };
  total: { file_count: number; size_in_bytes: number };
  start_time_in_millis: number;
  time_in_millis: number;
}

function statsOf(shards: readonly ShardSnapshot[]): StatusStats {
  const start = shards.length > 0 ? Math.min(...shards.map((s) => s.start_time)) : 0;
  const end = shards.length > 0 ? Math.max(...shards.map((s) => s.start_time + s.time)) : 0;
  return {
    incremental: { file_count: sum(shards, (s) => s.incremental_file_count), size_in_bytes: sum(shards, (s) => s.incremental_size) },
    total: { file_count: sum(shards, (s) => s.files.length), size_in_bytes: sum(shards, (s) => sum(s.files, (f) => f.length)) },
    start_time_in_millis: start,
    time_in_millis: end - start,
  };
}

function sum<T>(xs: readonly T[], f: (x: T) => number): number {
  let n = 0;
  for (const x of xs) n += f(x);
  return n;
}

function shardsStats(done: number, failed: number): Record<string, number> {
  return { initializing: 0, started: 0, finalizing: 0, done, failed, total: done + failed };
}

/**
 * One snapshot's `_status` entry: the totals, then per index and shard (`stage: DONE`) the files
 * and bytes it copied (`incremental`) and references (`total`). `shards` maps each index to its
 * shard snapshots by shard number (missing: the shard failed).
 */
export function snapshotStatusJson(
  repository: string,
  info: SnapshotInfo,
  shards: ReadonlyMap<string, ReadonlyMap<number, ShardSnapshot>>,
): Record<string, unknown> {
  const all = [...shards.values()].flatMap((m) => [...m.values()]);
  const indices: Record<string, unknown> = {};
  for (const index of info.indices) {
    const byShard = shards.get(index) ?? new Map<number, ShardSnapshot>();
    const total = info.index_shards[index] ?? byShard.size;
    const perShard: Record<string, unknown> = {};
    for (const [s, snap] of [...byShard].sort((a, b) => a[0] - b[0])) perShard[String(s)] = { stage: 'DONE', stats: statsOf([snap]) };
    indices[index] = { shards_stats: shardsStats(byShard.size, total - byShard.size), stats: statsOf([...byShard.values()]), shards: perShard };
  }
  return {
    snapshot: info.snapshot,
    repository,
    uuid: info.uuid,
    state: info.state,
    include_global_state: info.include_global_state,
    shards_stats: shardsStats(info.shards.successful, info.shards.failed),
    stats: statsOf(all),
    indices,
  };
}

/** The `_cat/snapshots` columns (ES `RestSnapshotAction.getTableWithHeader`). */
export const CAT_SNAPSHOTS_COLUMNS: readonly CatColumn[] = [
  { name: 'id', aliases: ['snapshot'], desc: 'unique snapshot' },
  { name: 'repository', aliases: ['re', 'repo'], desc: 'repository name' },
  { name: 'status', aliases: ['s'], desc: 'snapshot name' },
  { name: 'start_epoch', aliases: ['ste', 'startEpoch'], desc: 'start time in seconds since 1970-01-01 00:00:00', right: true },
  { name: 'start_time', aliases: ['sti', 'startTime'], desc: 'start time in HH:MM:SS' },
  { name: 'end_epoch', aliases: ['ete', 'endEpoch'], desc: 'end time in seconds since 1970-01-01 00:00:00', right: true },
  { name: 'end_time', aliases: ['eti', 'endTime'], desc: 'end time in HH:MM:SS' },
  { name: 'duration', aliases: ['dur'], desc: 'duration', right: true },
  { name: 'indices', aliases: ['i'], desc: 'number of indices', right: true },
  { name: 'successful_shards', aliases: ['ss'], desc: 'number of successful shards', right: true },
  { name: 'failed_shards', aliases: ['fs'], desc: 'number of failed shards', right: true },
  { name: 'total_shards', aliases: ['ts'], desc: 'number of total shards', right: true },
  { name: 'reason', aliases: ['r'], desc: 'reason for failures', default: false },
];

/** `HH:mm:ss` in UTC (ES `RestSnapshotAction`'s `FORMATTER`). */
function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** The `_cat/snapshots` rows of finished snapshots, each with its repository's name. */
export function catSnapshotsTable(snapshots: readonly { repository: string; info: SnapshotInfo }[]): CatTable {
  return {
    columns: CAT_SNAPSHOTS_COLUMNS,
    rows: snapshots.map(({ repository, info: s }) => [
      s.snapshot,
      repository,
      s.state,
      Math.floor(s.start_time_in_millis / 1000),
      clock(s.start_time_in_millis),
      Math.floor(s.end_time_in_millis / 1000),
      clock(s.end_time_in_millis),
      formatTimeValue(s.end_time_in_millis - s.start_time_in_millis),
      s.indices.length,
      s.shards.successful,
      s.shards.failed,
      s.shards.total,
      s.failures.length > 0 ? s.failures.map((f) => f.reason).join(', ') : null,
    ]),
  };
}
