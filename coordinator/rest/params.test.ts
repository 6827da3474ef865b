import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import {
  checkUnrecognizedParams,
  MAX_SUGGESTION_NAME_CHARS,
  didYouMean,
  levenshteinSimilarity,
  parseBooleanParam,
  parseIntParam,
  parseTimeValue,
  similarNames,
  tokenName,
  xContentBoolean,
  xContentFloat,
  xContentInt,
} from './params.ts';
import { javaParseDouble, javaParseInt } from '../../shared/java-number.ts';

/** Runs `fn` and returns the EsError it throws (fails the test otherwise). */
describe('javaParseInt / javaParseDouble', () => {
  it('follows Integer.parseInt', () => {
    expect(javaParseInt('42')).toBe(42);
    expect(javaParseInt('+7')).toBe(7);
    expect(javaParseInt('-2147483648')).toBe(-2147483648);
    for (const bad of ['', ' 1', '1.5', 'abc', '2147483648', '0x10', '1e3']) expect(javaParseInt(bad)).toBeNull();
  });
  it('follows Double.parseDouble', () => {
    expect(javaParseDouble(' 3 ')).toBe(3);
    expect(javaParseDouble('1e2')).toBe(100);
    expect(javaParseDouble('2.5d')).toBe(2.5);
    expect(javaParseDouble('-Infinity')).toBe(-Infinity);
    expect(javaParseDouble('NaN')).toBeNaN();
    for (const bad of ['', 'abc', '1..2', '--1', 'e5']) expect(javaParseDouble(bad)).toBeNull();
  });
});

describe('URL parameters', () => {
  it('rejects a non-int with the ES text and cause', () => {
    const e = esErr(() => parseIntParam('size', 'abc'));
    expect(e.status).toBe(400);
    expect(e.type).toBe('illegal_argument_exception');
    expect(e.message).toBe('Failed to parse int parameter [size] with value [abc]');
    expect(e.causedBy).toEqual({ type: 'number_format_exception', reason: 'For input string: "abc"' });
    expect(esErr(() => parseIntParam('from', '1.5')).message).toBe('Failed to parse int parameter [from] with value [1.5]');
  });
  it('reads booleans like paramAsBoolean', () => {
    expect(parseBooleanParam('')).toBe(true);
    expect(parseBooleanParam('false')).toBe(false);
    expect(esErr(() => parseBooleanParam('yes')).message).toBe('Failed to parse value [yes] as only [true] or [false] are allowed.');
  });
});

describe('body values', () => {
  it('coerces ints like XContentParser.intValue', () => {
    expect(xContentInt('3')).toBe(3);
    expect(xContentInt(1.9)).toBe(1);
    expect(xContentInt('-2.7')).toBe(-2);
    const nf = esErr(() => xContentInt('abc'));
    expect([nf.type, nf.message]).toEqual(['number_format_exception', 'For input string: "abc"']);
    expect(esErr(() => xContentInt('3000000000')).message).toBe('Value [3000000000] is out of range for an integer');
    const big = esErr(() => xContentInt(3000000000));
    expect([big.type, big.message]).toEqual(['x_content_parse_exception', '[1:1] Numeric value (3000000000) out of range of int (-2147483648 - 2147483647)']);
    expect(esErr(() => xContentInt(true)).message).toBe('[1:1] Current token (VALUE_TRUE) not numeric, cannot use numeric value accessors');
  });
  it('reads floats and booleans', () => {
    expect(xContentFloat('1.5')).toBe(1.5);
    expect(xContentBoolean('true')).toBe(true);
    expect(esErr(() => xContentBoolean(1)).message).toBe('[1:1] Current token (VALUE_NUMBER_INT) not of boolean type');
  });
  it('names tokens', () => {
    expect([1, 'a', true, null, {}, []].map(tokenName)).toEqual(['VALUE_NUMBER', 'VALUE_STRING', 'VALUE_BOOLEAN', 'VALUE_NULL', 'START_OBJECT', 'START_ARRAY']);
  });
});

