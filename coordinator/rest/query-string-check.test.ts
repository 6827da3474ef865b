import { describe, expect, it } from 'vitest';
import { queryStringError, rawQueryString } from './query-string-check.ts';

describe('queryStringError (ES RestUtils.decodeComponent)', () => {
  it('accepts well-formed escapes, %% and strings without %', () => {
    expect(queryStringError('')).toBeNull();
    expect(queryStringError('filter_path=hits.total&pretty')).toBeNull();
    expect(queryStringError('q=caf%C3%A9&size=1')).toBeNull();
    expect(queryStringError('q=100%%')).toBeNull();
    expect(queryStringError('q=%ff%fe')).toBeNull(); // not UTF-8: decodes to U+FFFD, no error
  });

  it('refuses a lone % with ES bad_parameter_exception and its cause', () => {
    const err = queryStringError('filter_path=%');
    expect(err?.toBody()).toEqual({
      error: {
        root_cause: [{ type: 'bad_parameter_exception', reason: 'java.lang.IllegalArgumentException: unterminated escape sequence at end of string: %' }],
        type: 'bad_parameter_exception',
        reason: 'java.lang.IllegalArgumentException: unterminated escape sequence at end of string: %',
        caused_by: { type: 'illegal_argument_exception', reason: 'unterminated escape sequence at end of string: %' },
      },
      status: 400,
    });
  });

  it('names a partial and an invalid escape as ES does, in names and values', () => {
    expect(queryStringError('a=1&b=%4')?.causedBy?.reason).toBe('partial escape sequence at end of string: %4');
    expect(queryStringError('q=ab%zz1')?.causedBy?.reason).toBe("invalid escape sequence `%zz' at index 2 of: ab%zz1");
    expect(queryStringError('na%me=1')?.causedBy?.reason).toBe("invalid escape sequence `%me' at index 2 of: na%me");
    expect(queryStringError('a=1;b=%')?.causedBy?.reason).toBe('unterminated escape sequence at end of string: %');
  });

  it('is linear in the query length', () => {
    const long = 'q=' + '%41'.repeat(300_000) + '&x=%';
    const t0 = performance.now();
    expect(queryStringError(long)?.causedBy?.reason).toBe('unterminated escape sequence at end of string: %');
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe('rawQueryString', () => {
  it('takes what follows ? up to #', () => {
    expect(rawQueryString('http://h/x?a=1&b=%#frag')).toBe('a=1&b=%');
    expect(rawQueryString('http://h/x')).toBe('');
  });
});
