/**
 * Compiles ES's full-text queries into plans (query-plan.ts): `match` (analyzed into term queries
 * on text fields, the exact-value query elsewhere, fuzzy with `fuzziness`), `match_phrase`,
 * `match_bool_prefix`, `match_phrase_prefix`, `multi_match` `cross_fields` with Lucene's blended
 * term statistics, and a `query_string` leaf over several fields (`multi_field`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/full-text-queries.html
 */
import { EsError } from '../../protocol/errors.ts';
import type { FuzzyOptions } from '../../protocol/fuzziness.ts';
import { resolveMinimumShouldMatch, type Query } from '../../protocol/query-ast.ts';
import { analyzeTerms } from './analyzer.ts';
import { CONSTANT, phrasePrefixPlan, prefixPlan, ScanBudgetExceeded } from './multi-term.ts';
import { NONE, unscored, type CompileContext, type Plan } from './query-plan.ts';
import { searchAnalyzer } from './search-analyzers.ts';
import { avgFieldLength, Bm25Scorer, idf, idfSum } from './similarity.ts';
import { fuzzy } from './multi-term-compile.ts';
import { checkSearchable, exact, failedToCreate } from './term-level-compile.ts';

/** The text options of `match`-family queries: a named analyzer and fuzziness. */
export interface TextOptions {
  analyzer?: string;
  fuzzy?: FuzzyOptions;
  /** The query name ES puts in the analyzer error (`[match] analyzer [x] not found`). */
  query?: string;
}

/**
 * ES `match`: text fields analyze the query into a bool of term queries (SHOULD with
 * minimum_should_match, or MUST for `operator: and`); keyword/boolean fields run one term query on
 * the whole value, numeric/date fields an exact (constant-score) query; `*` is a dis_max over all
 * fields with lenient parsing, as `index.query.default_field: *`.
 */
export function match(
  c: CompileContext,
  field: string,
  text: string,
  op: 'and' | 'or',
  msmSpec: string | number | undefined,
  boost: number,
  lenient: boolean,
  opts: TextOptions = {},
): Plan {
  if (field === '*') {
    const parts = [...c.fields.keys()].map((name) => match(c, name, text, op, msmSpec, boost, true, opts)).filter((p) => p.t !== 'none');
    if (parts.length === 0) return NONE;
    return parts.length === 1 ? parts[0] : { t: 'dismax', queries: parts, tie: 0 };
  }
  const analyzer = opts.analyzer === undefined ? undefined : searchAnalyzer(opts.analyzer, opts.query ?? 'match');
  const fm = c.field(field);
  if (!fm) return NONE;
  if (lenient && fm.index === false) return NONE;
  checkSearchable(field, fm);
  if (opts.fuzzy && fm.type === 'keyword') return fuzzy(c, field, text, opts.fuzzy, boost);
  if (opts.fuzzy && fm.type !== 'text') {
    if (lenient) return NONE;
    throw failedToCreate(`Can only use fuzzy queries on keyword and text fields - not on [${field}] which is of type [${fm.type}]`);
  }
  if (fm.type === 'text' || fm.type === 'match_only_text') {
    const terms = analyzer ? analyzer.analyze(text) : analyzeTerms(text);
    if (terms.length === 0) return NONE;
    const fuzziness = opts.fuzzy;
    // match_only_text: each term scores its boost (ES wraps its term queries in constant_score).
    const plans = terms.map((t) => unscored(fm, fuzziness ? fuzzy(c, field, t, fuzziness, boost) : c.termPlan(field, t, boost), boost));
    if (plans.length === 1) return plans[0];
    if (op === 'and') return { t: 'bool', must: plans, should: [], filter: [], mustNot: [], msm: 0 };
    const msm = Math.max(1, resolveMinimumShouldMatch(msmSpec, plans.length, 1));
    return { t: 'bool', must: [], should: plans, filter: [], mustNot: [], msm };
  }
  return exact(c, field, fm, text, boost, lenient);
}

