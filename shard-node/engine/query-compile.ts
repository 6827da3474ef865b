/**
 * Compiles a shared {@link Query} tree into an executable plan with its BM25 weights resolved, as
 * Lucene's `IndexSearcher.createWeight` does: boosts are pushed down to the leaves, and each scored
 * term gets `boost * idf` and its length-norm cache from the statistics (local or dfs).
 * ES query-to-Lucene rules mirrored here are noted per query kind.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl.html
 */
import { EsError } from '../../protocol/errors.ts';
import type { FieldMapping } from '../../protocol/mapping.ts';
import { aliasesOf, concreteFields, NUMERIC_TYPES } from '../../protocol/mapping.ts';
import type { FieldStatistics, TermStatistics } from '../../protocol/search.ts';
import type { FuzzyOptions } from '../../protocol/fuzziness.ts';
import { MAX_CLAUSE_COUNT } from '../../protocol/query-ast.ts';
import type { Query, QueryStringNormalize, TermValue } from '../../protocol/query-ast.ts';
import { resolveMinimumShouldMatch } from '../../protocol/query-ast.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';
import { analyzeTerms } from './analyzer.ts';
import { IGNORED_FIELD, parseBoolean, parseNumber, toHalfFloat } from './doc-parser.ts';
import { DEFAULT_DATE_FORMAT, DEFAULT_DATE_NANOS_FORMAT, parseDateInstant, parseTimeZone, type TimeZone } from '../../shared/date-format.ts';
import { DateMathError, parseDateMath } from './date-math.ts';
import { cidrRange, encodeIp } from './ip-address.ts';
import type { Bounds } from './matchers.ts';
import * as M from './matchers.ts';
import {
  CONSTANT, fuzzyIsExact, fuzzyPlan, phrasePrefixPlan, prefixAcceptor, prefixPlan, rewritePlan, ScanBudget, ScanBudgetExceeded, type MultiTermContext, type TermDictionary,
} from './multi-term.ts';
import { parseRewriteMethod } from './rewrite-method.ts';
import { KEYWORD, searchAnalyzer, STANDARD, type SearchAnalyzer } from './search-analyzers.ts';
import { compileWildcard, normalizeWildcardPattern } from './wildcard-automaton.ts';
import { RegexpAutomaton, TooComplexError } from './regexp-automaton.ts';
import { parseRegexp, RegexpSyntaxError } from './regexp-parse.ts';
import type { Segment } from './segment.ts';
import { sliceMatch } from './slice-match.ts';
import { avgFieldLength, Bm25Scorer, idf, idfSum } from './similarity.ts';

/** Where term and field statistics come from (the generation, or the request's dfs stats). */
export interface StatsSource {
  field(field: string): FieldStatistics;
  term(field: string, term: string): TermStatistics;
}

/** An executable query node. Scores are floats; `const` leaves score their boost. */
export type Plan =
  | { t: 'term'; field: string; term: string; scorer: Bm25Scorer }
  | { t: 'phrase'; field: string; terms: string[]; slop: number; scorer: Bm25Scorer }
  | { t: 'const'; score: number; match: (seg: Segment) => Int32Array }
  | { t: 'bool'; must: Plan[]; should: Plan[]; filter: Plan[]; mustNot: Plan[]; msm: number }
  | { t: 'dismax'; queries: Plan[]; tie: number }
  | { t: 'constant'; inner: Plan; score: number }
  | { t: 'none' };

const NONE: Plan = { t: 'none' };
/** `_ignored` is searched as a keyword (ES `IgnoredFieldMapper`). */
const IGNORED_MAPPING: FieldMapping = { type: 'keyword' };
const f = Math.fround;

/** 400 `query_shard_exception` for a value the field type cannot parse (ES `failed to create query`). */
function badValue(v: unknown): EsError {
  return new EsError(400, 'query_shard_exception', `failed to create query: For input string: "${String(v)}"`);
}

/** ES `failed to create query: <reason>` caused by the field type's `illegal_argument_exception`. */
function queryFailure(reason: string): EsError {
  return new EsError(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type: 'illegal_argument_exception', reason } });
}

/** A date bound that does not parse: ES `DateFieldType` → `parse_exception`. */
function badDate(v: unknown, format: string, detail?: string): EsError {
  const reason = `failed to parse date field [${String(v)}] with format [${format}]`;
  return new EsError(400, 'parse_exception', detail ? `${reason}: [${detail}]` : `${reason}: [${reason}]`, {
    causedBy: { type: 'illegal_argument_exception', reason: detail ?? reason },
  });
}

/**
 * ES `MappedFieldType.failIfNotIndexed`/`failIfNotIndexedNorDocValuesFallback`: a field with
 * `index: false` is searched through its doc values (ES 8), unless it has none; `text` needs the index.
 */
function checkSearchable(field: string, fm: FieldMapping): void {
  if (fm.index !== false) return;
  if (fm.type === 'text' || fm.type === 'match_only_text') throw queryFailure(`Cannot search on field [${field}] since it is not indexed.`);
  if (fm.doc_values === false) throw queryFailure(`Cannot search on field [${field}] since it is not indexed nor has doc values.`);
}

