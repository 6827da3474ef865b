/**
 * `_msearch` through the whole stack in process: items run through the search path, answer in
 * order with their `status`, and a failing item does not fail the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessStack, type InProcessStack } from '../../../test/support/in-process-coordinator.ts';

let stack: InProcessStack;
const ndjson = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
const msearch = (path: string, lines: unknown[]) => stack.call('POST', path, ndjson(lines), 'application/x-ndjson');

beforeAll(async () => {
  stack = await startInProcessStack(2);
  expect((await stack.call('PUT', '/ms', { settings: { number_of_shards: 2 } })).status).toBe(200);
  const bulk = Array.from({ length: 20 }, (_, i) => `{"index":{"_id":"${i}"}}\n{"n":${i},"tag":"${i % 2 ? 'odd' : 'even'}"}\n`).join('');
  expect((await stack.call('POST', '/ms/_bulk?refresh=true', bulk, 'application/x-ndjson')).json.errors).toBe(false);
});

afterAll(() => stack.close());

describe('_msearch', () => {
  it('answers each search in order with status 200, beside a failing one', async () => {
    const res = await msearch('/_msearch', [
      { index: 'ms' },
      { query: { term: { tag: 'odd' } }, size: 0 },
      { index: 'missing' },
      { query: { match_all: {} } },
      { index: 'ms' },
      { sort: [{ n: 'desc' }], size: 2 },
      { index: 'ms' },
      { query: { term: { n: 'not-a-number' } } },
    ]);
    expect(res.status).toBe(200);
    expect(typeof res.json.took).toBe('number');
    const [odd, missing, top, bad] = res.json.responses;
    expect(odd.status).toBe(200);
    expect(odd.hits.total).toEqual({ value: 10, relation: 'eq' });
    expect(missing).toEqual({
      error: expect.objectContaining({ type: 'index_not_found_exception', reason: 'no such index [missing]' }),
      status: 404,
    });
    expect(top.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['19', '18']);
    expect(top.status).toBe(200);
    expect(bad.status).toBe(400);
    expect(bad.error.type).toBe('search_phase_execution_exception');
  });

  it('takes the path index as default, URL options for every item, and max_concurrent_searches', async () => {
    const res = await msearch('/ms/_msearch?rest_total_hits_as_int=true&max_concurrent_searches=1', [
      {},
      { size: 0 },
      {},
      { size: 0, query: { range: { n: { lt: 5 } } } },
    ]);
    expect(res.json.responses.map((r: { hits: { total: number } }) => r.hits.total)).toEqual([20, 5]);
  });

  it('fails the whole request for a body ES cannot parse, and for bad parameters', async () => {
    const parse = await msearch('/_msearch', [{ index: 'ms' }, {}, { index: 'ms' }, { query: { nope: {} } }]);
    expect(parse.status).toBe(400);
    expect(parse.json.error.type).toBe('parsing_exception');
    expect(parse.json.error.reason).toBe('unknown query [nope]');
    const zero = await msearch('/_msearch?max_concurrent_searches=0', [{}, {}]);
    expect([zero.status, zero.json.error.reason]).toEqual([400, 'maxConcurrentSearchRequests must be positive']);
    const unknown = await msearch('/_msearch?bogus=1', [{}, {}]);
    expect(unknown.json.error.reason).toBe('request [/_msearch] contains unrecognized parameter: [bogus]');
    const empty = await stack.call('POST', '/_msearch', '', 'application/x-ndjson');
    expect([empty.status, empty.json.error.type, empty.json.error.reason]).toEqual([400, 'parse_exception', 'request body or source parameter is required']);
  });

  it("answers Folio's not-yet-supported features as their item's error only", async () => {
    const res = await msearch('/ms/_msearch', [{}, { size: 0 }, {}, { size: 0, suggest: { s: { text: 'x', term: { field: 'tag' } } } }]);
    expect(res.status).toBe(200);
    expect(res.json.responses[0].status).toBe(200);
    expect(res.json.responses[1].status).toBe(400);
    expect(res.json.responses[1].error.reason).toMatch(/not supported by Folio yet$/);
  });
});
