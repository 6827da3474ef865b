import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { esErr } from '../../test/support/es-error.ts';
import { parseSearchRequest } from './search-request.ts';
import { TRACK_TOTAL_HITS_ACCURATE } from './track-total-hits.ts';

const P = '/idx/_search';
const parse = (qs: string, body?: unknown) => parseSearchRequest(new URLSearchParams(qs), body, P);
const err = (qs: string, body?: unknown) => esErr(() => parse(qs, body));

describe('defaults and precedence', () => {
  it('has ES defaults without body or params', () => {
    expect(parse('')).toEqual({
      from: 0,
      size: 10,
      query: { kind: 'match_all', boost: 1 },
      sort: [],
      sortExplicit: false,
      source: true,
      trackTotalHits: 10000,
      trackScores: false,
      timeoutMs: null,
      searchAfter: null,
      restTotalHitsAsInt: false,
      scroll: null,
      allowPartialSearchResults: true,
      searchType: 'query_then_fetch',
      version: false,
      seqNoPrimaryTerm: false,
      explain: false,
      minScore: null,
      routing: null,
      preference: null,
      pit: null,
      profile: false,
      fields: null,
      docvalueFields: null,
      storedFields: null,
      rescore: [],
      scriptFields: 0,
      slice: null,
      collapse: null,
      highlight: null,
      aggs: null,
      postFilter: null,
      typedKeys: false,
    });
    expect(parse('', {})).toMatchObject({ from: 0, size: 10 });
  });
  it('applies the URL on top of the body; URL sort is appended', () => {
    const r = parse('from=5&size=2&sort=b:desc&q=title:x', { from: 1, size: 7, sort: ['a'], query: { match_all: {} } });
    expect([r.from, r.size, r.sortExplicit]).toEqual([5, 2, true]);
    expect(r.sort.map((s) => `${s.field}:${s.order}`)).toEqual(['a:asc', 'b:desc']);
    expect(r.query).toEqual({ kind: 'match', field: 'title', query: 'x', operator: 'or', boost: 1 });
  });
  it('coerces body numbers like XContentParser', () => {
    expect(parse('', { from: '3', size: 2.9 })).toMatchObject({ from: 3, size: 2 });
    expect(parse('', { size: -1 }).size).toBe(10);
  });
  it('reads track_total_hits, _source, timeout, search_after, flags', () => {
    expect(parse('track_total_hits=true').trackTotalHits).toBe(TRACK_TOTAL_HITS_ACCURATE);
    expect(parse('', { track_total_hits: false }).trackTotalHits).toBe(-1);
    expect(parse('', { track_total_hits: '100' }).trackTotalHits).toBe(100);
    expect(parse('rest_total_hits_as_int=true').trackTotalHits).toBe(TRACK_TOTAL_HITS_ACCURATE);
    expect(parse('_source=a,b&_source_excludes=c').source).toEqual({ includes: ['a', 'b'], excludes: ['c'] });
    expect(parse('_source=false', { _source: ['x'] }).source).toBe(false);
    expect(parse('', { _source: { includes: 'a', excludes: ['b'] } }).source).toEqual({ includes: ['a'], excludes: ['b'] });
    expect(parse('timeout=2s').timeoutMs).toBe(2000);
    expect(parse('', { timeout: '-1' }).timeoutMs).toBeNull();
    expect(parse('', { search_after: [1, 'x', null, true], sort: ['a'] }).searchAfter).toEqual([1, 'x', null, 1]);
    expect(parse('search_type=dfs_query_then_fetch&allow_partial_search_results=false&scroll=1m&routing=r')).toMatchObject({
      searchType: 'dfs_query_then_fetch',
      allowPartialSearchResults: false,
      scroll: '1m',
      routing: 'r',
    });
    expect(
      parse('', {
        version: true,
        seq_no_primary_term: 'true',
        explain: false,
        min_score: 0.5,
        stored_fields: ['a'],
        fields: [{ field: 'a' }],
        docvalue_fields: ['a'],
        aggs: {},
      }),
    ).toMatchObject({
      version: true,
      seqNoPrimaryTerm: true,
      minScore: 0.5,
    });
    expect(parse('q=a&default_operator=AND&df=t').query).toEqual({ kind: 'match', field: 't', query: 'a', operator: 'and', boost: 1 });
  });
});

