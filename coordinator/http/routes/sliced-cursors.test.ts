/**
 * Sliced PIT and sliced scroll through the whole stack in process: N slices together return every
 * document exactly once, each slice the same documents every time, and ES's errors for bad slices.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessStack, type InProcessStack } from '../../../test/support/in-process-coordinator.ts';

const DOCS = 600;
let stack: InProcessStack;

beforeAll(async () => {
  stack = await startInProcessStack(2);
  expect(
    (await stack.call('PUT', '/sl', { settings: { number_of_shards: 3 }, mappings: { properties: { n: { type: 'long' }, tag: { type: 'keyword' } } } })).status,
  ).toBe(200);
  // every tenth document has no `n` (it is in no slice of a `field: n` split)
  const bulk = Array.from({ length: DOCS }, (_, i) => `{"index":{"_id":"d${i}"}}\n${i % 10 === 0 ? `{"tag":"t"}` : `{"n":${i},"tag":"t"}`}\n`).join('');
  expect((await stack.call('POST', '/sl/_bulk?refresh=true', bulk, 'application/x-ndjson')).json.errors).toBe(false);
});

afterAll(() => stack.close());

/** The ids of one PIT slice, walked with search_after in pages of `size`. */
async function pitSlice(pit: string, slice: Record<string, unknown>, size = 70): Promise<string[]> {
  const ids: string[] = [];
  let after: unknown[] | undefined;
  for (;;) {
    const res = await stack.call('POST', '/_search', { size, pit: { id: pit }, slice, sort: ['_shard_doc'], ...(after ? { search_after: after } : {}) });
    expect(res.status, res.text).toBe(200);
    const hits = res.json.hits.hits as { _id: string; sort: unknown[] }[];
    if (hits.length === 0) return ids;
    ids.push(...hits.map((h) => h._id));
    after = hits[hits.length - 1].sort;
  }
}

/** The ids of one scroll slice. */
async function scrollSlice(slice: Record<string, unknown>, size = 70): Promise<string[]> {
  let res = await stack.call('POST', '/sl/_search?scroll=1m', { size, slice });
  expect(res.status, res.text).toBe(200);
  const ids: string[] = [];
  const scrollId = res.json._scroll_id;
  while (res.json.hits.hits.length > 0) {
    ids.push(...res.json.hits.hits.map((h: { _id: string }) => h._id));
    res = await stack.call('POST', '/_search/scroll', { scroll: '1m', scroll_id: scrollId });
    expect(res.status, res.text).toBe(200);
  }
  await stack.call('DELETE', '/_search/scroll', { scroll_id: scrollId });
  return ids;
}

/** Checks that the slices' ids are all documents (those with `n` when `withN`), each once. */
function expectPartition(slices: string[][], withN = false): void {
  const all = slices.flat();
  const expected = Array.from({ length: DOCS }, (_, i) => i)
    .filter((i) => !withN || i % 10 !== 0)
    .map((i) => `d${i}`);
  expect(all.length).toBe(expected.length);
  expect(new Set(all).size).toBe(expected.length);
  expect([...all].sort()).toEqual([...expected].sort());
  for (const s of slices) expect(s.length).toBeGreaterThan(0);
}

describe('sliced point in time', () => {
  let pit: string;
  beforeAll(async () => {
    pit = (await stack.call('POST', '/sl/_pit?keep_alive=1m')).json.id;
  });
  afterAll(async () => {
    await stack.call('DELETE', '/_pit', { id: pit });
  });

  it.each([2, 3, 4, 7])('splits every document into %i slices, each exactly once', async (max) => {
    const slices = await Promise.all(Array.from({ length: max }, (_, id) => pitSlice(pit, { id, max })));
    expectPartition(slices);
  });

  it('gives a slice the same documents every time, and counts only its own', async () => {
    const once = await pitSlice(pit, { id: 1, max: 5 }, 1000);
    expect(await pitSlice(pit, { id: 1, max: 5 }, 13)).toEqual(once);
    const counted = await stack.call('POST', '/_search', { size: 0, track_total_hits: true, pit: { id: pit }, slice: { id: 1, max: 5 } });
    expect(counted.json.hits.total.value).toBe(once.length);
  });

  it('slices by a numeric field: documents without a value are in no slice of a split shard', async () => {
    // 6 slices over 3 shards: every shard is split in two by `n`, so the documents without `n` are left out.
    const slices = await Promise.all([0, 1, 2, 3, 4, 5].map((id) => pitSlice(pit, { field: 'n', id, max: 6 })));
    expectPartition(slices, true);
    // 4 slices over 3 shards: shards 1 and 2 are read whole (ES's MatchAllDocsQuery), documents without `n` included.
    const whole = await Promise.all([1, 2].map((id) => pitSlice(pit, { field: 'n', id, max: 4 })));
    expect(whole.flat().filter((id) => Number(id.slice(1)) % 10 === 0).length).toBeGreaterThan(0);
  });

  it("refuses _id and non-numeric fields with ES's shard errors", async () => {
    const bad = async (slice: Record<string, unknown>) => {
      const res = await stack.call('POST', '/_search', { pit: { id: pit }, slice });
      expect(res.status).toBe(400);
      expect(res.json.error.type).toBe('search_phase_execution_exception');
      return res.json.error.root_cause[0].reason;
    };
    expect(await bad({ field: '_id', id: 0, max: 2 })).toBe('cannot slice on [_id] when using [point-in-time]');
    expect(await bad({ field: 'nope', id: 0, max: 2 })).toBe('field nope not found');
    expect(await bad({ field: 'tag', id: 0, max: 2 })).toBe('cannot load numeric doc values on tag');
  });
});