/**
 * ES `match_bool_prefix` on one field (`MatchQueryParser` type `BOOLEAN_PREFIX`): the analyzed terms
 * as SHOULD (or MUST with `operator: and`) clauses with `minimum_should_match`, every term but the
 * last a term query (fuzzy with `fuzziness`), the last a constant-score prefix query. A keyword
 * field without an `analyzer` is one prefix query on the whole value; numeric, date and boolean
 * fields run their exact `match`.
 * @throws EsError 400 `query_shard_exception` `[match_bool_prefix] analyzer [x] not found`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-match-bool-prefix-query.html
 */
export function boolPrefix(
  c: CompileContext,
  field: string,
  text: string,
  op: 'and' | 'or',
  msmSpec: string | number | undefined,
  boost: number,
  opts: TextOptions = {},
): Plan {
  const analyzer = opts.analyzer === undefined ? undefined : searchAnalyzer(opts.analyzer, opts.query ?? 'match_bool_prefix');
  const fm = c.fields.get(field);
  if (!fm || fm.index === false) return NONE;
  if (fm.type === 'keyword' && !analyzer) return prefixPlan(c.multiTerm, field, text, CONSTANT, boost);
  if (fm.type !== 'text' && fm.type !== 'keyword') return match(c, field, text, op, msmSpec, boost, false);
  const terms = analyzer ? analyzer.analyze(text) : analyzeTerms(text);
  if (terms.length === 0) return NONE;
  const last = terms[terms.length - 1];
  const fuzziness = opts.fuzzy;
  const plans = terms.slice(0, -1).map((t) => (fuzziness ? fuzzy(c, field, t, fuzziness, boost) : c.termPlan(field, t, boost)));
  plans.push(prefixPlan(c.multiTerm, field, last, CONSTANT, boost));
  if (plans.length === 1) return plans[0];
  if (op === 'and') return { t: 'bool', must: plans, should: [], filter: [], mustNot: [], msm: 0 };
  const msm = Math.max(1, resolveMinimumShouldMatch(msmSpec, plans.length, 1));
  return { t: 'bool', must: [], should: plans, filter: [], mustNot: [], msm };
}

/**
 * ES `match_phrase_prefix` (`MatchQueryParser` type `PHRASE_PREFIX`): on a text field the analyzed
 * phrase with its last term expanded (multi-term.ts `phrasePrefixPlan`); on a keyword field the
 * whole value is that last term; other fields run their exact `match`.
 * @throws EsError 400 `query_shard_exception` `[match_phrase_prefix] analyzer [x] not found`.
 */
export function phrasePrefix(c: CompileContext, q: Extract<Query, { kind: 'match_phrase_prefix' }>, boost: number): Plan {
  const analyzer = q.analyzer === undefined ? undefined : searchAnalyzer(q.analyzer, 'match_phrase_prefix');
  const fm = c.fields.get(q.field);
  if (!fm || fm.index === false) return NONE;
  if (fm.type !== 'text' && fm.type !== 'keyword') return exact(c, q.field, fm, q.query, boost, false);
  const terms = fm.type === 'keyword' && !analyzer ? [q.query] : analyzer ? analyzer.analyze(q.query) : analyzeTerms(q.query);
  if (terms.length === 0) return NONE;
  return phrasePrefixPlan(c.multiTerm, q.field, terms, q.slop, q.maxExpansions, boost);
}

