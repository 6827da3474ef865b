/**
 * `_delete_by_query`, `_update_by_query`, sliced `_reindex` and task cancellation through the whole
 * stack in process: ES's response bodies, counts, slices and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessStack, type InProcessStack } from '../../../test/support/in-process-coordinator.ts';

let stack: InProcessStack;
const DOCS = 300;

/** Creates `name` with `DOCS` documents `{n, tag: even|odd}` over 3 shards. */
async function fill(name: string, mappings: unknown = { properties: { n: { type: 'long' }, tag: { type: 'keyword' } } }): Promise<void> {
  expect((await stack.call('PUT', `/${name}`, { settings: { number_of_shards: 3 }, mappings })).status).toBe(200);
  const bulk = Array.from({ length: DOCS }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i},"tag":"${i % 2 ? 'odd' : 'even'}","note":"x${i}"}\n`).join('');
  expect((await stack.call('POST', `/${name}/_bulk?refresh=true`, bulk, 'application/x-ndjson')).json.errors).toBe(false);
}

const count = async (index: string, query: unknown = { match_all: {} }) => (await stack.call('POST', `/${index}/_count`, { query })).json.count;

/** Polls a task until it completes. */
async function finished(task: string): Promise<any> {
  for (;;) {
    const rec = (await stack.call('GET', `/_tasks/${task}`)).json;
    if (rec.completed) return rec;
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  stack = await startInProcessStack(2);
});

afterAll(() => stack.close());

describe('_delete_by_query', () => {
  it("deletes the matching documents and answers ES's body, key for key", async () => {
    await fill('dbq1');
    const res = await stack.call('POST', '/dbq1/_delete_by_query?refresh=true&scroll_size=40', { query: { term: { tag: 'odd' } } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual([
      'took',
      'timed_out',
      'total',
      'deleted',
      'batches',
      'version_conflicts',
      'noops',
      'retries',
      'throttled_millis',
      'requests_per_second',
      'throttled_until_millis',
      'failures',
    ]);
    expect(res.json).toMatchObject({
      timed_out: false,
      total: 150,
      deleted: 150,
      batches: 4,
      version_conflicts: 0,
      noops: 0,
      retries: { bulk: 0, search: 0 },
      throttled_millis: 0,
      requests_per_second: -1,
      throttled_until_millis: 0,
      failures: [],
    });
    expect(await count('dbq1')).toBe(150);
    expect(await count('dbq1', { term: { tag: 'odd' } })).toBe(0);
  });

  it('takes q=, max_docs and slices (counts summed, each slice listed)', async () => {
    await fill('dbq2');
    const byQ = await stack.call('POST', '/dbq2/_delete_by_query?q=tag:even&max_docs=10&refresh=true', {});
    expect(byQ.json).toMatchObject({ total: 10, deleted: 10 });
    expect(await count('dbq2', { term: { tag: 'even' } })).toBe(140);
    expect(await count('dbq2', { term: { tag: 'odd' } })).toBe(150);
    await fill('dbq2b');
    const sliced = await stack.call('POST', '/dbq2b/_delete_by_query?slices=3&refresh=true', { query: { range: { n: { gte: 100 } } } });
    expect(sliced.status).toBe(200);
    expect(sliced.json).toMatchObject({ total: 200, deleted: 200, batches: 3 });
    expect(sliced.json.slices).toHaveLength(3);
    expect(sliced.json.slices.map((s: { slice_id: number }) => s.slice_id)).toEqual([0, 1, 2]);
    expect(sliced.json.slices.reduce((n: number, s: { deleted: number }) => n + s.deleted, 0)).toBe(200);
    expect(Object.keys(sliced.json).at(-2)).toBe('slices');
    expect(await count('dbq2b', { range: { n: { gte: 100 } } })).toBe(0);
    expect(await count('dbq2b')).toBe(100);
  });

  it('runs as a task with wait_for_completion=false, and a task can be cancelled', async () => {
    await fill('dbq3');
    const started = await stack.call('POST', '/dbq3/_delete_by_query?wait_for_completion=false&refresh=true', { query: { match_all: {} } });
    expect(started.json.task).toMatch(/^.+:\d+$/);
    const rec = await finished(started.json.task);
    expect(rec.task.action).toBe('indices:data/write/delete/byquery');
    expect(rec.response).toMatchObject({ total: DOCS, deleted: DOCS, failures: [] });
    expect(await count('dbq3')).toBe(0);

    await fill('dbq4');
    // 10 documents a second in batches of 10: one batch, then a wait of about a second for the next.
    const slow = await stack.call('POST', '/dbq4/_delete_by_query?wait_for_completion=false&scroll_size=10&requests_per_second=10', {});
    await new Promise((r) => setTimeout(r, 200));
    const cancelled = await stack.call('POST', `/_tasks/${slow.json.task}/_cancel`);
    expect(cancelled.status).toBe(200);
    const node = Object.keys(cancelled.json.nodes)[0];
    expect(cancelled.json.nodes[node].tasks[slow.json.task]).toMatchObject({ cancellable: true, cancelled: true });
    const done = await finished(slow.json.task);
    expect(done.response.canceled).toBe('by user request');
    expect(done.response.deleted).toBeLessThan(DOCS);
    expect(done.response.requests_per_second).toBe(10);
    expect((await stack.call('POST', `/_tasks/${slow.json.task}/_cancel`)).status).toBe(404);
  });

  it("refuses bad parameters with ES's texts", async () => {
    await fill('dbq5');
    const reason = async (path: string, body: unknown = {}) => (await stack.call('POST', path, body)).json.error.reason;
    expect(await reason('/dbq5/_delete_by_query?slices=0')).toBe('[slices] must be a positive integer or the string "auto", but was [0]');
    expect(await reason('/dbq5/_delete_by_query?conflicts=maybe')).toBe('conflicts may only be "proceed" or "abort" but was [maybe]');
    expect(await reason('/dbq5/_delete_by_query?requests_per_second=0')).toBe(
      '[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.',
    );
    expect(await reason('/dbq5/_delete_by_query?max_docs=5', { max_docs: 6 })).toBe('[max_docs] set to two different values [6] and [5]');
    expect(await reason('/dbq5/_delete_by_query?max_docs=2&slices=3')).toBe('[max_docs] should be >= [slices]');
    expect(await reason('/dbq5/_delete_by_query', { max_docs: 0 })).toBe('[max_docs] should be >= [slices]');
    expect(await reason('/dbq5/_delete_by_query', { max_docs: -1 })).toBe('[max_docs] parameter cannot be negative, found [-1]');
    expect(await reason('/dbq5/_delete_by_query?slices=2', { slice: { id: 0, max: 2 } })).toBe(
      "Validation Failed: 1: can't specify both manual and automatic slicing at the same time;",
    );
    expect(await reason('/dbq5/_delete_by_query', { query: { nope: {} } })).toBe('unknown query [nope]');
    expect(await reason('/dbq5/_delete_by_query?bogus=1')).toBe('request [/dbq5/_delete_by_query] contains unrecognized parameter: [bogus]');
    const missing = await stack.call('POST', '/nope/_delete_by_query', {});
    expect([missing.status, missing.json.error.type]).toEqual([404, 'index_not_found_exception']);
    expect(await count('dbq5')).toBe(DOCS);
  });

  it('walks one manual slice of the body', async () => {
    await fill('dbq6');
    const a = await stack.call('POST', '/dbq6/_delete_by_query?refresh=true', { slice: { id: 0, max: 2 } });
    const b = await stack.call('POST', '/dbq6/_delete_by_query?refresh=true', { slice: { id: 1, max: 2 } });
    expect(a.json.deleted + b.json.deleted).toBe(DOCS);
    expect(a.json.deleted).toBeGreaterThan(0);
    expect(await count('dbq6')).toBe(0);
  });
});

describe('_update_by_query', () => {
  it('rewrites every matching document so that a new mapping applies, keeping its exact source', async () => {
    await fill('ubq1', { dynamic: false, properties: { n: { type: 'long' } } });
    expect(await count('ubq1', { term: { tag: 'odd' } })).toBe(0); // `tag` is not mapped: not indexed
    expect((await stack.call('PUT', '/ubq1/_mapping', { properties: { tag: { type: 'keyword' } } })).status).toBe(200);
    const res = await stack.call('POST', '/ubq1/_update_by_query?refresh=true&conflicts=proceed', { query: { range: { n: { lt: 100 } } } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual([
      'took',
      'timed_out',
      'total',
      'updated',
      'deleted',
      'batches',
      'version_conflicts',
      'noops',
      'retries',
      'throttled_millis',
      'requests_per_second',
      'throttled_until_millis',
      'failures',
    ]);
    expect(res.json).toMatchObject({ total: 100, updated: 100, deleted: 0, failures: [] });
    expect(await count('ubq1', { term: { tag: 'odd' } })).toBe(50);
    const doc = await stack.call('GET', '/ubq1/_doc/7');
    expect(doc.json._version).toBe(2);
    expect(JSON.stringify(doc.json._source)).toBe('{"n":7,"tag":"odd","note":"x7"}');
  });

  it('refuses a script', async () => {
    await fill('ubq2');
    const res = await stack.call('POST', '/ubq2/_update_by_query', { script: { source: 'ctx._source.n++' } });
    expect([res.status, res.json.error.type, res.json.error.reason]).toEqual([
      400,
      'illegal_argument_exception',
      '[script] in update_by_query is not supported by Folio yet',
    ]);
  });
});

describe('_reindex with slices', () => {
  it('copies every document once with slices=auto and with a number of slices', async () => {
    await fill('rs1');
    const auto = await stack.call('POST', '/_reindex?slices=auto&refresh=true', { source: { index: 'rs1', size: 25 }, dest: { index: 'rs1-copy' } });
    expect(auto.status).toBe(200);
    expect(auto.json).toMatchObject({ total: DOCS, created: DOCS, failures: [] });
    expect(auto.json.slices).toHaveLength(3); // one per source shard
    expect(await count('rs1-copy')).toBe(DOCS);
    const two = await stack.call('POST', '/_reindex?slices=2&refresh=true', { source: { index: 'rs1' }, dest: { index: 'rs1-copy' }, max_docs: 101 });
    expect(two.json).toMatchObject({ total: 100, updated: 100 }); // max_docs split: 50 per slice, rounded down
  });

  it('copies into a new index whose dynamic mapping the slices race to create', async () => {
    expect((await stack.call('PUT', '/rs2', { settings: { number_of_shards: 4 } })).status).toBe(200);
    // half the values are integers (long), half fractions (float): parallel slices race to map `v`
    const bulk = Array.from({ length: 400 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"v":${i % 2 ? i : i + 0.5}}\n`).join('');
    expect((await stack.call('POST', '/rs2/_bulk?refresh=true', bulk, 'application/x-ndjson')).json.errors).toBe(false);
    for (let round = 0; round < 3; round++) {
      const res = await stack.call('POST', '/_reindex?slices=4&refresh=true', { source: { index: 'rs2', size: 10 }, dest: { index: `rs2-copy-${round}` } });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ total: 400, created: 400, failures: [] });
    }
  });
});
