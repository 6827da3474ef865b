/**
 * `GET /_recovery`, `GET /{index}/_recovery` and `GET /_cat/recovery[/{index}]` from the recovery
 * states the shard nodes report in their stats (shard-node/recovery-states.ts): ES's
 * `RecoveryState.toXContent` shape and `RestCatRecoveryAction`'s columns. Pure: no I/O.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/recovery/RecoveryState.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cat-recovery.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-recovery.html
 */
import type { ShardRecoveryState } from '../../protocol/recovery-report.ts';
import type { CatCell, CatColumn, CatTable } from '../http/cat-table.ts';
import type { ClusterStats, NodeInfo } from './node-probe.ts';

/** One copy's recovery with where it was reported. */
export interface CopyRecovery {
  index: string;
  shard: number;
  /** The reporting (target) node's ordinal. */
  node: number;
  state: ShardRecoveryState;
}

/** Every copy's recovery of the indices `names` in `stats`, by index then shard; `activeOnly`: the ones not done. */
export function copyRecoveries(stats: ClusterStats, names: readonly string[], activeOnly: boolean): CopyRecovery[] {
  const wanted = new Set(names);
  const out: CopyRecovery[] = [];
  for (const [key, byNode] of stats.shards) {
    const [index, shard] = key.split('\u0000');
    if (!wanted.has(index)) continue;
    for (const [node, s] of byNode) {
      const r = s.recovery;
      if (!r || (activeOnly && r.stage === 'done')) continue;
      out.push({ index, shard: Number(shard), node, state: r });
    }
  }
  return out.sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : a.shard - b.shard || a.node - b.node));
}

/** ES `%1.1f%%`. */
const pct = (p: number) => `${p.toFixed(1)}%`;

/** ES `RecoveryState.Index.recoveredFilesPercent` / `recoveredBytesPercent`: recovered of the non-reused; 0.0 before any file is known. */
export function indexPercent(total: number, reused: number, recovered: number, known: boolean): number {
  const toRecover = total - reused;
  if (!known) return 0;
  return toRecover === recovered ? 100 : (100 * recovered) / toRecover;
}

/** ES `RecoveryState.Translog.recoveredPercent`: -1 when the total is unknown, 100 when it is 0. */
export function translogPercent(recovered: number, total: number): number {
  if (total < 0) return -1;
  if (total === 0) return 100;
  return Math.min(100, (100 * recovered) / total);
}

const timeOf = (r: ShardRecoveryState, now: number) => (r.stopTime ?? now) - r.startTime;

/** ES `DiscoveryNode` fields of a recovery's source or target (no transport in Folio: the URL's host). */
function nodeJson(n: NodeInfo | undefined): Record<string, string> {
  if (!n) return {};
  return { id: n.name ?? String(n.node), host: n.host, transport_address: n.url, ip: n.host, name: n.name ?? String(n.node) };
}

/** One copy's `RecoveryState` as ES prints it (`detailed`: per-file details). */
export function recoveryJson(c: CopyRecovery, nodes: readonly NodeInfo[], detailed: boolean, now = Date.now()): Record<string, unknown> {
  const r = c.state;
  const known = r.files.total > 0; // ES: 0.0% while no file is listed
  const files: Record<string, unknown> = {
    total: r.files.total,
    reused: r.files.reused,
    recovered: r.files.recovered,
    percent: pct(indexPercent(r.files.total, r.files.reused, r.files.recovered, known)),
  };
  if (detailed) files.details = (r.details ?? []).map((f) => ({ name: f.name, length_in_bytes: f.length, reused: f.reused, recovered_in_bytes: f.recovered }));
  return {
    id: c.shard,
    type: r.type.toUpperCase(),
    stage: r.stage.toUpperCase(),
    primary: r.primary,
    start_time_in_millis: r.startTime,
    ...(r.stopTime !== undefined ? { stop_time_in_millis: r.stopTime } : {}),
    total_time_in_millis: timeOf(r, now),
    source: r.source !== undefined ? nodeJson(nodes[r.source]) : r.type === 'existing_store' ? { bootstrap_new_history_uuid: false } : {},
    target: nodeJson(nodes[c.node]),
    index: {
      size: {
        total_in_bytes: r.bytes.total,
        reused_in_bytes: r.bytes.reused,
        recovered_in_bytes: r.bytes.recovered,
        percent: pct(indexPercent(r.bytes.total, r.bytes.reused, r.bytes.recovered, known)),
      },
      files,
      total_time_in_millis: r.indexTimeMs,
      source_throttle_time_in_millis: r.throttleTimeMs,
      target_throttle_time_in_millis: 0,
    },
    translog: {
      recovered: r.translog.recovered,
      total: r.translog.total,
      percent: pct(translogPercent(r.translog.recovered, r.translog.total)),
      total_on_start: r.translog.total,
      total_time_in_millis: r.translogTimeMs,
    },
    verify_index: { check_index_time_in_millis: 0, total_time_in_millis: r.verifyTimeMs },
  };
}