/** ES `match_phrase`: exact or sloppy phrase over positions, scored with the summed idf. */
export function phrase(c: CompileContext, field: string, text: string, slop: number, boost: number, lenient: boolean): Plan {
  if (field === '*') {
    const parts = [...c.fields.keys()].map((n) => phrase(c, n, text, slop, boost, true)).filter((p) => p.t !== 'none');
    if (parts.length === 0) return NONE;
    return parts.length === 1 ? parts[0] : { t: 'dismax', queries: parts, tie: 0 };
  }
  const fm = c.field(field);
  if (!fm) return NONE;
  if (lenient && fm.index === false) return NONE;
  checkSearchable(field, fm);
  if (fm.type !== 'text' && fm.type !== 'match_only_text') return exact(c, field, fm, text, boost, lenient);
  const terms = analyzeTerms(text);
  if (terms.length === 0) return NONE;
  if (terms.length === 1) return unscored(fm, c.termPlan(field, terms[0], boost), boost);
  const fs = c.stats.field(field);
  const idfs = idfSum(
    terms.map((t) => c.stats.term(field, t)),
    fs.docCount,
  );
  const plan: Plan = { t: 'phrase', field, terms, slop, scorer: new Bm25Scorer(boost, idfs, avgFieldLength(fs.sumTotalTermFreq, fs.docCount)) };
  return unscored(fm, plan, boost);
}

/**
 * A leaf query on every field of a `query_string`'s field list (`QueryStringQueryParser`'s
 * multi-field queries): one copy per resolved field, boosted by its weight, dis_max'ed with
 * `tieBreaker`. With `lenient`, a field the query cannot run on is left out instead of failing.
 * @throws EsError 400 `too_many_nested_clauses` past 4,096 field copies in the query (ES counts
 *   the leaves of the rewritten query against `indices.query.bool.max_clause_count`).
 */
export function multiField(c: CompileContext, q: Extract<Query, { kind: 'multi_field' }>, boost: number): Plan {
  const parts: Plan[] = [];
  for (const { field, boost: fb } of q.fields) {
    for (const name of field === '*' ? [...c.fields.keys()] : c.expand(field)) {
      c.countFieldCopy();
      const copy = { ...q.query, field: name } as Query;
      try {
        parts.push(c.compile(copy, boost * fb));
      } catch (e) {
        if (!(q.lenient && e instanceof EsError && e.status === 400) || e instanceof ScanBudgetExceeded) throw e;
      }
    }
  }
  const live = parts.filter((p) => p.t !== 'none');
  if (live.length === 0) return NONE;
  return live.length === 1 ? live[0] : { t: 'dismax', queries: live, tie: q.tieBreaker };
}

/**
 * ES `multi_match`: `best_fields` (default) is a dis_max with `tie_breaker` over one `match` per
 * resolved field, `most_fields` and `bool_prefix` a bool of SHOULD clauses, `phrase` a
 * `match_phrase` per field, `cross_fields` term-centric ({@link crossFields}); each field's `^boost`
 * multiplies the query's.
 * @throws EsError 400 `query_shard_exception` `[multi_match] analyzer [x] not found`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-multi-match-query.html
 */
export function multiMatch(c: CompileContext, q: Extract<Query, { kind: 'multi_match' }>, b: number): Plan {
  if (q.type === 'cross_fields') return crossFields(c, q, b);
  const opts: TextOptions = { analyzer: q.analyzer, fuzzy: q.fuzzy, query: 'multi_match' };
  if (q.analyzer !== undefined) searchAnalyzer(q.analyzer, 'multi_match');
  const parts: Plan[] = [];
  for (const { field, boost: fb } of q.fields) {
    for (const name of c.expand(field)) {
      parts.push(
        q.type === 'phrase'
          ? phrase(c, name, q.query, 0, b * fb, false)
          : q.type === 'bool_prefix'
            ? boolPrefix(c, name, q.query, q.operator, q.minimumShouldMatch, b * fb, opts)
            : match(c, name, q.query, q.operator, q.minimumShouldMatch, b * fb, false, opts),
      );
    }
  }
  const live = parts.filter((p) => p.t !== 'none');
  if (live.length === 0) return NONE;
  if (q.type === 'most_fields' || q.type === 'bool_prefix') return { t: 'bool', must: [], should: live, filter: [], mustNot: [], msm: 1 };
  return live.length === 1 ? live[0] : { t: 'dismax', queries: live, tie: q.tieBreaker };
}

