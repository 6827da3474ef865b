import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { formatByteSize, renderCatTable, type CatTable } from './cat-table.ts';
import { catIndicesTable, catShardsTable } from './routes/cat-routes.ts';
import type { ClusterStats } from '../cluster/node-probe.ts';
import type { IndexView } from '../cluster/index-view.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';

const table: CatTable = {
  columns: [
    { name: 'index', aliases: ['i', 'idx'], desc: 'index name' },
    { name: 'docs', aliases: ['dc'], desc: 'docs', right: true },
    { name: 'store', desc: 'size', right: true },
    { name: 'node', aliases: ['n'], desc: 'node' },
    { name: 'hidden', desc: 'not shown by default', default: false },
  ],
  rows: [
    ['cities', 135233, { bytes: 32_700_000 }, 'shard-0', 'h1'],
    ['b', 7, { bytes: 225 }, null, 'h2'],
    ['mails', null, null, 'shard-1', 'h3'],
  ],
};

const text = (p: Record<string, string>) => {
  const out = renderCatTable(table, p);
  if (out.kind !== 'text') throw new Error('expected text');
  return out.text;
};

describe('ByteSizeValue rendering', () => {
  it('uses the largest unit and one truncated decimal, as ES', () => {
    expect(formatByteSize(0)).toBe('0b');
    expect(formatByteSize(225)).toBe('225b');
    expect(formatByteSize(1024)).toBe('1kb');
    expect(formatByteSize(1536)).toBe('1.5kb');
    expect(formatByteSize(1024 * 1024 * 31.19)).toBe('31.1mb');
    expect(formatByteSize(5 * 1024 ** 3)).toBe('5gb');
  });
});

describe('cat text output', () => {
  it('pads columns, right-aligns numbers, leaves the last column unpadded, headers with v', () => {
    expect(text({ v: '' })).toBe(
      ['index    docs  store node', 'cities 135233 31.1mb shard-0', 'b           7   225b ', 'mails                shard-1', ''].join('\n'),
    );
    expect(text({}).split('\n')[0]).toBe('cities 135233 31.1mb shard-0');
  });

  it('selects columns by name, alias and wildcard with h', () => {
    // A right-aligned empty cell is padded even in the last column (ES `RestTable.pad`).
    expect(text({ h: 'i,dc' })).toBe('cities 135233\nb           7\nmails' + ' '.repeat(8) + '\n');
    expect(text({ h: 'hid*', v: 'true' })).toBe('hidden\nh1\nh2\nh3\n');
    expect(text({ h: 'idx,nope' })).toBe('cities\nb\nmails\n');
  });

  it('sorts with s (numbers numerically, nulls first, :desc)', () => {
    expect(text({ h: 'index', s: 'docs' })).toBe('mails\nb\ncities\n');
    expect(text({ h: 'index', s: 'store:desc' })).toBe('cities\nb\nmails\n');
    expect(text({ h: 'index', s: 'i' })).toBe('b\ncities\nmails\n');
    const e = esErr(() => renderCatTable(table, { s: 'zzz' }));
    expect([e.status, e.type, e.message]).toEqual([400, 'unsupported_operation_exception', 'Unable to sort by unknown sort key `zzz`']);
  });

  it('renders sizes in the bytes unit', () => {
    expect(text({ h: 'store', bytes: 'b' })).toBe('32700000\n     225\n        \n');
    expect(text({ h: 'store', bytes: 'kb' })).toBe('31933\n    0\n     \n');
  });

  it('prints help as name | aliases | description', () => {
    expect(text({ help: '' }).split('\n')[0]).toBe('index  | i,idx | index name          ');
  });
});

describe('cat JSON output', () => {
  it('gives every value as a string (or null), keyed by the displayed header', () => {
    const out = renderCatTable(table, { format: 'json', h: 'i,docs,store' });
    expect(out).toEqual({
      kind: 'json',
      rows: [
        { i: 'cities', docs: '135233', store: '31.1mb' },
        { i: 'b', docs: '7', store: '225b' },
        { i: 'mails', docs: null, store: null },
      ],
    });
  });

  it('follows a single JSON Accept type, not a media range', () => {
    expect(renderCatTable(table, { accept: 'application/json' }).kind).toBe('json');
    expect(renderCatTable(table, { accept: 'application/vnd.elasticsearch+json; compatible-with=8,text/plain' }).kind).toBe('text');
    expect(renderCatTable(table, { accept: 'application/json', format: 'txt' }).kind).toBe('text');
  });
});

