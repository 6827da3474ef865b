import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import type { IndexView } from './index-view.ts';
import { indicesStatsBody, parseStatsLevel, parseStatsMetrics, STATS_METRICS } from './indices-stats.ts';
import type { ClusterStats, ShardStatsEntry } from './node-probe.ts';

const meta = (name: string, shards: number, replicas: number): IndexMetadata => ({
  name,
  uuid: `${name}-uuid`,
  numberOfShards: shards,
  numberOfReplicas: replicas,
  routingNumShards: shards,
  maxResultWindow: 10_000,
  refreshIntervalMs: 1000,
  mappings: { properties: {} },
  creationDate: 0,
  version: 1,
});
const copy = (node: number, primary: boolean) => ({ node, primary, inSync: true, hosted: true });
const ops = (n: number) => ({
  indexTotal: n,
  indexFailed: 0,
  deleteTotal: 1,
  noopUpdateTotal: 0,
  getTotal: 2,
  getExists: 1,
  getMissing: 1,
  queryTotal: 5,
  fetchTotal: 4,
  refreshTotal: 3,
  flushTotal: 0,
  openContexts: 1,
  scrollTotal: 0,
});
const entry = (docs: number, n: number, maxSeqNo: number): ShardStatsEntry => ({
  docs,
  deleted: 0,
  segments: 1,
  ops: ops(n),
  seqNo: { maxSeqNo, localCheckpoint: maxSeqNo, globalCheckpoint: maxSeqNo },
});
// Index `a`: one shard with a replica on node 1; index `b`: one shard, its replica unassigned.
const views: IndexView[] = [
  { metadata: meta('a', 1, 1), placement: [0], copies: [[copy(0, true), copy(1, false)]] },
  { metadata: meta('b', 1, 1), placement: [1], copies: [[copy(1, true)]] },
];
const stats: ClusterStats = {
  nodes: [
    { node: 0, url: 'http://n0', host: 'n0', name: 'shard-0', reachable: true },
    { node: 1, url: 'http://n1', host: 'n1', name: 'shard-1', reachable: true },
  ],
  shards: new Map([
    [
      'a\u00000',
      new Map([
        [0, entry(3, 4, 4)],
        [1, entry(3, 4, 4)],
      ]),
    ],
    ['b\u00000', new Map([[1, entry(2, 2, 1)]])],
  ]),
};

describe('indices stats', () => {
  it('sums primaries and every copy per index and over all; unassigned replicas count in the total only', () => {
    const body = indicesStatsBody(views, stats, new Set(STATS_METRICS), 'indices') as any;
    expect(body._shards).toEqual({ total: 4, successful: 3, failed: 0 });
    expect(body._all.primaries.docs).toEqual({ count: 5, deleted: 0, total_size_in_bytes: 5 * 1024 });
    expect(body._all.total.docs.count).toBe(8);
    expect(body._all.total.indexing.index_total).toBe(10);
    expect(body.indices.a).toMatchObject({
      uuid: 'a-uuid',
      health: 'green',
      status: 'open',
      primaries: { get: { total: 2, exists_total: 1 } },
      total: { search: { query_total: 10, open_contexts: 2 } },
    });
    expect(body.indices.b.health).toBe('yellow');
    expect(body.indices.a.shards).toBeUndefined();
  });
  it('keeps the metrics asked for, and adds per-copy routing and seq_no at level shards', () => {
    const body = indicesStatsBody(views, stats, new Set(['get']), 'shards') as any;
    expect(Object.keys(body._all.total)).toEqual(['get']);
    expect(body.indices.a.shards['0']).toEqual([
      {
        routing: { state: 'STARTED', primary: true, node: 'shard-0', relocating_node: null },
        get: expect.any(Object),
        seq_no: { max_seq_no: 4, local_checkpoint: 4, global_checkpoint: 4 },
      },
      {
        routing: { state: 'STARTED', primary: false, node: 'shard-1', relocating_node: null },
        get: expect.any(Object),
        seq_no: { max_seq_no: 4, local_checkpoint: 4, global_checkpoint: 4 },
      },
    ]);
    expect(indicesStatsBody(views, stats, new Set(['docs']), 'cluster').indices).toBeUndefined();
  });
  it('parses metric and level as ES', () => {
    expect(parseStatsMetrics('/_stats', undefined).size).toBe(STATS_METRICS.length);
    expect([...parseStatsMetrics('/_stats/docs,get', 'docs,get')]).toEqual(['docs', 'get']);
    expect(esErr(() => parseStatsMetrics('/_stats/gett,foo', 'gett,foo')).message).toBe(
      'request [/_stats/gett,foo] contains unrecognized metrics: [foo], [gett] -> did you mean [get]?',
    );
    expect(esErr(() => parseStatsMetrics('/_stats/_all,docs', '_all,docs')).message).toBe(
      'request [/_stats/_all,docs] contains _all and individual metrics [_all,docs]',
    );
    expect(parseStatsLevel('SHARDS')).toBe('shards');
    expect(esErr(() => parseStatsLevel('x')).message).toBe('level parameter must be one of [cluster] or [indices] or [shards] but was [x]');
  });
});
