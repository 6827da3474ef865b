/**
 * Multi-term queries: `prefix`, `wildcard` and `fuzzy` expand to the dictionary terms they accept,
 * then a rewrite method (rewrite-method.ts) turns the terms into a plan, as Lucene's
 * `MultiTermQuery.rewrite` does over a shard's whole term dictionary. A constant-score rewrite
 * scans each segment's dictionary as the segment is searched and allocates no term list; scoring
 * rewrites select their terms once per shard (the best `size` by boost, then term order, as
 * `TopTermsRewrite` keeps them) and score each with its statistics, which come from the dfs round
 * when the search has one. `match_phrase_prefix` expands its last term the same way (ES
 * `MultiPhrasePrefixQuery`: the first `max_expansions` terms in term order).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/TopTermsRewrite.java
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/FuzzyTermsEnum.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/lucene/search/MultiPhrasePrefixQuery.java
 */
import { EsError } from '../../protocol/errors.ts';
import { maxEdits, type FuzzyOptions } from '../../protocol/fuzziness.ts';
import { compareCodePoints } from '../../protocol/sort.ts';
import { boundedEditDistance, codePoints, fillCodePoints } from './edit-distance.ts';
import * as M from './matchers.ts';
import type { Plan, StatsSource } from './query-plan.ts';
import { parseRewriteMethod, termLimit, type RewriteMethod } from './rewrite-method.ts';
import type { Segment } from './segment.ts';
import { avgFieldLength, Bm25Scorer, idf, idfSum } from './similarity.ts';

/** The terms of a field over a shard's segments (a term held by two segments is seen twice). */
export interface TermDictionary {
  forEachTerm(field: string, fn: (term: string) => void): void;
  /** The terms starting with `prefix`, found by binary search in each segment's sorted terms. */
  forEachWithPrefix(field: string, prefix: string, fn: (term: string) => void): void;
  /** How many terms {@link TermDictionary.forEachTerm} visits for `field`. */
  size(field: string): number;
}

/**
 * The most dictionary terms the scanning multi-term queries of one search (fuzzy, wildcard, a
 * case-insensitive prefix) may read on one shard, summed over their fields. Lucene intersects an
 * automaton with its term dictionary; Folio reads each term, at 50–600 ns a term, so a query string
 * of a thousand fuzzy terms over every field took minutes of one shard node's event loop. Past this
 * bound the query is refused (docs/compatibility.md).
 */
export const MAX_SCANNED_TERMS = 2_000_000;

/**
 * Counts the dictionary terms a query's scanning leaves will read.
 * @throws EsError 400 `query_shard_exception` past {@link MAX_SCANNED_TERMS}.
 */
export class ScanBudget {
  private scanned = 0;

  /** Charges a scan of `field`'s dictionary. */
  charge(dict: TermDictionary, field: string): void {
    this.scanned += dict.size(field);
    if (this.scanned > MAX_SCANNED_TERMS) throw new ScanBudgetExceeded(this.scanned);
  }
}

/** The refusal of a query past {@link MAX_SCANNED_TERMS}: never dropped by a lenient multi-field query. */
export class ScanBudgetExceeded extends EsError {
  constructor(scanned: number) {
    const reason =
      `the fuzzy, wildcard and case-insensitive prefix terms of this query would read [${scanned}] dictionary terms ` +
      `on this shard, more than Folio's limit of [${MAX_SCANNED_TERMS}]`;
    super(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type: 'illegal_argument_exception', reason } });
  }
}

/** What the multi-term builders read: statistics (local or dfs) and the shard's dictionary. */
export interface MultiTermContext {
  stats: StatsSource;
  dictionary: TermDictionary;
}

/** A term a multi-term query accepts, and its boost (1, or a fuzzy term's similarity). */
export interface Expansion {
  term: string;
  boost: number;
}

/** Accepts a term with its boost, or null. */
export type TermAcceptor = (term: string) => number | null;

const NONE: Plan = { t: 'none' };
const EMPTY = new Int32Array(0);
const f = Math.fround;
const byBoostThenTerm = (a: Expansion, b: Expansion) => b.boost - a.boost || compareCodePoints(a.term, b.term);

/** Lucene's default rewrite of prefix, wildcard and regexp queries (constant score). */
export const CONSTANT: RewriteMethod = { kind: 'constant' };

/** Docs having a term of `field` that starts with `prefix` (a seek in the sorted term dictionary, then a scan). */
function prefixDocs(seg: Segment, field: string, prefix: string): Int32Array {
  const inv = seg.inverted.get(field);
  if (!inv) return EMPTY;
  const lists: Int32Array[] = [];
  const [from, to] = inv.terms.dictionary.prefixRange(prefix);
  for (let ord = from; ord < to; ord++) lists.push(inv.terms.docsAt(ord));
  return M.unionDocs(seg, lists);
}

