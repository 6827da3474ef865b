/**
 * Compiles ES's multi-term queries into plans (query-plan.ts): `prefix`, `wildcard`, `fuzzy` and
 * `regexp` (Lucene's `MultiTermQuery` family), each expanded against the shard's term dictionary
 * (multi-term.ts) with its scan charged to the query's budget, a query-string term normalized by
 * the field's analyzer, and ES's errors for fields they cannot run on and for automata Lucene refuses.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/term-level-queries.html
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/search/MultiTermQuery.html
 */
import { EsError } from '../../protocol/errors.ts';
import type { FieldMapping } from '../../protocol/mapping.ts';
import type { FuzzyOptions } from '../../protocol/fuzziness.ts';
import type { Query, QueryStringNormalize } from '../../protocol/query-ast.ts';
import * as M from './matchers.ts';
import { CONSTANT, fuzzyIsExact, fuzzyPlan, prefixAcceptor, prefixPlan, rewritePlan } from './multi-term.ts';
import { constantPlan, NONE, type CompileContext, type Plan } from './query-plan.ts';
import { parseRewriteMethod } from './rewrite-method.ts';
import { RegexpAutomaton } from './regexp-automaton.ts';
import { TooComplexError } from './regexp-derivatives.ts';
import { parseRegexp, RegexpSyntaxError } from './regexp-parse.ts';
import { KEYWORD, searchAnalyzer, STANDARD, type SearchAnalyzer } from './search-analyzers.ts';
import { checkSearchable, failedToCreate, isExactTermType } from './term-level-compile.ts';
import { compileWildcard, normalizeWildcardPattern } from './wildcard-automaton.ts';

/**
 * The analyzer whose `normalize` a query-string term goes through (ES `QueryStringQueryParser`: the
 * forced `analyzer`, else the field's search analyzer: `standard` on text, none on keyword).
 */
function normalizerOf(fm: FieldMapping, n: QueryStringNormalize): SearchAnalyzer {
  if (n.analyzer !== undefined) return searchAnalyzer(n.analyzer, 'query_string');
  return fm.type === 'text' ? STANDARD : KEYWORD;
}

/** Builds a wildcard automaton, a pattern past `max_determinized_states` being ES's `query_shard_exception`. */
function compileAutomaton<T>(build: () => T): T {
  try {
    return build();
  } catch (e) {
    if (!(e instanceof TooComplexError)) throw e;
    throw new EsError(400, 'query_shard_exception', `failed to create query: ${e.message}`, {
      causedBy: { type: 'too_complex_to_determinize_exception', reason: e.message },
    });
  }
}

/**
 * A Lucene regular expression as a deterministic automaton, with ES's errors: a syntax error or an
 * automaton past `max_determinized_states` is a `query_shard_exception` (`SearchExecutionContext.toQuery`
 * wraps the Lucene exception as `failed to create query: …`).
 */
function compileRegexp(pattern: string, flags: number, caseInsensitive: boolean, maxStates: number): RegexpAutomaton {
  const failed = (type: string, reason: string) =>
    new EsError(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type, reason } });
  try {
    return RegexpAutomaton.build(parseRegexp(pattern, flags, caseInsensitive), maxStates);
  } catch (e) {
    if (e instanceof RegexpSyntaxError) throw failed('illegal_argument_exception', e.message);
    if (e instanceof TooComplexError) throw failed('too_complex_to_determinize_exception', e.message);
    if (e instanceof RangeError)
      throw failed('too_complex_to_determinize_exception', `Regular expression [${pattern.length}] characters long is nested too deeply.`);
    throw e;
  }
}

/**
 * The mapping of a keyword or text field a multi-term query (`prefix`, `wildcard`, `fuzzy`) can run
 * on; null for an unmapped field (no match, as ES rewrites it). A keyword-like field with
 * `index: false` and doc values is searched through its values, as ES 8's
 * `KeywordFieldType` falls back to doc values; Folio's segments keep its terms either way.
 * @throws EsError 400 `query_shard_exception` `Can only use prefix queries on keyword, text and
 *   wildcard fields - not on [f] which is of type [long]` (wildcard alike; fuzzy's
 *   `IllegalArgumentException` as `failed to create query: …`), ES's texts.
 */
function multiTermField(c: CompileContext, kind: 'prefix' | 'wildcard' | 'fuzzy', field: string): FieldMapping | null {
  const fm = c.field(field);
  if (!fm) return null;
  if (isExactTermType(fm.type) || fm.type === 'text' || fm.type === 'match_only_text') {
    checkSearchable(field, fm);
    return fm;
  }
  if (kind === 'fuzzy') throw failedToCreate(`Can only use fuzzy queries on keyword and text fields - not on [${field}] which is of type [${fm.type}]`);
  throw new EsError(
    400,
    'query_shard_exception',
    `Can only use ${kind} queries on keyword, text and wildcard fields - not on [${field}] which is of type [${fm.type}]`,
  );
}

