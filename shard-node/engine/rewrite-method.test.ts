import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseRewriteMethod, termLimit } from './rewrite-method.ts';

describe('parseRewriteMethod (ES QueryParsers.parseRewriteMethod)', () => {
  const dflt = { kind: 'constant' } as const;
  it('reads every rewrite name', () => {
    expect(parseRewriteMethod(undefined, dflt)).toBe(dflt);
    expect(parseRewriteMethod('constant_score', { kind: 'scoring', size: 1 })).toEqual({ kind: 'constant' });
    expect(parseRewriteMethod('constant_score_boolean', dflt)).toEqual({ kind: 'constant' });
    expect(parseRewriteMethod('scoring_boolean', dflt)).toEqual({ kind: 'scoring', size: Number.POSITIVE_INFINITY });
    expect(parseRewriteMethod('top_terms_5', dflt)).toEqual({ kind: 'scoring', size: 5 });
    expect(parseRewriteMethod('top_terms_boost_7', dflt)).toEqual({ kind: 'boost', size: 7 });
    expect(parseRewriteMethod('top_terms_blended_freqs_9', dflt)).toEqual({ kind: 'blended', size: 9 });
  });
  it("fails the query build with ES's text", () => {
    const e = esErr(() => parseRewriteMethod('nope', dflt));
    expect([e.status, e.type, e.message, e.causedBy]).toEqual([
      400,
      'query_shard_exception',
      'failed to create query: Failed to parse rewrite_method [nope]',
      { type: 'illegal_argument_exception', reason: 'Failed to parse rewrite_method [nope]' },
    ]);
    expect(esErr(() => parseRewriteMethod('top_terms_1x', dflt)).causedBy).toEqual({ type: 'number_format_exception', reason: 'For input string: "1x"' });
  });
  it('caps scoring rewrites at the clause limit', () => {
    expect(termLimit({ kind: 'scoring', size: Number.POSITIVE_INFINITY })).toBe(4096);
    expect(termLimit({ kind: 'blended', size: 50 })).toBe(50);
  });
});