/**
 * ES `prefix` (case-sensitive) on one field: the terms starting with `prefix`, found by binary search
 * in each segment's sorted terms (no dictionary scan), scored as `method` says.
 */
export function prefixPlan(ctx: MultiTermContext, field: string, prefix: string, method: RewriteMethod, boost: number): Plan {
  if (method.kind === 'constant') return { t: 'const', score: f(boost), match: (seg) => prefixDocs(seg, field, prefix) };
  const prefixed: TermDictionary = {
    forEachTerm: (fld, fn) => ctx.dictionary.forEachWithPrefix(fld, prefix, fn),
    forEachWithPrefix: (fld, p, fn) => ctx.dictionary.forEachWithPrefix(fld, p, fn),
    size: (fld) => ctx.dictionary.size(fld),
  };
  return rewritePlan({ ...ctx, dictionary: prefixed }, field, () => 1, method, boost);
}

/** The docs of one term in a segment. */
function termDocs(seg: Segment, field: string, term: string): Int32Array {
  return seg.inverted.get(field)?.terms.docs(term) ?? EMPTY;
}

/**
 * The distinct terms of `field` that `accept` takes, the best `limit` of them by boost then term
 * order (Lucene `TopTermsRewrite`'s queue); all of them, in that order, without a limit.
 */
export function expandTerms(dict: TermDictionary, field: string, accept: TermAcceptor, limit: number): Expansion[] {
  const seen = new Set<string>();
  let out: Expansion[] = [];
  const keep = Number.isFinite(limit) ? limit : Number.POSITIVE_INFINITY;
  dict.forEachTerm(field, (term) => {
    const boost = accept(term);
    if (boost === null || seen.has(term)) return; // only accepted terms are hashed
    seen.add(term);
    out.push({ term, boost });
    if (out.length > 2 * keep + 64) out = out.sort(byBoostThenTerm).slice(0, keep); // bounded memory for a small limit
  });
  out.sort(byBoostThenTerm);
  return out.length > keep ? out.slice(0, keep) : out;
}

/**
 * The plan of a multi-term query: the terms `accept` takes, scored as `method` says, times `boost`.
 * @throws EsError 400 `too_many_clauses` when a `scoring_boolean` rewrite reaches more terms than
 *   the clause limit (Lucene's `TooManyClauses`).
 */
export function rewritePlan(ctx: MultiTermContext, field: string, accept: TermAcceptor, method: RewriteMethod, boost: number): Plan {
  if (method.kind === 'constant') {
    return { t: 'const', score: f(boost), match: (seg) => M.termScanMatch(seg, field, (t) => accept(t) !== null) };
  }
  const limit = termLimit(method);
  const terms = expandTerms(ctx.dictionary, field, accept, method.kind === 'scoring' && !Number.isFinite(method.size) ? limit + 1 : limit);
  if (terms.length > limit) throw new EsError(400, 'too_many_clauses', `maxClauseCount is set to ${limit}`);
  if (terms.length === 0) return NONE;
  let plans: Plan[];
  if (method.kind === 'boost') {
    plans = terms.map((e) => ({ t: 'const', score: f(boost * e.boost), match: (seg: Segment) => termDocs(seg, field, e.term) }));
  } else {
    const fs = ctx.stats.field(field);
    const avgdl = avgFieldLength(fs.sumTotalTermFreq, fs.docCount);
    const dfs = terms.map((e) => ctx.stats.term(field, e.term).docFreq);
    // TopTermsBlendedFreqScoringRewrite.adjustScoreTerms: every term gets the largest document frequency.
    const blended = method.kind === 'blended' && terms.length > 1 ? Math.max(...dfs) : -1;
    plans = terms.map((e, i) => ({
      t: 'term',
      field,
      term: e.term,
      scorer: new Bm25Scorer(f(boost * e.boost), idf(blended >= 0 ? blended : dfs[i], fs.docCount), avgdl),
    }));
  }
  return plans.length === 1 ? plans[0] : { t: 'bool', must: [], should: plans, filter: [], mustNot: [], msm: 1 };
}

/** Accepts the terms starting with `prefix` (ES `case_insensitive`: in either case, Unicode lower-casing both). */
export function prefixAcceptor(prefix: string, caseInsensitive: boolean): TermAcceptor {
  if (!caseInsensitive) return (t) => (t.startsWith(prefix) ? 1 : null);
  const p = prefix.toLowerCase();
  return (t) => (t.toLowerCase().startsWith(p) ? 1 : null);
}

/** `failed to create query: …` around a Lucene `IllegalArgumentException` of the query build. */
function failed(reason: string): EsError {
  return new EsError(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type: 'illegal_argument_exception', reason } });
}