/** Numeric query values as the type indexes them (half_float and scaled_float rounded, as ES's query parse). */
function roundForType(n: number, fm: FieldMapping): number {
  if (fm.type === 'half_float') return toHalfFloat(n);
  if (fm.type === 'scaled_float') return Math.round(n * (fm.scaling_factor ?? 1)) / (fm.scaling_factor ?? 1);
  return n;
}

/** Types whose terms are exact keyword-like strings in the inverted index. */
function isExactTermType(t: string): boolean {
  return t === 'keyword' || t === 'wildcard' || t === 'flattened' || t === 'flat_object';
}

/**
 * ES's `exists` on a metadata field (`MetadataFieldMapper` field types' `existsQuery`): every
 * document has an `_id`, an `_index`, a `_seq_no` and a `_version` (match all); `_routing` exists
 * on the documents indexed with a custom routing (ES indexes the field only then; segments keep
 * each document's routing); `_source` is not searchable (400). Undefined for other names.
 * @throws EsError 400 `query_shard_exception` `The _source field is not searchable`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/mapper/SourceFieldMapper.java
 */
function metadataExists(field: string): 'all' | 'routed' | undefined {
  switch (field) {
    case '_id':
    case '_index':
    case '_seq_no':
    case '_version':
      return 'all';
    case '_routing':
      return 'routed';
    case '_source':
      throw new EsError(400, 'query_shard_exception', 'The _source field is not searchable');
    default:
      return undefined;
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
    if (e instanceof RangeError) throw failed('too_complex_to_determinize_exception', `Regular expression [${pattern.length}] characters long is nested too deeply.`);
    throw e;
  }
}

/** A dictionary with no terms (a compiler given none expands multi-term queries to nothing). */
const NO_TERMS: TermDictionary = { forEachTerm: () => {}, forEachWithPrefix: () => {}, size: () => 0 };

/** The text options of `match`-family queries: a named analyzer and fuzziness. */
interface TextOptions {
  analyzer?: string;
  fuzzy?: FuzzyOptions;
  /** The query name ES puts in the analyzer error (`[match] analyzer [x] not found`). */
  query?: string;
}

/** `failed to create query: …` (ES's `SearchExecutionContext.toQuery` around an `IllegalArgumentException`). */
function failedToCreate(reason: string): EsError {
  return new EsError(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type: 'illegal_argument_exception', reason } });
}

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
    throw new EsError(400, 'query_shard_exception', `failed to create query: ${e.message}`, { causedBy: { type: 'too_complex_to_determinize_exception', reason: e.message } });
  }
}

/** Compiles queries against one mapping and one statistics source. */
export class QueryCompiler {
  /** The mapped fields without aliases (what `*` patterns expand to). */
  private readonly fields: ReadonlyMap<string, FieldMapping>;
  /** Field alias → the path it stands for (ES `FieldAliasMapper`); queries on an alias run on its path. */
  private readonly aliases: ReadonlyMap<string, string>;
  private readonly stats: StatsSource;
  /** What multi-term queries (prefix, wildcard, fuzzy) expand against: the shard's term dictionary. */
  private readonly multiTerm: MultiTermContext;
  /** The dictionary terms this query's scanning leaves will read (bounded: multi-term.ts). */
  private readonly scans = new ScanBudget();
  /** Field copies made by `multi_field` nodes so far (bounded by the clause limit, as ES counts the rewritten query). */
  private fieldCopies = 0;

  /** The value lists of `terms` and `ids` queries compiled so far, to prepare in slices. */
  readonly valueLists: M.ValueList[] = [];

  constructor(fields: ReadonlyMap<string, FieldMapping>, stats: StatsSource, dictionary: TermDictionary = NO_TERMS) {
    this.fields = concreteFields(fields);
    this.aliases = aliasesOf(fields);
    this.stats = stats;
    this.multiTerm = { stats, dictionary };
  }

  /**
   * The mapping of a queried field: a mapped field, or a keyed path inside a `flattened`/`flat_object`
   * field (`labels.release`), which is searched as a keyword.
   */
  private field(name: string): FieldMapping | undefined {
    const fm = this.fields.get(name);
    if (fm) return fm;
    if (name === IGNORED_FIELD) return IGNORED_MAPPING;
    for (let dot = name.lastIndexOf('.'); dot > 0; dot = name.lastIndexOf('.', dot - 1)) {
      const parent = this.fields.get(name.slice(0, dot));
      if (parent) return parent.type === 'flattened' || parent.type === 'flat_object' ? { type: 'keyword' } : undefined;
    }
    return undefined;
  }

  /** A value list for a `terms` or `ids` query, recorded in {@link QueryCompiler.valueLists}. */
  private valueList(values: readonly string[]): M.ValueList {
    const list = new M.ValueList(values);
    this.valueLists.push(list);
    return list;
  }

