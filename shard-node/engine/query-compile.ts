/**
 * Compiles a shared {@link Query} tree into an executable plan with its BM25 weights resolved, as
 * Lucene's `IndexSearcher.createWeight` does: boosts are pushed down to the leaves, and each scored
 * term gets `boost * idf` and its length-norm cache from the statistics (local or dfs).
 * ES query-to-Lucene rules mirrored here are noted per query kind. This module dispatches on the kind
 * and compiles the compound queries (`bool`, `dis_max`, `constant_score`) and metadata-field queries;
 * each query family has its compiler: term-level-compile.ts (exact values, ranges), multi-term-compile.ts
 * (prefix, wildcard, fuzzy, regexp) and full-text-compile.ts (match family, multi_match, query_string
 * fields), all reading the compiler through query-plan.ts `CompileContext`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl.html
 */
import { EsError } from '../../protocol/errors.ts';
import type { FieldMapping } from '../../protocol/mapping.ts';
import { aliasesOf, concreteFields } from '../../protocol/mapping.ts';
import { MAX_CLAUSE_COUNT } from '../../protocol/query-ast.ts';
import type { Query } from '../../protocol/query-ast.ts';
import { resolveMinimumShouldMatch } from '../../protocol/query-ast.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';
import { IGNORED_FIELD } from './doc-parser.ts';
import * as M from './matchers.ts';
import { ScanBudget, type MultiTermContext, type TermDictionary } from './multi-term.ts';
import { boolPrefix, match, multiField, multiMatch, phrase, phrasePrefix } from './full-text-compile.ts';
import { constantPlan, f, NONE, type CompileContext, type Plan, type StatsSource } from './query-plan.ts';
import { sliceMatch } from './slice-match.ts';
import { avgFieldLength, Bm25Scorer, idf } from './similarity.ts';
import { fuzzyQuery, prefixQuery, regexp, wildcardQuery } from './multi-term-compile.ts';
import { asStrings, existsQuery, range, term, terms } from './term-level-compile.ts';

/** `_ignored` is searched as a keyword (ES `IgnoredFieldMapper`). */
const IGNORED_MAPPING: FieldMapping = { type: 'keyword' };

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

/** A dictionary with no terms (a compiler given none expands multi-term queries to nothing). */
const NO_TERMS: TermDictionary = { forEachTerm: () => {}, forEachWithPrefix: () => {}, size: () => 0 };