describe('parseTimeValue', () => {
  it('parses ES units to ms', () => {
    expect(parseTimeValue('500ms', 'timeout')).toBe(500);
    expect(parseTimeValue('1s', 'timeout')).toBe(1000);
    expect(parseTimeValue('2m', 'timeout')).toBe(120_000);
    expect(parseTimeValue('1H', 'timeout')).toBe(3_600_000);
    expect(parseTimeValue('1d', 'timeout')).toBe(86_400_000);
    expect(parseTimeValue('1500micros', 'timeout')).toBe(1);
    expect(parseTimeValue('-1', 'timeout')).toBe(-1);
    expect(parseTimeValue('0', 'timeout')).toBe(0);
  });
  it('rejects with the ES texts', () => {
    expect(esErr(() => parseTimeValue('5', 'timeout')).message).toBe(
      'failed to parse setting [timeout] with value [5] as a time value: unit is missing or unrecognized',
    );
    expect(esErr(() => parseTimeValue('1M', 'timeout')).message).toContain('unit is missing or unrecognized');
    expect(esErr(() => parseTimeValue('-2s', 'timeout')).message).toBe(
      'failed to parse setting [timeout] with value [-2s] as a time value: negative durations are not supported',
    );
    expect(esErr(() => parseTimeValue('1.5s', 'timeout')).message).toBe('failed to parse [1.5s], fractional time values are not supported');
    expect(esErr(() => parseTimeValue('xs', 'timeout')).message).toBe('failed to parse [xs]');
  });
});

describe('suggestions', () => {
  it('scores like Lucene LevenshteinDistance', () => {
    expect(levenshteinSimilarity('size', 'size')).toBe(1);
    expect(levenshteinSimilarity('sise', 'size')).toBe(0.75);
    expect(didYouMean('mach', ['match', 'term'])).toBe(' did you mean [match]?');
    expect(didYouMean('zzz', ['match'])).toBe('');
  });
});

describe('checkUnrecognizedParams', () => {
  it('accepts known names and rejects the rest, sorted, with ES suggestions', () => {
    expect(() => checkUnrecognizedParams('/i/_doc/1', ['routing', 'pretty'], ['routing', 'pretty'])).not.toThrow();
    const one = esErr(() => checkUnrecognizedParams('/i/_doc/1', ['routin'], ['routing', 'refresh']));
    expect([one.status, one.type, one.message]).toEqual([
      400,
      'illegal_argument_exception',
      'request [/i/_doc/1] contains unrecognized parameter: [routin] -> did you mean [routing]?',
    ]);
    const two = esErr(() => checkUnrecognizedParams('/_bulk', ['zz', 'timeot', 'zz'], ['timeout', 'time']));
    expect(two.message).toBe('request [/_bulk] contains unrecognized parameters: [timeot] -> did you mean any of [timeout, time]?, [zz]');
  });
});

/** The unbounded suggestion list, as ES computes it: every candidate's similarity. */
function referenceSimilar(unknown: string, candidates: string[], threshold: number): string[] {
  return candidates
    .map((c) => [Math.fround(levenshteinSimilarity(unknown, c)), c] as const)
    .filter(([d]) => d > threshold)
    .sort((x, y) => y[0] - x[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0))
    .map(([, c]) => c);
}

describe('bounded "did you mean"', () => {
  const names = [
    'match',
    'match_all',
    'match_phrase',
    'multi_match',
    'bool',
    'term',
    'terms',
    'range',
    'exists',
    'ids',
    'query_string',
    'size',
    'from',
    'sort',
    '_source',
    'track_total_hits',
  ];

  it('suggests exactly what the unbounded computation suggests', () => {
    for (const unknown of ['mach', 'matchall', 'trem', 'sise', 'qurey_string', 'x', '', 'multimatch', 'match_phrase_prefix', 'é', 'range😀']) {
      for (const t of [0.5, 0.7]) expect(similarNames(unknown, names, t)).toEqual(referenceSimilar(unknown, names, t));
    }
  });

  it('does not compute distances for long names, so a 200 KB name answers at once', () => {
    const huge = 'x'.repeat(200_000);
    const t0 = performance.now();
    expect(didYouMean(huge, names)).toBe('');
    expect(similarNames('a'.repeat(MAX_SUGGESTION_NAME_CHARS), ['a'.repeat(MAX_SUGGESTION_NAME_CHARS - 1)], 0.7)).toEqual([
      'a'.repeat(MAX_SUGGESTION_NAME_CHARS - 1),
    ]);
    expect(similarNames('a'.repeat(MAX_SUGGESTION_NAME_CHARS + 1), ['a'.repeat(MAX_SUGGESTION_NAME_CHARS)], 0.7)).toEqual([]);
    expect(() => checkUnrecognizedParams('/i/_search', [huge, 'sise'], ['size'])).toThrow(/\[sise\] -> did you mean \[size\]\?/);
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('bounds the candidates compared', () => {
    const many = Array.from({ length: 5000 }, (_, i) => `field_${i}`);
    const t0 = performance.now();
    expect(similarNames('field_1', many, 0.7)).toContain('field_1');
    expect(similarNames('field_4999', many, 0.7)).not.toContain('field_4999'); // past the first 1,000
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