  /** Compiles `q` with an outer boost (1 at the root). */
  compile(q: Query, boost = 1): Plan {
    // A field alias is its target's field type in ES (`MappingLookup.getFieldType`): the query runs on the path.
    if (this.aliases.size > 0 && 'field' in q) {
      const path = this.aliases.get(q.field);
      if (path !== undefined) return this.compile({ ...q, field: path } as Query, boost);
    }
    const b = boost * q.boost;
    // `_id` is a metadata field: ES answers term, terms and match on it as an ids query (constant score).
    // @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-id-field.html
    if ('field' in q && q.field === '_id') {
      if (q.kind === 'term') return this.constant(b, (seg) => M.idsMatch(seg, [String(q.value)]));
      if (q.kind === 'terms') {
        const ids = this.valueList(asStrings(q.values));
        return this.constant(b, (seg) => M.idsMatch(seg, ids));
      }
      if (q.kind === 'match' || q.kind === 'match_phrase') return this.constant(b, (seg) => M.idsMatch(seg, [q.query]));
    }
    if (q.kind === 'exists' && q.field.startsWith('_')) {
      const meta = metadataExists(q.field);
      if (meta === 'all') return this.constant(b, M.allDocs);
      if (meta === 'routed') return this.constant(b, M.routedDocs);
    }
    switch (q.kind) {
      case 'match_all':
        return this.constant(b, M.allDocs);
      case 'match_none':
        return NONE;
      case 'match':
        return this.match(q.field, q.query, q.operator, q.minimumShouldMatch, b, q.field === '*', { analyzer: q.analyzer, fuzzy: q.fuzzy, query: 'match' });
      case 'match_phrase':
        return this.phrase(q.field, q.query, q.slop, b, q.field === '*');
      case 'multi_match': {
        if (q.type === 'cross_fields') return this.crossFields(q, b);
        const opts: TextOptions = { analyzer: q.analyzer, fuzzy: q.fuzzy, query: 'multi_match' };
        if (q.analyzer !== undefined) searchAnalyzer(q.analyzer, 'multi_match');
        const parts: Plan[] = [];
        for (const { field, boost: fb } of q.fields) {
          for (const name of this.expand(field)) {
            parts.push(
              q.type === 'phrase'
                ? this.phrase(name, q.query, 0, b * fb, false)
                : q.type === 'bool_prefix'
                  ? this.boolPrefix(name, q.query, q.operator, q.minimumShouldMatch, b * fb, opts)
                  : this.match(name, q.query, q.operator, q.minimumShouldMatch, b * fb, false, opts),
            );
          }
        }
        const live = parts.filter((p) => p.t !== 'none');
        if (live.length === 0) return NONE;
        if (q.type === 'most_fields' || q.type === 'bool_prefix') return { t: 'bool', must: [], should: live, filter: [], mustNot: [], msm: 1 };
        return live.length === 1 ? live[0] : { t: 'dismax', queries: live, tie: q.tieBreaker };
      }
      case 'term':
        return this.term(q.field, q.value, q.caseInsensitive, b);
      case 'terms':
        return this.terms(q.field, q.values, b);
      case 'range':
        return this.range(q, b);
      case 'exists': {
        const fm = this.fields.get(q.field);
        if (fm?.type === 'constant_keyword') return fm.value === undefined ? NONE : this.constant(b, M.allDocs);
        return this.constant(b, (seg) => M.existsMatch(seg, q.field));
      }
      case 'prefix': {
        const cfm = this.field(q.field);
        if (cfm?.type === 'constant_keyword') {
          const v = String(cfm.value ?? '');
          const matches = q.caseInsensitive ? v.toLowerCase().startsWith(q.value.toLowerCase()) : v.startsWith(q.value);
          return cfm.value !== undefined && matches ? this.constant(b, M.allDocs) : NONE;
        }
        const fm = this.multiTermField('prefix', q.field);
        if (!fm) return NONE;
        const value = q.normalize ? normalizerOf(fm, q.normalize).normalize(q.value) : q.value;
        const method = parseRewriteMethod(q.rewrite, CONSTANT);
        if (!q.caseInsensitive) return prefixPlan(this.multiTerm, q.field, value, method, b);
        this.scans.charge(this.multiTerm.dictionary, q.field);
        return rewritePlan(this.multiTerm, q.field, prefixAcceptor(value, true), method, b);
      }
      case 'wildcard': {
        const fm = this.multiTermField('wildcard', q.field);
        if (!fm) return NONE;
        const normalizer = q.normalize ? normalizerOf(fm, q.normalize) : null;
        const pattern = normalizer ? normalizeWildcardPattern(q.value, (s) => normalizer.normalize(s)) : q.value;
        const automaton = compileAutomaton(() => compileWildcard(pattern, q.caseInsensitive));
        this.scans.charge(this.multiTerm.dictionary, q.field);
        return rewritePlan(this.multiTerm, q.field, (t) => (automaton.matches(t) ? 1 : null), parseRewriteMethod(q.rewrite, CONSTANT), b);
      }
      case 'fuzzy': {
        const fm = this.multiTermField('fuzzy', q.field);
        if (!fm) return NONE;
        const value = q.normalize ? normalizerOf(fm, q.normalize).normalize(q.value) : q.value;
        return this.fuzzy(q.field, value, q.fuzzy, b);
      }
      case 'match_bool_prefix':
        return this.boolPrefix(q.field, q.query, q.operator, q.minimumShouldMatch, b, { analyzer: q.analyzer, fuzzy: q.fuzzy, query: 'match_bool_prefix' });
      case 'match_phrase_prefix':
        return this.phrasePrefix(q, b);
      case 'multi_field':
        return this.multiField(q, b);
      case 'terms_lookup':
        throw new Error('a terms lookup reached a shard: the coordinator resolves it before the query phase');
      case 'regexp':
        return this.regexp(q, b);
      case 'ids': {
        const ids = this.valueList(q.values);
        return this.constant(b, (seg) => M.idsMatch(seg, ids));
      }
      case 'bool': {
        const must = q.must.map((c) => this.compile(c, b));
        const should = q.should.map((c) => this.compile(c, b));
        const filter = q.filter.map((c) => this.compile(c, 1));
        const mustNot = q.mustNot.map((c) => this.compile(c, 1));
        if (must.length + should.length + filter.length + mustNot.length === 0) return this.constant(b, M.allDocs);
        const dflt = must.length + filter.length > 0 ? 0 : 1;
        const msm = resolveMinimumShouldMatch(q.minimumShouldMatch, should.length, dflt);
        return { t: 'bool', must, should, filter, mustNot, msm };
      }
      case 'constant_score':
        return { t: 'constant', inner: this.compile(q.filter, 1), score: f(b) };
      case 'dis_max':
        return { t: 'dismax', queries: q.queries.map((c) => this.compile(c, b)), tie: q.tieBreaker };
      case 'slice':
        return this.constant(b, (seg) => sliceMatch(seg, q.field, q.id, q.max));
    }
  }

