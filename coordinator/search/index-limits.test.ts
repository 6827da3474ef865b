import { describe, expect, it } from 'vitest';
import { parseSearchRequest } from '../rest/search-request.ts';
import { DEFAULT_MAX_RESULT_WINDOW } from '../cluster/index-settings.ts';
import { SCORE_SORT, type SortField } from '../../protocol/sort.ts';
import { MAX_SIZE_WITH_DEFAULT_WINDOW, regexpLengthCause, rescoreCause, resultWindowCause, scriptFieldsCause, termsCountCause } from './index-limits.ts';

const req = (qs: string) => parseSearchRequest(new URLSearchParams(qs), undefined, '/i/_search');
const tail =
  'See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.';

describe('resultWindowCause', () => {
  it('with the default window: deep from is fine, size is bounded by 10,000 (ES text, limit 10000)', () => {
    expect(MAX_SIZE_WITH_DEFAULT_WINDOW).toBe(10_000);
    expect(resultWindowCause(req('from=5000000&size=10'), DEFAULT_MAX_RESULT_WINDOW)).toBeNull();
    expect(resultWindowCause(req('size=10000'), DEFAULT_MAX_RESULT_WINDOW)).toBeNull();
    expect(resultWindowCause(req('size=9000000'), DEFAULT_MAX_RESULT_WINDOW)).toEqual({
      type: 'illegal_argument_exception',
      reason: `Result window is too large, from + size must be less than or equal to: [10000] but was [9000000]. ${tail}`,
    });
    expect(resultWindowCause(req('size=10001'), DEFAULT_MAX_RESULT_WINDOW)?.reason).toContain('[10000] but was [10001]');
    expect(resultWindowCause(req('from=9999990&size=11'), DEFAULT_MAX_RESULT_WINDOW)?.reason).toContain(`[${DEFAULT_MAX_RESULT_WINDOW}] but was [10000001]`);
  });

  it("with a set window: ES's from + size rule alone, above or below 10,000", () => {
    expect(resultWindowCause(req('from=9990&size=10'), 10_000)).toBeNull();
    expect(resultWindowCause(req('from=9991&size=10'), 10_000)?.reason).toBe(
      `Result window is too large, from + size must be less than or equal to: [10000] but was [10001]. ${tail}`,
    );
    expect(resultWindowCause(req('size=50000'), 50_000)).toBeNull();
    expect(resultWindowCause(req('size=101'), 100)?.reason).toContain('[100] but was [101]');
  });

  it('bounds a scroll batch by 10,000 with the default window, by the window when set', () => {
    const batch = (n: number, w: number) => resultWindowCause(req(`scroll=1m&size=${n}`), w)?.reason ?? null;
    expect(batch(10_000, DEFAULT_MAX_RESULT_WINDOW)).toBeNull();
    expect(batch(10_001, DEFAULT_MAX_RESULT_WINDOW)).toBe(
      'Batch size is too large, size must be less than or equal to: [10000] but was [10001]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.',
    );
    expect(batch(20_000, 20_000)).toBeNull();
    expect(batch(501, 500)).toContain('[500] but was [501]');
  });
});

const bodyReq = (body: unknown, qs = '') => parseSearchRequest(new URLSearchParams(qs), body, '/i/_search');
const rescore = (window_size?: number) => ({ ...(window_size !== undefined ? { window_size } : {}), query: { rescore_query: { match_all: {} } } });

describe('regexpLengthCause', () => {
  it("refuses a pattern over index.max_regex_length with ES's text, in the query or a rescore query", () => {
    const long = 'a'.repeat(1001);
    expect(regexpLengthCause(bodyReq({ query: { regexp: { k: 'a'.repeat(1000) } } }), 1000, 'i', 'u')).toBeNull();
    const cause = regexpLengthCause(bodyReq({ query: { bool: { filter: [{ regexp: { k: long } }] } } }), 1000, 'i', 'u');
    const text =
      'The length of regex [1001] used in the Regexp Query request has exceeded the allowed maximum of [1000]. This maximum can be set by changing the [index.max_regex_length] index level setting.';
    expect(cause).toEqual({
      type: 'query_shard_exception',
      reason: `failed to create query: ${text}`,
      index_uuid: 'u',
      index: 'i',
      caused_by: { type: 'illegal_argument_exception', reason: text },
    });
    const inRescore = bodyReq({ rescore: { query: { rescore_query: { regexp: { k: 'abc' } } } } });
    expect(regexpLengthCause(inRescore, 2, 'i', 'u')?.caused_by?.reason).toContain('[3]');
  });
});