/**
 * ES `multi_match` `cross_fields` (`MultiMatchQueryParser.CrossFieldsQueryBuilder`): term-centric.
 * The text fields form one group: each analyzed term becomes one blended term over them
 * (Lucene/ES `BlendedTermQuery.dismaxBlendedQuery`: per field a term query whose document
 * frequency is blended, dis_max'ed with `tie_breaker`), and the terms combine with `operator` and
 * `minimum_should_match` as one `match` would. Every other field is its own group (its exact
 * `match`); the groups combine by dis_max with `tie_breaker`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-multi-match-query.html#type-cross-fields
 */
function crossFields(c: CompileContext, q: Extract<Query, { kind: 'multi_match' }>, boost: number): Plan {
  const text: { field: string; boost: number }[] = [];
  const groups: Plan[] = [];
  for (const { field, boost: fb } of q.fields) {
    for (const name of c.expand(field)) {
      const fm = c.fields.get(name);
      if (!fm || fm.index === false) continue;
      if (fm.type === 'text') text.push({ field: name, boost: boost * fb });
      else groups.push(match(c, name, q.query, q.operator, q.minimumShouldMatch, boost * fb, true));
    }
  }
  if (text.length > 0) {
    const terms = analyzeTerms(q.query);
    const plans = terms.map((t) => blendedTerm(c, t, text, q.tieBreaker));
    if (plans.length === 1) groups.push(plans[0]);
    else if (plans.length > 1) {
      if (q.operator === 'and') groups.push({ t: 'bool', must: plans, should: [], filter: [], mustNot: [], msm: 0 });
      else
        groups.push({
          t: 'bool',
          must: [],
          should: plans,
          filter: [],
          mustNot: [],
          msm: Math.max(1, resolveMinimumShouldMatch(q.minimumShouldMatch, plans.length, 1)),
        });
    }
  }
  const live = groups.filter((p) => p.t !== 'none');
  if (live.length === 0) return NONE;
  return live.length === 1 ? live[0] : { t: 'dismax', queries: live, tie: q.tieBreaker };
}

/**
 * One term over several text fields with blended statistics (Lucene `BlendedTermQuery.blend`): every
 * field scores the term as if its document frequency were the largest among the fields, plus one
 * for each step down to a rarer field (a bias towards the more frequent fields), never above the
 * field's own document count (so no idf is negative). Dis_max over the fields with `tie`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/apache/lucene/queries/BlendedTermQuery.java
 */
function blendedTerm(c: CompileContext, term: string, fields: readonly { field: string; boost: number }[], tie: number): Plan {
  const dfs = fields.map(({ field }) => c.stats.term(field, term).docFreq);
  const fieldStats = fields.map(({ field }) => c.stats.field(field));
  const max = Math.max(...dfs);
  const adjusted = dfs.slice();
  if (max > 0 && fields.length > 1) {
    const minSumTtf = Math.min(...fieldStats.map((fs) => fs.sumTotalTermFreq));
    const order = dfs.map((_, i) => i).sort((a, b) => dfs[b] - dfs[a]);
    let prev = dfs[order[0]];
    let actual = Math.min(minSumTtf, max);
    for (const i of order) {
      if (dfs[i] === 0) break;
      if (prev > dfs[i]) actual++;
      adjusted[i] = Math.min(minSumTtf, actual);
      prev = dfs[i];
    }
  }
  const plans: Plan[] = fields.map(({ field, boost }, i) => {
    const fs = fieldStats[i];
    const df = Math.min(adjusted[i], fs.docCount);
    return { t: 'term', field, term, scorer: new Bm25Scorer(boost, idf(df, fs.docCount), avgFieldLength(fs.sumTotalTermFreq, fs.docCount)) };
  });
  return plans.length === 1 ? plans[0] : { t: 'dismax', queries: plans, tie };
}