  private constant(boost: number, match: (seg: Segment) => Int32Array): Plan {
    return { t: 'const', score: f(boost), match };
  }

  /** Field names matching a pattern (`name*`), or the name itself. */
  private expand(field: string): string[] {
    if (!field.includes('*')) return [this.aliases.get(field) ?? field];
    const names = [...this.fields.keys()].filter((n) => wildcardMatch(field, n));
    // ES `QueryParserHelper.resolveMappingField`: an alias the pattern matches stands for its path, once.
    for (const [alias, path] of this.aliases) if (wildcardMatch(field, alias) && !names.includes(path)) names.push(path);
    return names;
  }

  /** A BM25-scored TermQuery. */
  termPlan(field: string, term: string, boost: number): Plan {
    const fs = this.stats.field(field);
    const ts = this.stats.term(field, term);
    const scorer = new Bm25Scorer(boost, idf(ts.docFreq, fs.docCount), avgFieldLength(fs.sumTotalTermFreq, fs.docCount));
    return { t: 'term', field, term, scorer };
  }

  /**
   * ES `match`: text fields analyze the query into a bool of term queries (SHOULD with
   * minimum_should_match, or MUST for `operator: and`); keyword/boolean fields run one term query on
   * the whole value, numeric/date fields an exact (constant-score) query; `*` is a dis_max over all
   * fields with lenient parsing, as `index.query.default_field: *`.
   */
  private match(field: string, text: string, op: 'and' | 'or', msmSpec: string | number | undefined, boost: number, lenient: boolean, opts: TextOptions = {}): Plan {
    if (field === '*') {
      const parts = [...this.fields.keys()]
        .map((name) => this.match(name, text, op, msmSpec, boost, true, opts))
        .filter((p) => p.t !== 'none');
      if (parts.length === 0) return NONE;
      return parts.length === 1 ? parts[0] : { t: 'dismax', queries: parts, tie: 0 };
    }
    const analyzer = opts.analyzer === undefined ? undefined : searchAnalyzer(opts.analyzer, opts.query ?? 'match');
    const fm = this.field(field);
    if (!fm) return NONE;
    if (lenient && fm.index === false) return NONE;
    checkSearchable(field, fm);
    if (opts.fuzzy && fm.type === 'keyword') return this.fuzzy(field, text, opts.fuzzy, boost);
    if (opts.fuzzy && fm.type !== 'text') {
      if (lenient) return NONE;
      throw failedToCreate(`Can only use fuzzy queries on keyword and text fields - not on [${field}] which is of type [${fm.type}]`);
    }
    if (fm.type === 'text' || fm.type === 'match_only_text') {
      const terms = analyzer ? analyzer.analyze(text) : analyzeTerms(text);
      if (terms.length === 0) return NONE;
      const fuzzy = opts.fuzzy;
      // match_only_text: each term scores its boost (ES wraps its term queries in constant_score).
      const plans = terms.map((t) => this.unscored(fm, fuzzy ? this.fuzzy(field, t, fuzzy, boost) : this.termPlan(field, t, boost), boost));
      if (plans.length === 1) return plans[0];
      if (op === 'and') return { t: 'bool', must: plans, should: [], filter: [], mustNot: [], msm: 0 };
      const msm = Math.max(1, resolveMinimumShouldMatch(msmSpec, plans.length, 1));
      return { t: 'bool', must: [], should: plans, filter: [], mustNot: [], msm };
    }
    return this.exact(field, fm, text, boost, lenient);
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
  private boolPrefix(field: string, text: string, op: 'and' | 'or', msmSpec: string | number | undefined, boost: number, opts: TextOptions = {}): Plan {
    const analyzer = opts.analyzer === undefined ? undefined : searchAnalyzer(opts.analyzer, opts.query ?? 'match_bool_prefix');
    const fm = this.fields.get(field);
    if (!fm || fm.index === false) return NONE;
    if (fm.type === 'keyword' && !analyzer) return prefixPlan(this.multiTerm, field, text, CONSTANT, boost);
    if (fm.type !== 'text' && fm.type !== 'keyword') return this.match(field, text, op, msmSpec, boost, false);
    const terms = analyzer ? analyzer.analyze(text) : analyzeTerms(text);
    if (terms.length === 0) return NONE;
    const last = terms[terms.length - 1];
    const fuzzy = opts.fuzzy;
    const plans = terms.slice(0, -1).map((t) => (fuzzy ? this.fuzzy(field, t, fuzzy, boost) : this.termPlan(field, t, boost)));
    plans.push(prefixPlan(this.multiTerm, field, last, CONSTANT, boost));
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
  private phrasePrefix(q: Extract<Query, { kind: 'match_phrase_prefix' }>, boost: number): Plan {
    const analyzer = q.analyzer === undefined ? undefined : searchAnalyzer(q.analyzer, 'match_phrase_prefix');
    const fm = this.fields.get(q.field);
    if (!fm || fm.index === false) return NONE;
    if (fm.type !== 'text' && fm.type !== 'keyword') return this.exact(q.field, fm, q.query, boost, false);
    const terms = fm.type === 'keyword' && !analyzer ? [q.query] : analyzer ? analyzer.analyze(q.query) : analyzeTerms(q.query);
    if (terms.length === 0) return NONE;
    return phrasePrefixPlan(this.multiTerm, q.field, terms, q.slop, q.maxExpansions, boost);
  }

  /**
   * A leaf query on every field of a `query_string`'s field list (`QueryStringQueryParser`'s
   * multi-field queries): one copy per resolved field, boosted by its weight, dis_max'ed with
   * `tieBreaker`. With `lenient`, a field the query cannot run on is left out instead of failing.
   * @throws EsError 400 `too_many_nested_clauses` past 4,096 field copies in the query (ES counts
   *   the leaves of the rewritten query against `indices.query.bool.max_clause_count`).
   */
  private multiField(q: Extract<Query, { kind: 'multi_field' }>, boost: number): Plan {
    const parts: Plan[] = [];
    for (const { field, boost: fb } of q.fields) {
      for (const name of field === '*' ? [...this.fields.keys()] : this.expand(field)) {
        if (++this.fieldCopies > MAX_CLAUSE_COUNT) {
          throw new EsError(400, 'too_many_nested_clauses', `Query contains too many nested clauses; maxClauseCount is set to ${MAX_CLAUSE_COUNT}`);
        }
        const copy = { ...q.query, field: name } as Query;
        try {
          parts.push(this.compile(copy, boost * fb));
        } catch (e) {
          if (!(q.lenient && e instanceof EsError && e.status === 400) || e instanceof ScanBudgetExceeded) throw e;
        }
      }
    }
    const live = parts.filter((p) => p.t !== 'none');
    if (live.length === 0) return NONE;
    return live.length === 1 ? live[0] : { t: 'dismax', queries: live, tie: q.tieBreaker };
  }

  /** A fuzzy term query (multi-term.ts), its dictionary scan charged to the query's budget. */
  private fuzzy(field: string, value: string, opts: FuzzyOptions, boost: number): Plan {
    if (!fuzzyIsExact(value, opts)) this.scans.charge(this.multiTerm.dictionary, field);
    return fuzzyPlan(this.multiTerm, field, value, opts, boost);
  }

  /**
   * The mapping of a keyword or text field a multi-term query (`prefix`, `wildcard`, `fuzzy`) can run
   * on; null for an unmapped or unindexed field (no match, as ES rewrites it).
   * @throws EsError 400 `query_shard_exception` `Can only use prefix queries on keyword, text and
   *   wildcard fields - not on [f] which is of type [long]` (wildcard alike; fuzzy's
   *   `IllegalArgumentException` as `failed to create query: …`), ES's texts.
   */
  private multiTermField(kind: 'prefix' | 'wildcard' | 'fuzzy', field: string): FieldMapping | null {
    const fm = this.field(field);
    if (!fm) return null;
    if (isExactTermType(fm.type) || fm.type === 'text' || fm.type === 'match_only_text') {
      checkSearchable(field, fm);
      return fm.index === false ? null : fm;
    }
    if (kind === 'fuzzy') throw failedToCreate(`Can only use fuzzy queries on keyword and text fields - not on [${field}] which is of type [${fm.type}]`);
    throw new EsError(400, 'query_shard_exception', `Can only use ${kind} queries on keyword, text and wildcard fields - not on [${field}] which is of type [${fm.type}]`);
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
  private crossFields(q: Extract<Query, { kind: 'multi_match' }>, boost: number): Plan {
    const text: { field: string; boost: number }[] = [];
    const groups: Plan[] = [];
    for (const { field, boost: fb } of q.fields) {
      for (const name of this.expand(field)) {
        const fm = this.fields.get(name);
        if (!fm || fm.index === false) continue;
        if (fm.type === 'text') text.push({ field: name, boost: boost * fb });
        else groups.push(this.match(name, q.query, q.operator, q.minimumShouldMatch, boost * fb, true));
      }
    }
    if (text.length > 0) {
      const terms = analyzeTerms(q.query);
      const plans = terms.map((t) => this.blendedTerm(t, text, q.tieBreaker));
      if (plans.length === 1) groups.push(plans[0]);
      else if (plans.length > 1) {
        if (q.operator === 'and') groups.push({ t: 'bool', must: plans, should: [], filter: [], mustNot: [], msm: 0 });
        else groups.push({ t: 'bool', must: [], should: plans, filter: [], mustNot: [], msm: Math.max(1, resolveMinimumShouldMatch(q.minimumShouldMatch, plans.length, 1)) });
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
  private blendedTerm(term: string, fields: readonly { field: string; boost: number }[], tie: number): Plan {
    const dfs = fields.map(({ field }) => this.stats.term(field, term).docFreq);
    const fieldStats = fields.map(({ field }) => this.stats.field(field));
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

  /** Exact-value query of a non-text field (ES `term` semantics for keyword/boolean/numeric/date). */
  private exact(field: string, fm: FieldMapping, value: TermValue, boost: number, lenient: boolean): Plan {
    if (isExactTermType(fm.type)) return this.termPlan(field, String(value), boost);
    if (fm.type === 'constant_keyword') return fm.value !== undefined && String(fm.value) === String(value) ? this.constant(boost, M.allDocs) : NONE;
    if (fm.type === 'ip') {
      const text = String(value);
      const cidr = text.includes('/') ? cidrRange(text) : null;
      if (cidr) return this.constant(boost, (seg) => M.termRangeMatch(seg, field, { lo: cidr.lo, hi: cidr.hi, loInclusive: true, hiInclusive: true }));
      const hex = encodeIp(text);
      if (hex === null) {
        if (lenient) return NONE;
        throw queryFailure(`'${text}' is not an IP string literal.`);
      }
      return this.termPlan(field, hex, boost);
    }
    if (fm.type === 'binary') {
      if (lenient) return NONE;
      throw new EsError(400, 'query_shard_exception', `Binary fields do not support searching`);
    }
    if (fm.type === 'boolean') {
      const bv = parseBoolean(typeof value === 'string' ? value.trim() : value);
      if (bv === null) {
        if (lenient) return NONE;
        throw badValue(value);
      }
      return this.termPlan(field, String(bv), boost);
    }
    if (fm.type === 'date' || fm.type === 'date_nanos') {
      // ES DateFieldType.termQuery is rangeQuery(value, value) inclusive: the upper bound rounds up,
      // so `2015-01-01` matches the whole day and `now/d` today.
      let plan: Plan;
      try {
        plan = this.dateRange({ kind: 'range', field, gte: value, lte: value, boost }, fm, boost);
      } catch (e) {
        if (lenient && e instanceof EsError) return NONE;
        throw e;
      }
      return plan;
    }
    const n = this.number(fm, value, lenient);
    if (n === null) return NONE;
    if (NUMERIC_TYPES.has(fm.type)) return this.constant(boost, (seg) => M.numericMatch(seg, field, (v) => v === n));
    return NONE;
  }

  /** ES `match_only_text`: matches like text, each term or phrase scoring its boost (no frequencies or norms). */
  private unscored(fm: FieldMapping, plan: Plan, boost: number): Plan {
    return fm.type === 'match_only_text' ? { t: 'constant', inner: plan, score: f(boost) } : plan;
  }

  /** Parses a value for a numeric/date field; null (lenient) or throws. */
  private number(fm: FieldMapping, value: TermValue, lenient: boolean): number | null {
    let n: number | null = null;
    if (fm.type === 'date' || fm.type === 'date_nanos') {
      const format = fm.format ?? (fm.type === 'date' ? DEFAULT_DATE_FORMAT : DEFAULT_DATE_NANOS_FORMAT);
      const i = parseDateInstant(value, format);
      if (i === null) {
        if (lenient) return null;
        throw badDate(value, format);
      }
      return fm.type === 'date' ? i.ms : i.ms * 1e6 + i.nanos;
    } else if (NUMERIC_TYPES.has(fm.type)) {
      n = parseNumber(value, { ...fm, type: 'double' });
      if (n !== null) n = roundForType(n, fm);
      // An integer field never holds a fraction: `term: 1.5` on a long matches nothing.
    } else if (fm.type === 'boolean') {
      const bv = parseBoolean(value);
      n = bv === null ? null : bv ? 1 : 0;
    } else return null;
    if (n === null && !lenient) throw badValue(value);
    return n;
  }

  /** ES `match_phrase`: exact or sloppy phrase over positions, scored with the summed idf. */
  private phrase(field: string, text: string, slop: number, boost: number, lenient: boolean): Plan {
    if (field === '*') {
      const parts = [...this.fields.keys()].map((n) => this.phrase(n, text, slop, boost, true)).filter((p) => p.t !== 'none');
      if (parts.length === 0) return NONE;
      return parts.length === 1 ? parts[0] : { t: 'dismax', queries: parts, tie: 0 };
    }
    const fm = this.field(field);
    if (!fm) return NONE;
    if (lenient && fm.index === false) return NONE;
    checkSearchable(field, fm);
    if (fm.type !== 'text' && fm.type !== 'match_only_text') return this.exact(field, fm, text, boost, lenient);
    const terms = analyzeTerms(text);
    if (terms.length === 0) return NONE;
    if (terms.length === 1) return this.unscored(fm, this.termPlan(field, terms[0], boost), boost);
    const fs = this.stats.field(field);
    const idfs = idfSum(terms.map((t) => this.stats.term(field, t)), fs.docCount);
    const plan: Plan = { t: 'phrase', field, terms, slop, scorer: new Bm25Scorer(boost, idfs, avgFieldLength(fs.sumTotalTermFreq, fs.docCount)) };
    return this.unscored(fm, plan, boost);
  }

  private term(field: string, value: TermValue, caseInsensitive: boolean, boost: number): Plan {
    const fm = this.field(field);
    if (!fm) return NONE;
    checkSearchable(field, fm);
    if (fm.type === 'text' || fm.type === 'match_only_text' || isExactTermType(fm.type)) {
      const s = String(value);
      if (caseInsensitive) {
        const lower = s.toLowerCase();
        return this.constant(boost, (seg) => M.termScanMatch(seg, field, (t) => t.toLowerCase() === lower));
      }
      return this.unscored(fm, this.termPlan(field, s, boost), boost);
    }
    if (fm.type === 'constant_keyword' && caseInsensitive) {
      return fm.value !== undefined && String(fm.value).toLowerCase() === String(value).toLowerCase() ? this.constant(boost, M.allDocs) : NONE;
    }
    return this.exact(field, fm, value, boost, false);
  }

  /**
   * ES `regexp`: constant score `boost` for docs with a term of `field` the whole pattern matches,
   * through a deterministic automaton (regexp-automaton.ts: linear in each term, whatever the pattern).
   * @throws EsError 400 `query_shard_exception` on a field that is not keyword or text, or for a
   *   pattern Lucene refuses (`failed to create query: …`).
   */
  private regexp(q: Extract<Query, { kind: 'regexp' }>, boost: number): Plan {
    let names: string[];
    if (q.field === '*') {
      // `q=/re/` without a field: every keyword and text field (ES `index.query.default_field: *`, lenient).
      names = [...this.fields].filter(([, fm]) => (fm.type === 'keyword' || fm.type === 'text') && fm.index !== false).map(([name]) => name);
    } else {
      const fm = this.field(q.field);
      if (!fm) return NONE;
      if (fm.type !== 'text' && fm.type !== 'match_only_text' && !isExactTermType(fm.type)) {
        throw new EsError(400, 'query_shard_exception', `Can only use regexp queries on keyword and text fields - not on [${q.field}] which is of type [${fm.type}]`);
      }
      names = fm.index === false ? [] : [q.field];
    }
    if (names.length === 0) return NONE;
    const automaton = compileRegexp(q.value, q.flags, q.caseInsensitive, q.maxDeterminizedStates);
    const parts = names.map((field) => this.constant(boost, (seg) => M.termScanMatch(seg, field, (t) => automaton.matches(t))));
    return parts.length === 1 ? parts[0] : { t: 'dismax', queries: parts, tie: 0 };
  }

  /** ES `terms`: constant score `boost` for docs with any of the values. */
  private terms(field: string, values: TermValue[], boost: number): Plan {
    const fm = this.field(field);
    if (!fm) return NONE;
    checkSearchable(field, fm);
    if (fm.type === 'text' || fm.type === 'match_only_text' || isExactTermType(fm.type) || fm.type === 'boolean') {
      const strs = this.valueList(fm.type === 'boolean' ? values.map((v) => String(parseBoolean(v) ?? v)) : asStrings(values));
      return this.constant(boost, (seg) => M.termsMatch(seg, field, strs));
    }
    if (fm.type === 'constant_keyword' || fm.type === 'ip' || fm.type === 'binary') {
      const parts = values.map((v) => this.exact(field, fm, v, 1, false)).filter((p) => p.t !== 'none');
      if (parts.length === 0) return NONE;
      return { t: 'constant', inner: { t: 'bool', must: [], should: parts, filter: [], mustNot: [], msm: 1 }, score: f(boost) };
    }
    if (fm.type === 'date' || fm.type === 'date_nanos') {
      const parts = values.map((v) => this.exact(field, fm, v, 1, false));
      return { t: 'constant', inner: { t: 'bool', must: [], should: parts, filter: [], mustNot: [], msm: 1 }, score: f(boost) };
    }
    const nums = new Set(values.map((v) => this.number(fm, v, false)));
    return this.constant(boost, (seg) => M.numericMatch(seg, field, (v) => nums.has(v)));
  }

  /** ES `range` on numeric/date/boolean doc values or keyword/text terms; constant score. */
  private range(q: Extract<Query, { kind: 'range' }>, boost: number): Plan {
    const fm = this.field(q.field);
    if (!fm) return NONE;
    checkSearchable(q.field, fm);
    const lo = q.gt ?? q.gte;
    const hi = q.lt ?? q.lte;
    const loInclusive = q.gt === undefined;
    const hiInclusive = q.lt === undefined;
    if (fm.type === 'date' || fm.type === 'date_nanos') return this.dateRange(q, fm, boost);
    if (fm.type === 'ip') {
      const enc = (v: TermValue | undefined): string | undefined => {
        if (v === undefined) return undefined;
        const hex = encodeIp(String(v));
        if (hex === null) throw queryFailure(`'${String(v)}' is not an IP string literal.`);
        return hex;
      };
      const b: Bounds<string> = { lo: enc(lo), hi: enc(hi), loInclusive, hiInclusive };
      return this.constant(boost, (seg) => M.termRangeMatch(seg, q.field, b));
    }
    if (fm.type === 'constant_keyword') {
      if (fm.value === undefined) return NONE;
      const v = String(fm.value);
      const above = lo === undefined || (loInclusive ? v >= String(lo) : v > String(lo));
      const below = hi === undefined || (hiInclusive ? v <= String(hi) : v < String(hi));
      return above && below ? this.constant(boost, M.allDocs) : NONE;
    }
    if (fm.type === 'binary') throw new EsError(400, 'query_shard_exception', `Binary fields do not support searching`);
    if (fm.type === 'text' || fm.type === 'match_only_text' || isExactTermType(fm.type)) {
      const b: Bounds<string> = { lo: lo === undefined ? undefined : String(lo), hi: hi === undefined ? undefined : String(hi), loInclusive, hiInclusive };
      return this.constant(boost, (seg) => M.termRangeMatch(seg, q.field, b));
    }
    const b: Bounds<number> = {
      lo: lo === undefined ? undefined : this.number(fm, lo, false)!,
      hi: hi === undefined ? undefined : this.number(fm, hi, false)!,
      loInclusive,
      hiInclusive,
    };
    if (b.lo === null || b.hi === null) return NONE;
    const pred = M.numericRange(b);
    return this.constant(boost, (seg) => M.numericMatch(seg, q.field, pred));
  }

  /**
   * ES `range` on `date`/`date_nanos`: bounds parsed with the query's `format` (else the field's),
   * in `time_zone`, with date math (`now-1d/d`, `2020-01-01||+1M`); `gt` and `lte` round up to the
   * unit's last millisecond. `date_nanos` compares epoch nanoseconds.
   */
  private dateRange(q: Extract<Query, { kind: 'range' }>, fm: FieldMapping, boost: number): Plan {
    const format = q.format ?? fm.format ?? (fm.type === 'date' ? DEFAULT_DATE_FORMAT : DEFAULT_DATE_NANOS_FORMAT);
    let zone: TimeZone | undefined;
    if (q.timeZone !== undefined) {
      const z = parseTimeZone(q.timeZone);
      if (!z) throw new EsError(400, 'illegal_argument_exception', `Unknown time-zone ID: ${q.timeZone}`);
      zone = z;
    }
    const now = nowMs();
    const parse = (v: TermValue, roundUp: boolean): number => {
      let i;
      try {
        i = typeof v === 'string' ? parseDateMath(v, { format, zone, roundUp, nowMs: now }) : parseDateMath(String(v), { format, zone, roundUp, nowMs: now });
      } catch (e) {
        if (e instanceof DateMathError) throw badDate(v, format, e.message);
        throw e;
      }
      if (!i) throw badDate(v, format);
      return fm.type === 'date' ? i.ms : i.ms * 1e6 + i.nanos;
    };
    const b: Bounds<number> = {
      lo: q.gt !== undefined ? parse(q.gt, true) : q.gte !== undefined ? parse(q.gte, false) : undefined,
      hi: q.lt !== undefined ? parse(q.lt, false) : q.lte !== undefined ? parse(q.lte, true) : undefined,
      loInclusive: q.gt === undefined,
      hiInclusive: q.lt === undefined,
    };
    const pred = M.numericRange(b);
    return this.constant(boost, (seg) => M.numericMatch(seg, q.field, pred));
  }
}

/** Milliseconds of "now" for date math: one value per compiled query. */
function nowMs(): number {
  return Date.now();
}

/** `values` as strings: the array itself when every value is one already (a 60,000-value list is not copied). */
function asStrings(values: readonly TermValue[]): readonly string[] {
  for (const v of values) if (typeof v !== 'string') return values.map(String);
  return values as readonly string[];
}