describe('termsCountCause', () => {
  it("refuses a terms query over index.max_terms_count with ES's text, nested or in a rescore query", () => {
    const terms = (n: number) => ({ terms: { k: Array.from({ length: n }, (_, i) => `v${i}`) } });
    expect(termsCountCause(bodyReq({ query: terms(3) }), 3, 'i', 'u')).toBeNull();
    const text =
      'The number of terms [4] used in the Terms Query request has exceeded the allowed maximum of [3]. This maximum can be set by changing the [index.max_terms_count] index level setting.';
    expect(termsCountCause(bodyReq({ query: { bool: { filter: [{ constant_score: { filter: terms(4) } }] } } }), 3, 'i', 'u')).toEqual({
      type: 'query_shard_exception',
      reason: `failed to create query: ${text}`,
      index_uuid: 'u',
      index: 'i',
      caused_by: { type: 'illegal_argument_exception', reason: text },
    });
    expect(termsCountCause(bodyReq({ rescore: { query: { rescore_query: terms(5) } } }), 3, 'i', 'u')?.caused_by?.reason).toContain('[5]');
  });
});

describe('rescoreCause and scriptFieldsCause', () => {
  const meta = { maxResultWindow: DEFAULT_MAX_RESULT_WINDOW };
  it('bounds window_size by max_rescore_window (10,000 while Folio keeps its default result window)', () => {
    expect(rescoreCause(bodyReq({ rescore: rescore(10_000) }), SCORE_SORT, meta)).toBeNull();
    expect(rescoreCause(bodyReq({ rescore: [rescore(), rescore(10_001)] }), SCORE_SORT, meta)?.reason).toBe(
      'Rescore window [10001] is too large. It must be less than [10000]. This prevents allocating massive heaps for storing the results to be rescored. This limit can be set by changing the [index.max_rescore_window] index level setting.',
    );
    expect(rescoreCause(bodyReq({ rescore: rescore(60) }), SCORE_SORT, { maxResultWindow: 50 })?.reason).toContain('less than [50]');
    expect(rescoreCause(bodyReq({ rescore: rescore(60) }), SCORE_SORT, { maxResultWindow: 50, maxRescoreWindow: 100 })).toBeNull();
  });
  it('allows _score (then _shard_doc asc) only', () => {
    const shardDoc: SortField = { kind: 'doc', field: '_shard_doc', order: 'asc', missing: '_last', mode: 'min' };
    const byField: SortField = { kind: 'field', field: 'n', order: 'asc', missing: '_last', mode: 'min' };
    expect(rescoreCause(bodyReq({ rescore: rescore() }), [SCORE_SORT[0], shardDoc], meta)).toBeNull();
    for (const sort of [[byField], [SCORE_SORT[0], byField], [{ ...SCORE_SORT[0], order: 'asc' as const }]]) {
      expect(rescoreCause(bodyReq({ rescore: rescore() }), sort, meta)?.reason).toBe('Cannot use [sort] option in conjunction with [rescore].');
    }
  });
  it('counts script_fields against max_script_fields unless size is 0', () => {
    const three = { script_fields: { a: {}, b: {}, c: {} } };
    expect(scriptFieldsCause(bodyReq(three), 2)?.reason).toBe(
      'Trying to retrieve too many script_fields. Must be less than or equal to: [2] but was [3]. This limit can be set by changing the [index.max_script_fields] index level setting.',
    );
    expect(scriptFieldsCause(bodyReq({ ...three, size: 0 }), 2)).toBeNull();
    expect(scriptFieldsCause(bodyReq(three), 32)).toBeNull();
  });
});
