import { describe, expect, it } from 'vitest';
import { resolveHighlightOptions, type HighlightOptions } from '../../../protocol/highlight.ts';
import type { FieldMapping } from '../../../protocol/mapping.ts';
import type { Query } from '../../../protocol/query-ast.ts';
import { esErr } from '../../../test/support/es-error.ts';
import { compileHighlight, highlightDoc } from './highlight-fetch.ts';
import { highlightClauses, type HighlightClause } from './highlight-terms.ts';
import { highlightField, passageBounds, phraseOccurrences } from './highlighter.ts';

const terms = (...t: string[]): HighlightClause => ({ kind: 'terms', terms: new Set(t), all: false });
const phrase = (t: string[], slop = 0): HighlightClause => ({ kind: 'phrase', terms: t, slop });

function hl(
  values: string[],
  clauses: HighlightClause[],
  options: HighlightOptions = {},
  extra: { keyword?: boolean; ignoreAbove?: number; encoder?: 'html'; analyzedLimit?: number } = {},
) {
  return highlightField({
    values,
    keyword: extra.keyword ?? false,
    ...(extra.ignoreAbove !== undefined ? { ignoreAbove: extra.ignoreAbove } : {}),
    clauses,
    options: resolveHighlightOptions({}, options),
    encoder: extra.encoder ?? 'default',
    ...(extra.analyzedLimit !== undefined ? { analyzedLimit: extra.analyzedLimit } : {}),
  });
}

