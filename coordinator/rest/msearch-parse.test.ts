import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { MAX_MSEARCH_ITEMS, parseMsearchBody } from './msearch-parse.ts';

const none = new URLSearchParams();

async function rejection(p: Promise<unknown>): Promise<EsError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof EsError) return e;
    throw e;
  }
  throw new Error('expected an EsError');
}

describe('_msearch body', () => {
  it('reads header and body pairs: index from the header, else the path; empty headers', async () => {
    const text = '{"index": "a"}\n{"query": {"match_all": {}}}\n{}\n{"size": 1}\n\n{"from": 2}\n{"index": ["b", "c"]}\n{}\n';
    const items = await parseMsearchBody(text, 'dflt', none);
    expect(items.map((i) => i.indexExpression)).toEqual(['a', 'dflt', 'dflt', 'b,c']);
    expect(items.map((i) => i.body)).toEqual([{ query: { match_all: {} } }, { size: 1 }, { from: 2 }, {}]);
  });

  it('maps header keys (and their camelCase aliases) onto the item parameters, over the inherited URL ones', async () => {
    const url = new URLSearchParams('search_type=dfs_query_then_fetch&rest_total_hits_as_int=true&routing=r&max_concurrent_searches=3');
    const text =
      '{"searchType": "query_then_fetch", "preference": "_local", "request_cache": true, "allow_partial_search_results": false, "expand_wildcards": ["open", "hidden"], "ignoreUnavailable": "true"}\n{}\n{}\n{}\n';
    const [first, second] = await parseMsearchBody(text, undefined, url);
    expect(Object.fromEntries(first.params)).toEqual({
      search_type: 'query_then_fetch',
      rest_total_hits_as_int: 'true',
      routing: 'r',
      preference: '_local',
      request_cache: 'true',
      allow_partial_search_results: 'false',
      expand_wildcards: 'open,hidden',
      ignore_unavailable: 'true',
    });
    expect(Object.fromEntries(second.params)).toEqual({ search_type: 'dfs_query_then_fetch', rest_total_hits_as_int: 'true', routing: 'r' });
  });

  it('drops a last header without a body line, and accepts CRLF lines', async () => {
    const items = await parseMsearchBody('{}\r\n{"size": 0}\r\n{"index": "x"}\n', undefined, none);
    expect(items).toHaveLength(1);
    expect(items[0].body).toEqual({ size: 0 });
  });

  it("fails the whole request with ES's texts", async () => {
    expect((await rejection(parseMsearchBody('{}\n{}', undefined, none))).message).toBe('The msearch request must be terminated by a newline [\\n]');
    const unknown = await rejection(parseMsearchBody('{"type": "doc"}\n{}\n', undefined, none));
    expect([unknown.status, unknown.type, unknown.message]).toEqual([400, 'illegal_argument_exception', 'key [type] is not supported in the metadata section']);
    const none1 = await rejection(parseMsearchBody('{}\n', undefined, none));
    expect([none1.type, none1.message]).toEqual(['action_request_validation_exception', 'Validation Failed: 1: no requests added;']);
    const syntax = await rejection(parseMsearchBody('{}\n{"query": }\n', undefined, none));
    expect(syntax.type).toBe('x_content_parse_exception');
    expect(syntax.message).toMatch(/^\[1:11\] Unexpected character/);
    const notObject = await rejection(parseMsearchBody('[]\n{}\n', undefined, none));
    expect([notObject.type, notObject.message]).toEqual([
      'parsing_exception',
      'Failed to parse object: expecting token of type [START_OBJECT] but found [START_ARRAY]',
    ]);
    const emptyBody = await rejection(parseMsearchBody('{}\n\n', undefined, none));
    expect([emptyBody.type, emptyBody.message]).toEqual(['parsing_exception', 'Expected [START_OBJECT] but found [null]']);
    const arrayBody = await rejection(parseMsearchBody('{}\n[1]\n', undefined, none));
    expect(arrayBody.message).toBe('Expected [START_OBJECT] but found [START_ARRAY]');
    const badBool = await rejection(parseMsearchBody('{"request_cache": {}}\n{}\n', undefined, none));
    expect(badBool.message).toBe('Could not convert [request_cache] to boolean');
  });

  it(`bounds the number of searches at ${MAX_MSEARCH_ITEMS}, parsing in event-loop slices`, async () => {
    const ok = await parseMsearchBody('{}\n{}\n'.repeat(MAX_MSEARCH_ITEMS), undefined, none);
    expect(ok).toHaveLength(MAX_MSEARCH_ITEMS);
    const over = await rejection(parseMsearchBody('{}\n{}\n'.repeat(MAX_MSEARCH_ITEMS + 1), undefined, none));
    expect([over.status, over.type]).toEqual([400, 'illegal_argument_exception']);
    expect(over.message).toContain(`[${MAX_MSEARCH_ITEMS}]`);
  });

  it('yields to the event loop while it parses a large body', async () => {
    const body = JSON.stringify({
      query: { bool: { must: [{ match: { title: 'a b c' } }], filter: [{ terms: { tag: Array.from({ length: 40 }, (_, i) => `t${i}`) } }] } },
    });
    const text = `{"index": "x"}\n${body}\n`.repeat(MAX_MSEARCH_ITEMS);
    let turns = 0;
    let done = false;
    const tick = (): void => {
      turns++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const started = performance.now();
    const items = await parseMsearchBody(text, undefined, none);
    done = true;
    expect(items).toHaveLength(MAX_MSEARCH_ITEMS);
    // one turn per ~10 ms slice of parsing at least (the parse takes well over one slice)
    expect(turns).toBeGreaterThanOrEqual(Math.floor((performance.now() - started) / 50));
    expect(turns).toBeGreaterThan(1);
  });
});