describe('ES error texts', () => {
  it('URL numbers', () => {
    const e = err('size=abc');
    expect([e.status, e.type, e.message]).toEqual([400, 'illegal_argument_exception', 'Failed to parse int parameter [size] with value [abc]']);
    expect(e.causedBy).toEqual({ type: 'number_format_exception', reason: 'For input string: "abc"' });
    expect(err('from=1.5').message).toBe('Failed to parse int parameter [from] with value [1.5]');
    expect(err('size=2147483648').message).toBe('Failed to parse int parameter [size] with value [2147483648]');
    expect(err('from=-1').message).toBe('[from] parameter cannot be negative but was [-1]');
    expect(err('size=-1').message).toBe('[size] parameter cannot be negative, found [-1]');
  });
  it('body numbers', () => {
    const nf = err('', { size: 'abc' });
    expect([nf.status, nf.type, nf.message]).toEqual([400, 'number_format_exception', 'For input string: "abc"']);
    expect(err('', { from: -1 }).message).toBe('[from] parameter cannot be negative but was [-1]');
    expect(err('', { size: -2 }).message).toBe('[size] parameter cannot be negative, found [-2]');
    expect(err('', { size: 3000000000 }).type).toBe('x_content_parse_exception');
  });
  it('unknown body keys by token type', () => {
    const e = err('', { foo: 1 });
    expect([e.type, e.message, e.metadata]).toEqual(['parsing_exception', 'Unknown key for a VALUE_NUMBER in [foo].', { line: 1, col: 1 }]);
    expect(err('', { foo: 'x' }).message).toBe('Unknown key for a VALUE_STRING in [foo].');
    expect(err('', { foo: true }).message).toBe('Unknown key for a VALUE_BOOLEAN in [foo].');
    expect(err('', { foo: null }).message).toBe('Unknown key for a VALUE_NULL in [foo].');
    expect(err('', { foo: {} }).message).toBe('Unknown key for a START_OBJECT in [foo].');
    expect(err('', { foo: [] }).message).toBe('Unknown key for a START_ARRAY in [foo].');
    expect(err('', { query: 'x' }).message).toBe('Unknown key for a VALUE_STRING in [query].');
    expect(err('', { search_after: 1 }).message).toBe('Unknown key for a VALUE_NUMBER in [search_after].');
    expect(err('', [1]).message).toBe('Expected [START_OBJECT] but found [START_ARRAY]');
  });
  it('unsupported features are clear 400s', () => {
    expect(err('', { aggs: { a: { rare_terms: {} } } }).message).toBe('aggregation type [rare_terms] is not supported by Folio yet');
    expect(err('', { suggest: {} }).message).toBe('[suggest] is not supported by Folio yet');
  });
  it('collapse and highlight: parsed, with ES errors', () => {
    const r = parse('', {
      collapse: { field: 'k', inner_hits: [{ name: 'a', size: 2, sort: ['n'] }, { name: 'b' }], max_concurrent_group_searches: 4 },
      highlight: { fields: { body: {} } },
    });
    expect(r.collapse).toMatchObject({
      field: 'k',
      maxConcurrentGroupSearches: 4,
      innerHits: [
        { name: 'a', from: 0, size: 2 },
        { name: 'b', size: 3, sort: null },
      ],
    });
    expect(r.highlight).toEqual({ global: {}, encoder: 'default', fields: [{ name: 'body', options: {} }] });
    expect(err('scroll=1m', { collapse: { field: 'k' } }).message).toBe('Validation Failed: 1: cannot use `collapse` in a scroll context;');
    expect(err('', { collapse: { field: 'k', foo: 1 } }).message).toBe('[1:1] [collapse] unknown field [foo]');
    expect(err('', { collapse: { field: 'k', inner_hits: { size: 1 } } }).causedBy?.reason).toBe(
      'inner_hits must have a [name]; set the [name] field in the inner_hits definition',
    );
    expect(err('', { collapse: { field: 'k', max_concurrent_group_searches: 0 } }).causedBy?.reason).toBe('maxConcurrentGroupRequests` must be positive');
    expect(err('', { highlight: { fields: { b: {} }, pre_tags: ['<b>'] } }).message).toBe('pre_tags are set but post_tags are not set');
    expect(err('', { highlight: { fields: { b: { max_analyzed_offset: 0 } } } }).message).toBe('[max_analyzed_offset] must be a positive integer, or -1');
    expect(err('', { highlight: { fieldz: {} } }).message).toBe('[1:1] [highlight] unknown field [fieldz] did you mean [fields]?');
  });
  it('aggs, post_filter and typed_keys', () => {
    const r = parse('typed_keys=true', { aggs: { a: { terms: { field: 'x' } } }, post_filter: { term: { t: 'v' } } });
    expect(r.aggs).toMatchObject([{ type: 'terms', name: 'a', field: 'x', size: 10 }]);
    expect(r.postFilter).toMatchObject({ kind: 'term', field: 't', value: 'v' });
    expect(r.typedKeys).toBe(true);
    expect(parse('', { aggregations: {} }).aggs).toBeNull();
  });
  it('slice: on a scroll or a PIT only', () => {
    expect(parse('scroll=1m', { slice: { id: 1, max: 3, field: 'n' } }).slice).toEqual({ id: 1, max: 3, field: 'n' });
    expect(parse('', { pit: { id: 'x' }, slice: { max: 2, id: 0 } }).slice).toEqual({ id: 0, max: 2 });
    expect(err('', { slice: { id: 0, max: 2 } }).message).toBe('Validation Failed: 1: [slice] can only be used with [scroll] or [point-in-time] requests;');
    expect(err('scroll=1m', { slice: [] }).message).toBe('Unknown key for a START_ARRAY in [slice].');
  });
  it('track_total_hits and rest_total_hits_as_int', () => {
    expect(err('', { track_total_hits: -2 }).message).toBe('[track_total_hits] parameter must be positive or equals to -1, got -2');
    expect(err('track_total_hits=abc').message).toBe('Failed to parse int parameter [track_total_hits] with value [abc]');
    expect(err('rest_total_hits_as_int=true&track_total_hits=100').message).toBe(
      '[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got 100',
    );
  });
  it('unrecognized parameters, after value errors', () => {
    expect(err('foo=1').message).toBe('request [/idx/_search] contains unrecognized parameter: [foo]');
    expect(err('sise=1&zzz=2').message).toBe('request [/idx/_search] contains unrecognized parameters: [sise] -> did you mean [size]?, [zzz]');
    expect(err('foo=1&size=x').message).toBe('Failed to parse int parameter [size] with value [x]');
    expect(err('df=t').message).toBe("request [/idx/_search] contains parameters [df] but query string parameter 'q' was not specified");
    expect(() => parse('pretty&format=json&filter_path=a&human=true&error_trace=true&typed_keys=true&request_cache=true&preference=_local')).not.toThrow();
  });
  it('other URL values', () => {
    expect(err('timeout=5').message).toBe('failed to parse setting [timeout] with value [5] as a time value: unit is missing or unrecognized');
    expect(err('search_type=foo').message).toBe('No search type for [foo]');
    expect(err('track_scores=yes').message).toBe('Failed to parse value [yes] as only [true] or [false] are allowed.');
    expect(err('ignore_unavailable=x').message).toBe('Could not convert [ignore_unavailable] to boolean');
    expect(err('expand_wildcards=bogus').message).toBe('No valid expand wildcard value [bogus]');
    expect(err('batched_reduce_size=1').message).toBe('batchedReduceSize must be >= 2');
    expect(err('default_operator=xor&q=a').message).toBe('No enum constant org.elasticsearch.index.query.Operator.XOR');
  });
  it('validation failures', () => {
    const e = err('', { from: 2, search_after: [1], sort: ['a'] });
    expect([e.type, e.message]).toEqual([
      'action_request_validation_exception',
      'Validation Failed: 1: [from] parameter must be set to 0 when [search_after] is used;',
    ]);
    expect(err('scroll=1m&from=1&size=0').message).toBe(
      'Validation Failed: 1: using [from] is not allowed in a scroll context;2: [size] cannot be [0] in a scroll context;',
    );
    expect(err('', { search_after: [] }).message).toBe('Values must contains at least one value.');
    expect(err('', { search_after: [{}] }).message).toBe(
      'Expected [VALUE_STRING] or [VALUE_NUMBER] or [VALUE_BOOLEAN] or [VALUE_NULL] but found [START_OBJECT] inside search_after.',
    );
  });
});