/**
 * Lucene `FuzzyQuery`'s term test: a term within `maxEdits` of `value` (fuzziness resolved on the
 * value's length), sharing its first `prefixLength` code points; boost 1 for the value itself, else
 * `1 - edits / min(term length, value length)` in code points (`FuzzyTermsEnum`).
 * @throws EsError 400 `failed to create query: maxExpansions must be positive.` / `prefixLength cannot be negative.`
 */
export function fuzzyAcceptor(value: string, opts: FuzzyOptions): TermAcceptor {
  if (opts.prefixLength < 0) throw failed('prefixLength cannot be negative.');
  if (opts.maxExpansions <= 0) throw failed('maxExpansions must be positive.');
  const k = maxEdits(opts.fuzziness, value);
  if (fuzzyIsExact(value, opts)) return (t) => (t === value ? 1 : null);
  const q = codePoints(value);
  const p = Math.min(opts.prefixLength, q.length);
  const prefix = String.fromCodePoint(...q.subarray(0, p));
  const transpositions = opts.transpositions;
  let scratch = new Int32Array(64);
  return (t) => {
    // A code point is one or two UTF-16 units: a term whose length rules out |Δ| ≤ k is skipped unread.
    if (t.length < q.length - k || (t.length + 1) >> 1 > q.length + k) return null;
    if (p > 0 && !t.startsWith(prefix)) return null;
    if (scratch.length < t.length) scratch = new Int32Array(t.length * 2);
    const n = fillCodePoints(t, scratch);
    if (n - q.length > k || q.length - n > k) return null;
    const ed = boundedEditDistance(scratch, p, q, p, k, transpositions, n);
    if (ed > k) return null;
    return ed === 0 ? 1 : f(1 - ed / Math.min(n, q.length));
  };
}

/** Lucene `FuzzyQuery.getTermsEnum`'s exact case: no edits allowed, or a prefix as long as the value. */
export function fuzzyIsExact(value: string, opts: FuzzyOptions): boolean {
  return maxEdits(opts.fuzziness, value) === 0 || opts.prefixLength >= value.length;
}

/**
 * ES `fuzzy` on one keyword or text field: Lucene `FuzzyQuery` with the rewrite given (default
 * `top_terms_blended_freqs_{max_expansions}`). The exact case looks the value up, without a scan.
 */
export function fuzzyPlan(ctx: MultiTermContext, field: string, value: string, opts: FuzzyOptions, boost: number): Plan {
  const accept = fuzzyAcceptor(value, opts);
  const method = parseRewriteMethod(opts.rewrite, { kind: 'blended', size: opts.maxExpansions });
  if (!fuzzyIsExact(value, opts)) return rewritePlan(ctx, field, accept, method, boost);
  const exact: TermDictionary = {
    forEachTerm: (fld, fn) => ctx.dictionary.forEachWithPrefix(fld, value, (t) => t === value && fn(t)),
    forEachWithPrefix: (fld, p, fn) => ctx.dictionary.forEachWithPrefix(fld, p, fn),
    size: () => 1,
  };
  if (method.kind === 'constant') return { t: 'const', score: f(boost), match: (seg) => termDocs(seg, field, value) };
  return rewritePlan({ ...ctx, dictionary: exact }, field, accept, method, boost);
}

/**
 * ES `match_phrase_prefix` on a text field, given its analyzed terms: the phrase of the terms whose
 * last one is any of the first `maxExpansions` dictionary terms it prefixes (in term order). Each
 * expansion is one phrase (one term when the query has a single term); they share one scorer whose
 * idf sums every term's, as Lucene's `MultiPhraseQuery` does, and combine by dis_max.
 */
export function phrasePrefixPlan(ctx: MultiTermContext, field: string, terms: readonly string[], slop: number, maxExpansions: number, boost: number): Plan {
  const last = terms[terms.length - 1];
  const lead = terms.slice(0, -1);
  const found: string[] = [];
  const seen = new Set<string>();
  ctx.dictionary.forEachWithPrefix(field, last, (t) => {
    if (!seen.has(t)) {
      seen.add(t);
      found.push(t);
    }
  });
  if (found.length === 0) return NONE;
  const expansions = found.sort(compareCodePoints).slice(0, Math.max(1, maxExpansions));
  const fs = ctx.stats.field(field);
  const idfs = idfSum(
    [...lead, ...expansions].map((t) => ctx.stats.term(field, t)),
    fs.docCount,
  );
  const scorer = new Bm25Scorer(boost, idfs, avgFieldLength(fs.sumTotalTermFreq, fs.docCount));
  const plans: Plan[] = expansions.map((t) =>
    lead.length === 0 ? { t: 'term', field, term: t, scorer } : { t: 'phrase', field, terms: [...lead, t], slop, scorer },
  );
  return plans.length === 1 ? plans[0] : { t: 'dismax', queries: plans, tie: 0 };
}