/** A fuzzy term query (multi-term.ts), its dictionary scan charged to the query's budget. */
export function fuzzy(c: CompileContext, field: string, value: string, opts: FuzzyOptions, boost: number): Plan {
  if (!fuzzyIsExact(value, opts)) c.scans.charge(c.multiTerm.dictionary, field);
  return fuzzyPlan(c.multiTerm, field, value, opts, boost);
}

/** ES `prefix` (multi-term.ts): a `constant_keyword` compares its value; case-insensitive scans the dictionary. */
export function prefixQuery(c: CompileContext, q: Extract<Query, { kind: 'prefix' }>, b: number): Plan {
  const cfm = c.field(q.field);
  if (cfm?.type === 'constant_keyword') {
    const v = String(cfm.value ?? '');
    const matches = q.caseInsensitive ? v.toLowerCase().startsWith(q.value.toLowerCase()) : v.startsWith(q.value);
    return cfm.value !== undefined && matches ? constantPlan(b, M.allDocs) : NONE;
  }
  const fm = multiTermField(c, 'prefix', q.field);
  if (!fm) return NONE;
  const value = q.normalize ? normalizerOf(fm, q.normalize).normalize(q.value) : q.value;
  const method = parseRewriteMethod(q.rewrite, CONSTANT);
  if (!q.caseInsensitive) return prefixPlan(c.multiTerm, q.field, value, method, b);
  c.scans.charge(c.multiTerm.dictionary, q.field);
  return rewritePlan(c.multiTerm, q.field, prefixAcceptor(value, true), method, b);
}

/** ES `wildcard`: the pattern as an automaton (wildcard-automaton.ts) over the field's dictionary. */
export function wildcardQuery(c: CompileContext, q: Extract<Query, { kind: 'wildcard' }>, b: number): Plan {
  const fm = multiTermField(c, 'wildcard', q.field);
  if (!fm) return NONE;
  const normalizer = q.normalize ? normalizerOf(fm, q.normalize) : null;
  const pattern = normalizer ? normalizeWildcardPattern(q.value, (s) => normalizer.normalize(s)) : q.value;
  const automaton = compileAutomaton(() => compileWildcard(pattern, q.caseInsensitive));
  c.scans.charge(c.multiTerm.dictionary, q.field);
  return rewritePlan(c.multiTerm, q.field, (t) => (automaton.matches(t) ? 1 : null), parseRewriteMethod(q.rewrite, CONSTANT), b);
}

/** ES `fuzzy` on a keyword or text field ({@link fuzzy}). */
export function fuzzyQuery(c: CompileContext, q: Extract<Query, { kind: 'fuzzy' }>, b: number): Plan {
  const fm = multiTermField(c, 'fuzzy', q.field);
  if (!fm) return NONE;
  const value = q.normalize ? normalizerOf(fm, q.normalize).normalize(q.value) : q.value;
  return fuzzy(c, q.field, value, q.fuzzy, b);
}

/**
 * ES `regexp`: constant score `boost` for docs with a term of `field` the whole pattern matches,
 * through a deterministic automaton (regexp-automaton.ts: linear in each term, whatever the pattern).
 * @throws EsError 400 `query_shard_exception` on a field that is not keyword or text, or for a
 *   pattern Lucene refuses (`failed to create query: …`).
 */
export function regexp(c: CompileContext, q: Extract<Query, { kind: 'regexp' }>, boost: number): Plan {
  let names: string[];
  if (q.field === '*') {
    // `q=/re/` without a field: every keyword and text field (ES `index.query.default_field: *`, lenient).
    names = [...c.fields].filter(([, fm]) => (fm.type === 'keyword' || fm.type === 'text') && fm.index !== false).map(([name]) => name);
  } else {
    const fm = c.field(q.field);
    if (!fm) return NONE;
    if (fm.type !== 'text' && fm.type !== 'match_only_text' && !isExactTermType(fm.type)) {
      throw new EsError(
        400,
        'query_shard_exception',
        `Can only use regexp queries on keyword and text fields - not on [${q.field}] which is of type [${fm.type}]`,
      );
    }
    checkSearchable(q.field, fm);
    names = [q.field];
  }
  if (names.length === 0) return NONE;
  const automaton = compileRegexp(q.value, q.flags, q.caseInsensitive, q.maxDeterminizedStates);
  const parts = names.map((field) => constantPlan(boost, (seg) => M.termScanMatch(seg, field, (t) => automaton.matches(t))));
  return parts.length === 1 ? parts[0] : { t: 'dismax', queries: parts, tie: 0 };
}