describe('highlightField', () => {
  it('wraps every matching token of a one-sentence value', () => {
    expect(hl(['The quick brown fox is brown.'], [terms('quick', 'brown', 'fox')])).toEqual([
      'The <em>quick</em> <em>brown</em> <em>fox</em> is <em>brown</em>.',
    ]);
  });

  it('marks a phrase as one span (unified), or term by term (plain), and only where the whole phrase occurs', () => {
    const text = 'What dreams may come, when we have shuffled off this mortal coil, must give us pause. This coil is mortal.';
    const c = [phrase(['this', 'mortal', 'coil'])];
    expect(hl([text], c)).toEqual(['What dreams may come, when we have shuffled off <em>this mortal coil</em>, must give us pause.']);
    expect(hl([text], c, { type: 'plain' })).toEqual([
      'What dreams may come, when we have shuffled off <em>this</em> <em>mortal</em> <em>coil</em>, must give us pause.',
    ]);
    expect(hl([text], c, { requireFieldMatch: false })).toEqual([
      'What dreams may come, when we have shuffled off <em>this</em> <em>mortal</em> <em>coil</em>, must give us pause.',
    ]);
    expect(hl(['this coil mortal'], c)).toBeNull();
  });

  it('finds sloppy phrases in order within the slop', () => {
    const tokens = 'a x b y c'.split(' ').map((term) => ({ term }));
    expect(phraseOccurrences(tokens, ['a', 'b', 'c'], 0)).toEqual([]);
    expect(phraseOccurrences(tokens, ['a', 'b', 'c'], 1)).toEqual([]);
    expect(phraseOccurrences(tokens, ['a', 'b', 'c'], 2)).toEqual([[0, 2, 4]]);
    expect(hl(['test with slop different from zero'], [phrase(['test', 'with', 'from', 'zero'], 2)])).toEqual(['<em>test with slop different from zero</em>']);
  });

  it('highlights each value of a multi-valued field in its own fragment, phrases never across values', () => {
    expect(hl(['alpha beta', 'gamma beta'], [terms('beta')])).toEqual(['alpha <em>beta</em>', 'gamma <em>beta</em>']);
    expect(hl(['one two', 'three'], [phrase(['two', 'three'])])).toBeNull();
    expect(hl(['no match here', 'beta at last'], [terms('beta')], { numberOfFragments: 0 })).toEqual(['<em>beta</em> at last']);
  });

  it('cuts passages at sentences and near fragment_size at a token, then keeps the best in text order', () => {
    const v = 'aaa bbb ccc ddd. eee fff.';
    const tokens = [...v.matchAll(/\w+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
    expect(passageBounds(v, tokens, 10)).toEqual([
      [0, 8],
      [8, 17],
      [17, 25],
    ]);
    expect(passageBounds(v, tokens, 100)).toEqual([[0, 25]]);
    expect(hl([v], [terms('bbb', 'fff')], { fragmentSize: 10 })).toEqual(['aaa <em>bbb</em>', 'eee <em>fff</em>.']);
    expect(hl([v], [terms('ccc', 'ddd', 'fff')], { fragmentSize: 10, numberOfFragments: 1 })).toEqual(['<em>ccc</em> <em>ddd</em>.']);
    expect(hl([v], [terms('bbb', 'ccc', 'ddd')], { fragmentSize: 10, order: 'score' })).toEqual(['<em>ccc</em> <em>ddd</em>.', 'aaa <em>bbb</em>']);
  });

  it('returns whole values with number_of_fragments 0 and the start of the field with no_match_size', () => {
    const v = 'aaa bbb ccc ddd. eee fff.';
    expect(hl([v], [terms('fff')], { fragmentSize: 10, numberOfFragments: 0 })).toEqual(['aaa bbb ccc ddd. eee <em>fff</em>.']);
    expect(hl(['The quick brown fox'], [terms('zebra')], { noMatchSize: 12 })).toEqual(['The quick']);
    expect(hl(['The quick brown fox'], [terms('zebra')])).toBeNull();
    expect(hl(['short'], [], { noMatchSize: 50 })).toEqual(['short']);
  });

  it('escapes with encoder html, uses the first of custom tags, and honours and-matching', () => {
    expect(hl(["a <b> & 'c'"], [terms('c')], {}, { encoder: 'html' })).toEqual(['a &lt;b&gt; &amp; &#x27;<em>c</em>&#x27;']);
    expect(hl(['quick fox'], [terms('fox')], { preTags: ['<b>', '<i>'], postTags: ['</b>', '</i>'] })).toEqual(['quick <b>fox</b>']);
    expect(hl(['quick fox'], [{ kind: 'terms', terms: new Set(['quick', 'cat']), all: true }])).toBeNull();
    expect(hl(['quick fox cat'], [{ kind: 'terms', terms: new Set(['quick', 'cat']), all: true }])).toEqual(['<em>quick</em> fox <em>cat</em>']);
  });

  it('treats a keyword value as one token, skipping values over ignore_above', () => {
    expect(hl(['123'], [{ kind: 'prefix', prefix: '12', caseInsensitive: false }], {}, { keyword: true, ignoreAbove: 3 })).toEqual(['<em>123</em>']);
    expect(hl(['1234'], [{ kind: 'prefix', prefix: '12', caseInsensitive: false }], {}, { keyword: true, ignoreAbove: 3 })).toBeNull();
    expect(hl(['New York'], [{ kind: 'wildcard', pattern: 'new*', caseInsensitive: true }], {}, { keyword: true })).toEqual(['<em>New York</em>']);
  });

  it('analyzes only up to max_analyzed_offset', () => {
    const v = 'The quick brown fox went to the forest and saw another fox.';
    expect(hl([v], [terms('quick')], {}, { analyzedLimit: 10 })).toEqual(['The <em>quick</em> brown fox went to the forest and saw another fox.']);
    expect(hl([v], [terms('fox')], {}, { analyzedLimit: 10 })).toBeNull();
  });
});

describe('highlightClauses', () => {
  const fields = new Map<string, FieldMapping>([
    ['title', { type: 'text' }],
    ['body', { type: 'text' }],
    ['tag', { type: 'keyword' }],
  ]);
  const q: Query = {
    kind: 'bool',
    must: [{ kind: 'match', field: 'title', query: 'Quick Fox', operator: 'or', boost: 1 }],
    should: [{ kind: 'match_phrase', field: 'body', query: 'lazy dog', slop: 0, boost: 1 }],
    filter: [{ kind: 'term', field: 'tag', value: 'A b', caseInsensitive: false, boost: 1 }],
    mustNot: [{ kind: 'match', field: 'title', query: 'cat', operator: 'or', boost: 1 }],
    boost: 1,
  };
  it('takes the clauses on the field, analyzed as their field, never must_not', () => {
    expect(highlightClauses(q, { field: 'title', requireFieldMatch: true, fields })).toEqual([terms('quick', 'fox')]);
    expect(highlightClauses(q, { field: 'body', requireFieldMatch: true, fields })).toEqual([phrase(['lazy', 'dog'])]);
    expect(highlightClauses(q, { field: 'tag', requireFieldMatch: true, fields })).toEqual([terms('A b')]);
  });
  it('takes every field clause without require_field_match, and field patterns of multi_match', () => {
    expect(highlightClauses(q, { field: 'body', requireFieldMatch: false, fields })).toEqual([terms('quick', 'fox'), phrase(['lazy', 'dog']), terms('A b')]);
    const mm: Query = {
      kind: 'multi_match',
      fields: [{ field: 't*', boost: 1 }],
      query: 'Brown',
      operator: 'or',
      type: 'best_fields',
      tieBreaker: 0,
      boost: 1,
    };
    expect(highlightClauses(mm, { field: 'title', requireFieldMatch: true, fields })).toEqual([terms('brown')]);
    expect(highlightClauses(mm, { field: 'body', requireFieldMatch: true, fields })).toEqual([]);
  });
});

describe('compileHighlight and highlightDoc', () => {
  const mapping = {
    properties: {
      title: { type: 'text' as const, fields: { raw: { type: 'keyword' as const } } },
      n: { type: 'long' as const },
      body: { type: 'text' as const },
    },
  };
  const query: Query = { kind: 'match', field: '*', query: 'fox', operator: 'or', boost: 1 };
  it('expands patterns to text and keyword fields, reads multi-fields from their parent', () => {
    const h = compileHighlight(
      {
        spec: { global: {}, encoder: 'default', fields: [{ name: '*', options: {} }] },
        query: {
          kind: 'bool',
          must: [],
          should: [query, { kind: 'term', field: 'title.raw', value: 'Fox', caseInsensitive: false, boost: 1 }],
          filter: [],
          mustNot: [],
          boost: 1,
        },
      },
      mapping,
      'idx',
    );
    expect(h.fields.map((f) => f.name)).toEqual(['title', 'title.raw', 'body']);
    expect(highlightDoc(h, { title: 'Fox', n: 1, body: ['a fox', 'no'] }, 0)).toEqual({
      title: ['<em>Fox</em>'],
      'title.raw': ['<em>Fox</em>'],
      body: ['a <em>fox</em>'],
    });
    expect(highlightDoc(h, { title: 'cat' }, 0)).toBeNull();
  });
  it('refuses text over index.highlight.max_analyzed_offset unless the request truncates below it', () => {
    const spec = (options: HighlightOptions) => ({ spec: { global: {}, encoder: 'default' as const, fields: [{ name: 'body', options }] }, query });
    const long = { body: 'The quick brown fox went to the forest and saw another fox.' };
    const e = esErr(() => highlightDoc(compileHighlight(spec({}), mapping, 'idx', 10), long, 7));
    expect([e.status, e.type, e.message]).toEqual([
      400,
      'illegal_argument_exception',
      'The length [59] of field [body] in doc[7]/index[idx] exceeds the [index.highlight.max_analyzed_offset] limit [10]. To avoid this error, set the query parameter [max_analyzed_offset] to a value less than index setting [10] and this will tolerate long field values by truncating them.',
    ]);
    expect(highlightDoc(compileHighlight(spec({ maxAnalyzedOffset: 20 }), mapping, 'idx', 30), long, 7)).toEqual({
      body: ['The quick brown <em>fox</em> went to the forest and saw another fox.'],
    });
    expect(esErr(() => compileHighlight(spec({ type: 'fvh' }), mapping, 'idx')).message).toBe(
      'the field [body] should be indexed with term vector with position offsets to be used with fast vector highlighter',
    );
    const withOffsets = {
      properties: { body: { type: 'text' as const, index_options: 'offsets', term_vector: 'with_positions_offsets' } },
    } as unknown as typeof mapping;
    expect(highlightDoc(compileHighlight(spec({}), withOffsets, 'idx', 10), long, 7)).toEqual({
      body: ['The quick brown <em>fox</em> went to the forest and saw another <em>fox</em>.'],
    });
    expect(highlightDoc(compileHighlight(spec({ type: 'fvh' }), withOffsets, 'idx', 10), long, 7)).toEqual({
      body: ['The quick brown <em>fox</em> went to the forest and saw another <em>fox</em>.'],
    });
    expect(esErr(() => highlightDoc(compileHighlight(spec({ type: 'plain' }), withOffsets, 'idx', 10), long, 7)).type).toBe('illegal_argument_exception');
    expect(esErr(() => compileHighlight(spec({ type: 'magic' }), mapping, 'idx')).message).toBe('unknown highlighter type [magic] for the field [body]');
  });
});
