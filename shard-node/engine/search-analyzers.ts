/**
 * The analyzers a query's `analyzer` parameter may name (`match`, `match_bool_prefix`,
 * `match_phrase_prefix`, `multi_match`, `query_string`, `simple_query_string`): Elasticsearch's
 * built-in `standard`, `simple`, `whitespace`, `stop` and `keyword` analyzers. Folio has no custom
 * analyzers, so any other name is ES's "analyzer not found" error. Each analyzer also has its
 * `normalize` form (Lucene `Analyzer.normalize`: the token filters that apply to a whole term, which
 * prefix and wildcard terms of a query string go through).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/analysis-analyzers.html
 */
import { EsError } from '../../protocol/errors.ts';
import { analyzeTerms, MAX_TOKEN_LENGTH } from './analyzer.ts';

/** A search-time analyzer: the terms of a text, and the normalized form of one whole term. */
export interface SearchAnalyzer {
  readonly name: string;
  analyze(text: string): string[];
  normalize(term: string): string;
}

/** Lucene's English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`, ES `_english_`). */
const ENGLISH_STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);

/**
 * Java `Character.isWhitespace`: Unicode space separators except no-break spaces, and the ASCII controls 9–13, 28–31
 * (the controls 28–31, the information separators, are tested by code point in {@link isNotWhitespace}).
 */
const JAVA_WHITESPACE = /[\t\n\v\f\r\p{Zs}\u2028\u2029]/u;
const NO_BREAK = /[\u00A0\u2007\u202F]/;

/** Splits runs of code points that `keep` accepts, cut every 255 UTF-16 units (Lucene `CharTokenizer`). */
function runsOf(text: string, keep: (ch: string) => boolean): string[] {
  const out: string[] = [];
  let cur = '';
  const flush = () => {
    for (let i = 0; i < cur.length; i += MAX_TOKEN_LENGTH) out.push(cur.slice(i, i + MAX_TOKEN_LENGTH));
    cur = '';
  };
  for (const ch of text) {
    if (keep(ch)) cur += ch;
    else if (cur !== '') flush();
  }
  if (cur !== '') flush();
  return out;
}

const isLetter = (ch: string) => /\p{L}/u.test(ch);
const isInformationSeparator = (ch: string) => ch.length === 1 && ch.charCodeAt(0) >= 0x1c && ch.charCodeAt(0) <= 0x1f;
const isNotWhitespace = (ch: string) => !(JAVA_WHITESPACE.test(ch) || isInformationSeparator(ch)) || NO_BREAK.test(ch);
const lower = (t: string) => t.toLowerCase();
const same = (t: string) => t;

const ANALYZERS: Record<string, SearchAnalyzer> = {
  standard: { name: 'standard', analyze: analyzeTerms, normalize: lower },
  simple: { name: 'simple', analyze: (text) => runsOf(text, isLetter).map(lower), normalize: lower },
  whitespace: { name: 'whitespace', analyze: (text) => runsOf(text, isNotWhitespace), normalize: same },
  stop: {
    name: 'stop',
    analyze: (text) =>
      runsOf(text, isLetter)
        .map(lower)
        .filter((t) => !ENGLISH_STOP_WORDS.has(t)),
    normalize: lower,
  },
  keyword: { name: 'keyword', analyze: (text) => [text], normalize: same },
};

/** The default search analyzer of text fields (`standard`). */
export const STANDARD: SearchAnalyzer = ANALYZERS.standard;
/** The search analyzer of keyword fields without a normalizer: the value as one term, unchanged. */
export const KEYWORD: SearchAnalyzer = ANALYZERS.keyword;

/**
 * The analyzer `name` names, or the standard analyzer when `name` is undefined.
 * @param query the query name for the error (`match`, `query_string`, …).
 * @throws EsError 400 `query_shard_exception` `[query] analyzer [name] not found` (ES's text).
 * @example searchAnalyzer('whitespace', 'match').analyze('Brown FOX') // ['Brown', 'FOX']
 */
export function searchAnalyzer(name: string | undefined, query: string): SearchAnalyzer {
  if (name === undefined) return STANDARD;
  const a = Object.hasOwn(ANALYZERS, name) ? ANALYZERS[name] : undefined;
  if (!a) throw new EsError(400, 'query_shard_exception', `[${query}] analyzer [${name}] not found`);
  return a;
}