describe('sliced scroll', () => {
  it.each([2, 3, 5])('splits every document into %i slices, each exactly once', async (max) => {
    const slices = await Promise.all(Array.from({ length: max }, (_, id) => scrollSlice({ id, max })));
    expectPartition(slices);
  });

  it('slices by _id explicitly the same way as by default', async () => {
    expect((await scrollSlice({ field: '_id', id: 1, max: 4 })).sort()).toEqual((await scrollSlice({ id: 1, max: 4 })).sort());
  });

  it('refuses more slices than index.max_slices_per_scroll, and slices outside a scroll or PIT', async () => {
    const many = await stack.call('POST', '/sl/_search?scroll=1m', { slice: { id: 0, max: 1025 } });
    expect(many.status).toBe(400);
    expect(many.json.error.root_cause[0].reason).toBe(
      'The number of slices [1025] is too large. It must be less than [1024]. This limit can be set by changing the [index.max_slices_per_scroll] index level setting.',
    );
    const plain = await stack.call('POST', '/sl/_search', { slice: { id: 0, max: 2 } });
    expect([plain.status, plain.json.error.reason]).toEqual([400, 'Validation Failed: 1: [slice] can only be used with [scroll] or [point-in-time] requests;']);
    const small = await stack.call('POST', '/sl/_search?scroll=1m', { slice: { id: 0, max: 1 } });
    expect([small.status, small.json.error.caused_by.reason]).toEqual([400, 'max must be greater than 1']);
    expect((await stack.call('PUT', '/sl/_settings', { 'index.max_slices_per_scroll': 1025 })).status).toBe(200);
    const allowed = await stack.call('POST', '/sl/_search?scroll=1m', { size: 1, slice: { id: 0, max: 1025 } });
    expect(allowed.status, allowed.text).toBe(200);
    await stack.call('DELETE', '/_search/scroll', { scroll_id: allowed.json._scroll_id });
  });

  it('splits shards as ES does: with number_of_routing_shards 5, ids 2 3 4 on shards 0 2 4, id 1 on shard 3', async () => {
    // OpenSearch's rest-api-spec test "Sliced scroll" (5 shards, 2 slices):
    // https://github.com/opensearch-project/OpenSearch/blob/main/rest-api-spec/src/main/resources/rest-api-spec/test/scroll/12_slices.yml
    expect((await stack.call('PUT', '/sl5', { settings: { number_of_shards: 5, number_of_routing_shards: 5 } })).status).toBe(200);
    const bulk = [1, 2, 3, 4].map((i) => `{"index":{"_id":"${i}"}}\n{"foo":${i}}\n`).join('');
    expect((await stack.call('POST', '/sl5/_bulk?refresh=true', bulk, 'application/x-ndjson')).json.errors).toBe(false);
    const ids = async (id: number) => {
      const res = await stack.call('POST', '/sl5/_search?scroll=1m&sort=foo', { slice: { id, max: 2 } });
      await stack.call('DELETE', '/_search/scroll', { scroll_id: res.json._scroll_id });
      return res.json.hits.hits.map((h: { _id: string }) => h._id);
    };
    expect(await ids(0)).toEqual(['2', '3', '4']);
    expect(await ids(1)).toEqual(['1']);
  });
});