describe('robustness', () => {
  it('never throws anything but a 4xx EsError for random bodies and params', () => {
    const keys = fc.constantFrom(
      'query',
      'from',
      'size',
      'sort',
      '_source',
      'track_total_hits',
      'track_scores',
      'timeout',
      'search_after',
      'aggs',
      'min_score',
      'foo',
    );
    const params = fc.constantFrom('q', 'from', 'size', 'sort', '_source', 'track_total_hits', 'timeout', 'scroll', 'rest_total_hits_as_int', 'df', 'bogus');
    fc.assert(
      fc.property(
        fc.dictionary(keys, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
        fc.array(fc.tuple(params, fc.string({ maxLength: 8 })), { maxLength: 3 }),
        (body, qs) => {
          try {
            parseSearchRequest(new URLSearchParams(qs), body, P);
          } catch (e) {
            expect(e).toBeInstanceOf(EsError);
            expect((e as EsError).status).toBeGreaterThanOrEqual(400);
            expect((e as EsError).status).toBeLessThan(500);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('fields, docvalue_fields, stored_fields', () => {
  it('reads names, patterns and {field, format, include_unmapped} objects; use_field_mapping means the mapping format', () => {
    const r = parse('', {
      fields: ['a', 'b.*', { field: 'd', format: 'yyyy/MM/dd' }, { field: 'u*', include_unmapped: true }],
      docvalue_fields: [{ field: 'n', format: 'use_field_mapping' }, 7],
    });
    expect(r.fields).toEqual([{ field: 'a' }, { field: 'b.*' }, { field: 'd', format: 'yyyy/MM/dd' }, { field: 'u*', includeUnmapped: true }]);
    expect(r.docvalueFields).toEqual([{ field: 'n' }, { field: '7' }]);
  });
  it('appends URL docvalue_fields to the body ones; a URL stored_fields replaces the body one', () => {
    const r = parse('docvalue_fields=x,y&stored_fields=s1,s2', { docvalue_fields: ['a'], stored_fields: 'b' });
    expect(r.docvalueFields).toEqual([{ field: 'a' }, { field: 'x' }, { field: 'y' }]);
    expect(r.storedFields).toEqual({ none: false, names: ['s1', 's2'] });
  });
  it('stored_fields without _source drops _source; with _source, or an explicit _source, keeps it; _none_ drops it', () => {
    expect(parse('', { stored_fields: ['x'] }).source).toBe(false);
    expect(parse('', { stored_fields: [] }).source).toBe(false);
    expect(parse('', { stored_fields: ['x', '_source'] }).source).toBe(true);
    expect(parse('', { stored_fields: ['x'], _source: ['a'] }).source).toEqual({ includes: ['a'], excludes: [] });
    expect(parse('stored_fields=_none_').source).toBe(false);
    expect(parse('', { stored_fields: '_none_', _source: false })).toMatchObject({ source: false, storedFields: { none: true, names: [] } });
  });
  it('refuses _none_ with other names, with a requested _source, and with fields (ES texts)', () => {
    expect(() => parse('', { stored_fields: ['_none_', 'a'] })).toThrow('cannot combine _none_ with other fields');
    expect(() => parse('', { stored_fields: '_none_', _source: true })).toThrow(
      'Validation Failed: 1: [stored_fields] cannot be disabled if [_source] is requested;',
    );
    expect(() => parse('', { stored_fields: '_none_', fields: ['a'] })).toThrow(
      'Validation Failed: 1: [stored_fields] cannot be disabled when using the [fields] option;',
    );
  });
  it('refuses malformed entries as ES parsers do', () => {
    expect(() => parse('', { fields: [{ field: 'a', foo: 1 }] })).toThrow('[1:1] [fetch_field_and_format] unknown field [foo]');
    expect(() => parse('', { fields: [{ format: 'x' }] })).toThrow('[1:1] Required [field]');
    expect(() => parse('', { fields: 'a' })).toThrow('Unknown key for a VALUE_STRING in [fields].');
    expect(() => parse('', { stored_fields: { a: 1 } })).toThrow('Unknown key for a START_OBJECT in [stored_fields].');
  });
});