/** Compiles queries against one mapping and one statistics source (query-plan.ts `CompileContext` for the query families' compilers). */
export class QueryCompiler implements CompileContext {
  /** The mapped fields without aliases (what `*` patterns expand to). */
  readonly fields: ReadonlyMap<string, FieldMapping>;
  /** Field alias → the path it stands for (ES `FieldAliasMapper`); queries on an alias run on its path. */
  private readonly aliases: ReadonlyMap<string, string>;
  readonly stats: StatsSource;
  readonly multiTerm: MultiTermContext;
  readonly scans = new ScanBudget();
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
  field(name: string): FieldMapping | undefined {
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
  valueList(values: readonly string[]): M.ValueList {
    const list = new M.ValueList(values);
    this.valueLists.push(list);
    return list;
  }

  /** query-plan.ts `CompileContext.countFieldCopy`. @throws EsError 400 `too_many_nested_clauses` past 4,096 copies */
  countFieldCopy(): void {
    if (++this.fieldCopies > MAX_CLAUSE_COUNT) {
      throw new EsError(400, 'too_many_nested_clauses', `Query contains too many nested clauses; maxClauseCount is set to ${MAX_CLAUSE_COUNT}`);
    }
  }

  /** Compiles `q` with an outer boost (1 at the root). */
  compile(q: Query, boost = 1): Plan {
    // A field alias is its target's field type in ES (`MappingLookup.getFieldType`): the query runs on the path.
    if (this.aliases.size > 0 && 'field' in q) {
      const path = this.aliases.get(q.field);
      if (path !== undefined) return this.compile({ ...q, field: path }, boost);
    }
    const b = boost * q.boost;
    const meta = this.metadataQuery(q, b);
    if (meta) return meta;
    switch (q.kind) {
      case 'match_all':
        return constantPlan(b, M.allDocs);
      case 'match_none':
        return NONE;
      case 'match':
        return match(this, q.field, q.query, q.operator, q.minimumShouldMatch, b, q.field === '*', { analyzer: q.analyzer, fuzzy: q.fuzzy, query: 'match' });
      case 'match_phrase':
        return phrase(this, q.field, q.query, q.slop, b, q.field === '*');
      case 'multi_match':
        return multiMatch(this, q, b);
      case 'term':
        return term(this, q.field, q.value, q.caseInsensitive, b);
      case 'terms':
        return terms(this, q.field, q.values, b);
      case 'range':
        return range(this, q, b);
      case 'exists':
        return existsQuery(this, q, b);
      case 'prefix':
        return prefixQuery(this, q, b);
      case 'wildcard':
        return wildcardQuery(this, q, b);
      case 'fuzzy':
        return fuzzyQuery(this, q, b);
      case 'match_bool_prefix':
        return boolPrefix(this, q.field, q.query, q.operator, q.minimumShouldMatch, b, { analyzer: q.analyzer, fuzzy: q.fuzzy, query: 'match_bool_prefix' });
      case 'match_phrase_prefix':
        return phrasePrefix(this, q, b);
      case 'multi_field':
        return multiField(this, q, b);
      case 'terms_lookup':
        throw new Error('a terms lookup reached a shard: the coordinator resolves it before the query phase');
      case 'regexp':
        return regexp(this, q, b);
      case 'ids': {
        const ids = this.valueList(q.values);
        return constantPlan(b, (seg) => M.idsMatch(seg, ids));
      }
      case 'bool':
        return this.bool(q, b);
      case 'constant_score':
        return { t: 'constant', inner: this.compile(q.filter, 1), score: f(b) };
      case 'dis_max':
        return { t: 'dismax', queries: q.queries.map((c) => this.compile(c, b)), tie: q.tieBreaker };
      case 'slice':
        return constantPlan(b, (seg) => sliceMatch(seg, q.field, q.id, q.max));
    }
  }

  /**
   * Queries on metadata fields, or null: `_id` is a metadata field, so ES answers term, terms and
   * match on it as an ids query (constant score); `exists` on a metadata field (metadataExists).
   * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-id-field.html
   */
  private metadataQuery(q: Query, b: number): Plan | null {
    if ('field' in q && q.field === '_id') {
      if (q.kind === 'term') return constantPlan(b, (seg) => M.idsMatch(seg, [String(q.value)]));
      if (q.kind === 'terms') {
        const ids = this.valueList(asStrings(q.values));
        return constantPlan(b, (seg) => M.idsMatch(seg, ids));
      }
      if (q.kind === 'match' || q.kind === 'match_phrase') return constantPlan(b, (seg) => M.idsMatch(seg, [q.query]));
    }
    if (q.kind === 'exists' && q.field.startsWith('_')) {
      const meta = metadataExists(q.field);
      if (meta === 'all') return constantPlan(b, M.allDocs);
      if (meta === 'routed') return constantPlan(b, M.routedDocs);
    }
    return null;
  }

  /** ES `bool`: the scoring clauses get the boost, filters and must_not score nothing; no clause matches all. */
  private bool(q: Extract<Query, { kind: 'bool' }>, b: number): Plan {
    const must = q.must.map((c) => this.compile(c, b));
    const should = q.should.map((c) => this.compile(c, b));
    const filter = q.filter.map((c) => this.compile(c, 1));
    const mustNot = q.mustNot.map((c) => this.compile(c, 1));
    if (must.length + should.length + filter.length + mustNot.length === 0) return constantPlan(b, M.allDocs);
    const dflt = must.length + filter.length > 0 ? 0 : 1;
    const msm = resolveMinimumShouldMatch(q.minimumShouldMatch, should.length, dflt);
    return { t: 'bool', must, should, filter, mustNot, msm };
  }

  /** Field names matching a pattern (`name*`), or the name itself. */
  expand(field: string): string[] {
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
}