describe('cat indices and shards tables', () => {
  const meta = (name: string, shards: number, replicas: number): IndexMetadata => ({
    name,
    uuid: `${name}-uuid`,
    numberOfShards: shards,
    numberOfReplicas: replicas,
    routingNumShards: shards,
    maxResultWindow: 10_000,
    refreshIntervalMs: 1000,
    mappings: { properties: {} },
    creationDate: Date.UTC(2026, 0, 2),
    version: 1,
  });
  const copy = (node: number, primary: boolean, inSync = true) => ({ node, primary, inSync, hosted: true });
  const views: IndexView[] = [
    { metadata: meta('a', 2, 0), placement: [0, 1], copies: [[copy(0, true)], [copy(1, true)]] },
    { metadata: meta('b', 1, 1), placement: [1], copies: [[copy(1, true)]] },
  ];
  const stats: ClusterStats = {
    nodes: [
      { node: 0, url: 'http://10.0.0.1:9300', host: '10.0.0.1', name: 'shard-0', reachable: true },
      { node: 1, url: 'http://10.0.0.2:9300', host: '10.0.0.2', name: null, reachable: false },
    ],
    shards: new Map([['a\u00000', new Map([[0, { docs: 3, deleted: 1, segments: 2 }]])]]),
  };

  it('reports health, primaries-only counts and the estimated sizes per index', () => {
    const out = renderCatTable(catIndicesTable(views, stats), { format: 'json', h: 'health,index,pri,rep,docs.count,docs.deleted,store.size,cds' });
    expect(out).toEqual({
      kind: 'json',
      rows: [
        { health: 'red', index: 'a', pri: '2', rep: '0', 'docs.count': '3', 'docs.deleted': '1', 'store.size': '4kb', cds: '2026-01-02T00:00:00.000Z' },
        { health: 'red', index: 'b', pri: '1', rep: '1', 'docs.count': null, 'docs.deleted': null, 'store.size': null, cds: '2026-01-02T00:00:00.000Z' },
      ],
    });
    expect(catIndicesTable(views, stats, 'green').rows).toEqual([]);
  });

  it('shows a closed index as `close` with its health, shards and replicas, and empty stats (as ES)', () => {
    const closed: IndexView = { ...views[0], metadata: { ...views[0].metadata, state: 'close' } };
    const out = renderCatTable(catIndicesTable([closed], stats), {
      format: 'json',
      h: 'health,status,index,pri,rep,docs.count,docs.deleted,store.size,pri.store.size',
    });
    expect(out).toEqual({
      kind: 'json',
      rows: [
        {
          health: 'red',
          status: 'close',
          index: 'a',
          pri: '2',
          rep: '0',
          'docs.count': null,
          'docs.deleted': null,
          'store.size': null,
          'pri.store.size': null,
        },
      ],
    });
  });

  it('has the default columns of ES 8.15, dataset.size last', () => {
    const out = renderCatTable(catIndicesTable(views, stats), { v: 'true' });
    expect(out.kind === 'text' && out.text.split('\n')[0].split(/ +/)).toEqual([
      'health',
      'status',
      'index',
      'uuid',
      'pri',
      'rep',
      'docs.count',
      'docs.deleted',
      'store.size',
      'pri.store.size',
      'dataset.size',
    ]);
  });

  it('lists each primary with its node and each replica as UNASSIGNED', () => {
    const out = renderCatTable(catShardsTable(views, stats), { format: 'json' });
    expect(out.kind === 'json' && out.rows).toEqual([
      { index: 'a', shard: '0', prirep: 'p', state: 'STARTED', docs: '3', store: '4kb', dataset: '4kb', ip: '10.0.0.1', node: 'shard-0' },
      { index: 'a', shard: '1', prirep: 'p', state: 'UNASSIGNED', docs: null, store: null, dataset: null, ip: null, node: null },
      { index: 'b', shard: '0', prirep: 'p', state: 'UNASSIGNED', docs: null, store: null, dataset: null, ip: null, node: null },
      { index: 'b', shard: '0', prirep: 'r', state: 'UNASSIGNED', docs: null, store: null, dataset: null, ip: null, node: null },
    ]);
  });

  it('lists replicas on their node: STARTED in sync, INITIALIZING while recovering, UNASSIGNED with ES’s reason otherwise', () => {
    const up: ClusterStats = {
      nodes: [0, 1, 2].map((n) => ({ node: n, url: `http://10.0.0.${n + 1}:9300`, host: `10.0.0.${n + 1}`, name: `shard-${n}`, reachable: n !== 2 })),
      shards: new Map([
        [
          'c\u00000',
          new Map([
            [0, { docs: 5, deleted: 0, segments: 1 }],
            [1, { docs: 5, deleted: 0, segments: 2 }],
          ]),
        ],
      ]),
    };
    // shard 0: primary on 0, replicas on 1 (in sync) and 2 (node down); shard 1: replica on 0 out of
    // sync (recovering); shard 2: replica on 0 out of sync that its node no longer reports; 4 replicas configured, at most 3 placed.
    const c: IndexView = {
      metadata: meta('c', 3, 4),
      placement: [0, 1, 1],
      copies: [
        [copy(0, true), copy(1, false), copy(2, false)],
        [copy(1, true), copy(0, false, false)],
        [copy(1, true), { ...copy(0, false, false), hosted: false }],
      ],
    };
    const out = renderCatTable(catShardsTable([c], up), { format: 'json', h: 'shard,prirep,state,docs,node,ur' });
    expect(out.kind === 'json' && out.rows).toEqual([
      { shard: '0', prirep: 'p', state: 'STARTED', docs: '5', node: 'shard-0', ur: null },
      { shard: '0', prirep: 'r', state: 'STARTED', docs: '5', node: 'shard-1', ur: null },
      { shard: '0', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'NODE_LEFT' },
      { shard: '0', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'INDEX_CREATED' },
      { shard: '0', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'INDEX_CREATED' },
      { shard: '1', prirep: 'p', state: 'STARTED', docs: null, node: 'shard-1', ur: null },
      { shard: '1', prirep: 'r', state: 'INITIALIZING', docs: null, node: 'shard-0', ur: null },
      { shard: '1', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'INDEX_CREATED' },
      { shard: '1', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'INDEX_CREATED' },
      { shard: '1', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'INDEX_CREATED' },
      { shard: '2', prirep: 'p', state: 'STARTED', docs: null, node: 'shard-1', ur: null },
      { shard: '2', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'ALLOCATION_FAILED' },
      { shard: '2', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'INDEX_CREATED' },
      { shard: '2', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'INDEX_CREATED' },
      { shard: '2', prirep: 'r', state: 'UNASSIGNED', docs: null, node: null, ur: 'INDEX_CREATED' },
    ]);
    expect(catIndicesTable([c], up).rows[0][0]).toBe('yellow');
  });

  it('lists at most one unassigned replica per shard node, in time independent of the setting', () => {
    const nodes: ClusterStats = {
      nodes: [0, 1, 2].map((n) => ({ node: n, url: `http://10.0.0.${n + 1}:9300`, host: `10.0.0.${n + 1}`, name: `shard-${n}`, reachable: true })),
      shards: new Map(),
    };
    const huge: IndexView = {
      metadata: meta('huge', 2, 2_000_000_000),
      placement: [0, 1],
      copies: [[copy(0, true), copy(1, false), copy(2, false)], [copy(1, true)]],
    };
    const started = performance.now();
    const rows = catShardsTable([huge], nodes).rows;
    expect(performance.now() - started).toBeLessThan(100);
    // shard 0: 3 real copies + 3 unassigned; shard 1: 1 real copy + 3 unassigned.
    expect(rows.filter((r) => r[1] === 0).map((r) => r[3])).toEqual(['STARTED', 'STARTED', 'STARTED', 'UNASSIGNED', 'UNASSIGNED', 'UNASSIGNED']);
    expect(rows.filter((r) => r[1] === 1).map((r) => r[3])).toEqual(['STARTED', 'UNASSIGNED', 'UNASSIGNED', 'UNASSIGNED']);
  });
});