/** The `_recovery` body: per index name `{shards: [...]}` (indices without a reported copy are left out, as ES's). */
export function recoveryResponse(
  copies: readonly CopyRecovery[],
  nodes: readonly NodeInfo[],
  detailed: boolean,
  now = Date.now(),
): Record<string, { shards: unknown[] }> {
  const out: Record<string, { shards: unknown[] }> = {};
  for (const c of copies) (out[c.index] ??= { shards: [] }).shards.push(recoveryJson(c, nodes, detailed, now));
  return out;
}

/** `_cat/recovery` columns (ES `RestCatRecoveryAction.getTableWithHeader`). */
export const CAT_RECOVERY_COLUMNS: readonly CatColumn[] = [
  { name: 'index', aliases: ['i', 'idx'], desc: 'index name' },
  { name: 'shard', aliases: ['s', 'sh'], desc: 'shard name' },
  { name: 'start_time', aliases: ['start'], desc: 'recovery start time', default: false },
  { name: 'start_time_millis', aliases: ['start_millis'], desc: 'recovery start time in epoch milliseconds', default: false },
  { name: 'stop_time', aliases: ['stop'], desc: 'recovery stop time', default: false },
  { name: 'stop_time_millis', aliases: ['stop_millis'], desc: 'recovery stop time in epoch milliseconds', default: false },
  { name: 'time', aliases: ['t', 'ti'], desc: 'recovery time', right: true },
  { name: 'type', aliases: ['ty'], desc: 'recovery type' },
  { name: 'stage', aliases: ['st'], desc: 'recovery stage' },
  { name: 'source_host', aliases: ['shost'], desc: 'source host' },
  { name: 'source_node', aliases: ['snode'], desc: 'source node name' },
  { name: 'target_host', aliases: ['thost'], desc: 'target host' },
  { name: 'target_node', aliases: ['tnode'], desc: 'target node name' },
  { name: 'repository', aliases: ['rep'], desc: 'repository' },
  { name: 'snapshot', aliases: ['snap'], desc: 'snapshot' },
  { name: 'files', aliases: ['f'], desc: 'number of files to recover', right: true },
  { name: 'files_recovered', aliases: ['fr'], desc: 'files recovered', right: true },
  { name: 'files_percent', aliases: ['fp'], desc: 'percent of files recovered', right: true },
  { name: 'files_total', aliases: ['tf'], desc: 'total number of files', right: true },
  { name: 'bytes', aliases: ['b'], desc: 'number of bytes to recover', right: true },
  { name: 'bytes_recovered', aliases: ['br'], desc: 'bytes recovered', right: true },
  { name: 'bytes_percent', aliases: ['bp'], desc: 'percent of bytes recovered', right: true },
  { name: 'bytes_total', aliases: ['tb'], desc: 'total number of bytes', right: true },
  { name: 'translog_ops', aliases: ['to'], desc: 'number of translog ops to recover', right: true },
  { name: 'translog_ops_recovered', aliases: ['tor'], desc: 'translog ops recovered', right: true },
  { name: 'translog_ops_percent', aliases: ['top'], desc: 'percent of translog ops recovered', right: true },
];

/** ES `TimeValue.toString()` of ms, as the cat `time` column prints it without `?time`. */
export function formatTime(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) if (ms >= size) return `${Number((ms / size).toFixed(1))}${unit}`;
  return `${ms}ms`;
}

/** The `_cat/recovery` table: one row per copy's recovery. */
export function catRecoveryTable(copies: readonly CopyRecovery[], nodes: readonly NodeInfo[], now = Date.now()): CatTable {
  const rows: CatCell[][] = copies.map((c) => {
    const r = c.state;
    const src = r.source !== undefined ? nodes[r.source] : undefined;
    const dst = nodes[c.node];
    const known = r.files.total > 0; // ES: 0.0% while no file is listed
    const toRecover = r.files.total - r.files.reused;
    const bytesToRecover = r.bytes.total - r.bytes.reused;
    return [
      c.index,
      c.shard,
      new Date(r.startTime).toISOString(),
      r.startTime,
      r.stopTime !== undefined ? new Date(r.stopTime).toISOString() : null,
      r.stopTime ?? null,
      formatTime(timeOf(r, now)),
      r.type,
      r.stage,
      src?.host ?? 'n/a',
      src ? (src.name ?? String(src.node)) : 'n/a',
      dst?.host ?? 'n/a',
      dst ? (dst.name ?? String(dst.node)) : 'n/a',
      'n/a',
      'n/a',
      toRecover,
      r.files.recovered,
      pct(indexPercent(r.files.total, r.files.reused, r.files.recovered, known)),
      r.files.total,
      { bytes: bytesToRecover },
      { bytes: r.bytes.recovered },
      pct(indexPercent(r.bytes.total, r.bytes.reused, r.bytes.recovered, known)),
      { bytes: r.bytes.total },
      r.translog.total,
      r.translog.recovered,
      pct(translogPercent(r.translog.recovered, r.translog.total)),
    ];
  });
  return { columns: CAT_RECOVERY_COLUMNS, rows };
}
