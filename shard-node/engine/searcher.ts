/**
 * How one generation is searched (Lucene's `IndexSearcher` beside the `DirectoryReader` it reads):
 * compiling a query against the generation's mapping and statistics, the query phase (top `k` by
 * the sort, from a presorted order or collected; collapse and rescore), counts, the dfs phase,
 * the selection rounds of deep pages, and the entry points of shard aggregations. The reader
 * ({@link Generation}) only holds the segments and reads them: documents, sources, statistics.
 *
 * A searcher keeps per-query caches (the compiled plan, matches prepared in slices), so there is
 * one per generation ({@link searcherOf}); it goes with its generation.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/search/IndexSearcher.html
 */
import { ownValue, setOwn } from '../../shared/own-keys.ts';
import type { AggNode } from '../../protocol/agg-request.ts';
import type { AggPartial, TermsPartial, TermsRefineTask } from '../../protocol/aggs.ts';
import type { ScoringStatistics, SelectionBound, ShardCollapse, ShardGroups, ShardHit, TrackTotalHits } from '../../protocol/search.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import type { Query } from '../../protocol/query-ast.ts';
import type { Rescore } from '../../protocol/rescore.ts';
import type { SortField, SortKey, SortValue } from '../../protocol/sort.ts';
import { sortNeedsScores } from '../../protocol/sort.ts';
import { DEFAULT_SLICE_MS } from '../../shared/event-loop-slices.ts';
import { runSliced, type SliceClock, type Steps } from '../../shared/sliced-work.ts';
import { collectShardAggs, refineShardAggs } from './aggs/shard-aggs.ts';
import { collectGroups } from './collapse-collect.ts';
import { collect, searchAfterValues, type SegmentMatches } from './collector.ts';
import type { Generation } from './generation.ts';
import type { ValueList } from './matchers.ts';
import { QueryCompiler } from './query-compile.ts';
import type { Plan, StatsSource } from './query-plan.ts';
import { countMatches, evaluate } from './query-exec.ts';
import { rescoreHits } from './rescore.ts';
import {
  afterRank,
  preparePresorted,
  presortedQuery,
  presortedServes,
  rangeOfMatches,
  sampleMatches,
  sortedMatches,
  type SelectInput,
  type SortedMatches,
} from './selection.ts';

/** Input of {@link Searcher.query} (the shard part of `QueryPhaseRequest`). */
export interface QueryInput {
  query: Query;
  sort: readonly SortField[];
  k: number;
  searchAfter?: { sort: SortValue[]; _id?: string };
  trackTotalHits: TrackTotalHits;
  stats?: ScoringStatistics;
  /** ES `track_scores`: compute scores (and `max_score`) even when the sort has no `_score`. */
  trackScores?: boolean;
  /** ES `rescore` (the sort is `_score` first: the coordinator's plan checked it). */
  rescore?: readonly Rescore[];
  /** ES `collapse`: the top `k` groups (collapse-collect.ts); the sort ends with the key clause. */
  collapse?: ShardCollapse;
}

/** Output of {@link Searcher.query}. */
export interface QueryOutput {
  total: { value: number; relation: 'eq' | 'gte' };
  max_score: number | null;
  hits: ShardHit[];
  /** With {@link QueryInput.collapse}: the distinct keys counted (and listed when asked). */
  groups?: ShardGroups;
}

/** Key of a term in {@link ScoringStatistics.terms}: `field\u0000term`. */
export function termKey(field: string, term: string): string {
  return field + '\u0000' + term;
}

const searchers = new WeakMap<Generation, Searcher>();

/**
 * Whether the query phase computes scores: for a sort on `_score` when hits are collected, or
 * `track_scores`. A `size: 0` search (a count, or aggregations) scores nothing, as ES counts
 * with a `TotalHitCountCollector` and answers `max_score: null`; scoring a count's 117,000 matches
 * with BM25 tripled its cost (docs/performance.md).
 */
function queryScores(input: QueryInput): boolean {
  return input.trackScores === true || (input.k > 0 && sortNeedsScores(input.sort));
}

/** The searcher of `reader`, made on first use and kept as long as the generation lives. */
export function searcherOf(reader: Generation): Searcher {
  let s = searchers.get(reader);
  if (!s) searchers.set(reader, (s = new Searcher(reader)));
  return s;
}

/** Searches one immutable generation. Obtain it with {@link searcherOf} so that its caches are shared. */
export class Searcher {
  /** The generation searched. */
  readonly reader: Generation;
  /** The last plan compiled per query object, with what it was compiled against and its value lists (see {@link Searcher.plan}). */
  private readonly plans = new WeakMap<Query, { stats: ScoringStatistics | undefined; mapping: Mapping; plan: Plan; lists: ValueList[] }>();
  /** Segment matches computed ahead in slices ({@link Searcher.prepareQuery}), per query object, until the query takes them. */
  private readonly prepared = new WeakMap<Query, { plan: Plan; scoring: boolean; parts: SegmentMatches[] }>();
  /**
   * The matches last evaluated, for the next phase of the same request on the same query object: a
   * search with `aggs` collects them over the matches its query phase just found (ES's aggregation
   * collectors run in the query phase's one pass). One slot, so it holds at most one query's matches.
   */
  private last: { query: Query; plan: Plan; scoring: boolean; parts: SegmentMatches[] } | null = null;

  constructor(reader: Generation) {
    this.reader = reader;
  }

  /** The generation's own statistics (deleted docs included, as Lucene's). */
  private localStats(): StatsSource {
    const r = this.reader;
    return { field: (f) => r.fieldStats(f), term: (f, t) => r.termStats(f, t) };
  }

  /**
   * ES's dfs phase: the statistics of every term this query scores, and of their fields, keyed as
   * in protocol/search.ts (`ScoringStatistics`). Merged over shards they make scores independent of the shard layout.
   */
  dfs(query: Query): ScoringStatistics {
    const r = this.reader;
    const out: ScoringStatistics = { terms: {}, fields: {} };
    const recorder: StatsSource = {
      field: (f) => {
        const stats = r.fieldStats(f);
        setOwn(out.fields, f, stats); // a field may be called `__proto__`
        return stats;
      },
      term: (f, t) => {
        const stats = r.termStats(f, t);
        setOwn(out.terms, termKey(f, t), stats);
        return stats;
      },
    };
    new QueryCompiler(r.fields(), recorder, r.dictionary).compile(query);
    return out;
  }

  /**
   * Compiles `query` against this generation's mapping and statistics (with `stats` from dfs,
   * those for every scored term they hold; local ones otherwise). The plan is kept per query object
   * (weakly), so the phases of one request that compile the same query (a sliced order build, then
   * the query itself) compile a 60,000-value `terms` list once.
   * @throws EsError 400 for an invalid query.
   */
  plan(query: Query, stats: ScoringStatistics | undefined): Plan {
    const mapping = this.reader.mapping();
    const memo = this.plans.get(query);
    if (memo && memo.stats === stats && memo.mapping === mapping) return memo.plan;
    const { plan, lists } = this.compile(query, stats);
    this.plans.set(query, { stats, mapping, plan, lists });
    return plan;
  }

  private compile(query: Query, stats: ScoringStatistics | undefined): { plan: Plan; lists: ValueList[] } {
    const local = this.localStats();
    const g = stats;
    const source: StatsSource = g
      ? {
          field: (f) => ownValue(g.fields, f) ?? local.field(f),
          term: (f, t) => ownValue(g.terms, termKey(f, t)) ?? local.term(f, t),
        }
      : local;
    const compiler = new QueryCompiler(this.reader.fields(), source, this.reader.dictionary);
    return { plan: compiler.compile(query), lists: compiler.valueLists };
  }

  /**
   * Evaluates `query` on every segment: matches (deleted docs included) with the segment, its doc
   * base and live docs. With `stats` (dfs), those statistics are used for every scored term (local
   * ones only for terms the stats lack); scores are computed only when `scoring`.
   */
  segmentMatches(query: Query, stats: ScoringStatistics | undefined, scoring: boolean): SegmentMatches[] {
    const plan = this.plan(query, stats);
    const ahead = this.prepared.get(query);
    if (ahead && ahead.plan === plan && ahead.scoring === scoring) {
      this.prepared.delete(query);
      this.last = { query, ...ahead };
      return ahead.parts;
    }
    const last = this.last;
    // Scored matches serve an unscored caller too (the same docs; it ignores the scores).
    if (last && last.query === query && last.plan === plan && (last.scoring === scoring || !scoring)) return last.parts;
    const { views, bases } = this.reader;
    const parts = views.map((v, i) => ({ seg: v.segment, base: bases[i], live: v.live, m: evaluate(plan, v.segment, scoring) }));
    this.last = { query, plan, scoring, parts };
    return parts;
  }

  /**
   * Does the heavy part of {@link Searcher.query} ahead, in event-loop slices of about `sliceMs`:
   * builds the hash tables of the query's `terms`/`ids` value lists (60,000 values took one task) and, when
   * the presorted path will not serve it, evaluates the query segment by segment, pausing between
   * segments; the synchronous query that follows then finds them (docs/reliability.md, the abuse
   * suite). The results are the ones the query computes itself: the generation does not change.
   * @throws EsError 400 for an invalid query (the promise rejects).
   */
  async prepareQuery(input: QueryInput, sliceMs = DEFAULT_SLICE_MS): Promise<void> {
    const plan = this.plan(input.query, input.stats);
    const lists = this.plans.get(input.query)!.lists;
    const scoring = queryScores(input);
    if (lists.length > 0) {
      await runSliced(function* (clock) {
        for (const list of lists) yield* list.prepareSteps(clock);
      }, sliceMs);
    }
    if (input.k > 0 && !input.collapse && presortedServes(this, input)) return;
    // A count of a term reads its docFreq per segment (query-exec.ts countMatches): nothing to evaluate ahead.
    if (input.k === 0 && !input.searchAfter && !input.collapse && !scoring && (plan.t === 'term' || plan.t === 'none')) return;
    const parts = await runSliced((clock) => this.matchSteps(plan, scoring, clock), sliceMs);
    if (this.plan(input.query, input.stats) === plan) this.prepared.set(input.query, { plan, scoring, parts });
  }

  /** The matches of `plan` in each segment, pausing between segments when the clock is due. */
  private *matchSteps(plan: Plan, scoring: boolean, clock: SliceClock): Steps<SegmentMatches[]> {
    const parts: SegmentMatches[] = [];
    const { views, bases } = this.reader;
    for (const [i, v] of views.entries()) {
      parts.push({ seg: v.segment, base: bases[i], live: v.live, m: evaluate(plan, v.segment, scoring) });
      if (clock.due()) yield;
    }
    return parts;
  }

  /**
   * Builds, in event-loop slices, the presorted order the query phase or a selection round of
   * `input` will read (nothing when none serves it): selection.ts `preparePresorted`.
   * @throws EsError 400 for an unsortable field or an invalid query (the promise rejects).
   */
  preparePresorted(input: SelectInput): Promise<void> {
    return preparePresorted(this, input);
  }

  /**
   * The query phase: this shard's top `k` in `compareHits` order. Scores are computed only when the
   * sort contains `_score` (or with `trackScores`); then `max_score` is the max over all matches, else null. Totals are
   * always exact (`eq`), which every `trackTotalHits` setting allows. With `stats` (dfs), those
   * statistics are used for every scored term (local ones only for terms the stats lack).
   * Sorts a presorted order serves (field, `_id`, `_doc` clauses; `_score` when the query scores
   * every match the same) read it: the top k is a prefix of the order restricted to the matches
   * (built once per generation, query and sort, then cached: selection.ts), `search_after` a
   * binary search; `_score` sorts on varying scores collect.
   */
  query(input: QueryInput): QueryOutput {
    const fields = this.reader.fields();
    if (input.searchAfter) input = { ...input, searchAfter: { ...input.searchAfter, sort: searchAfterValues(input.searchAfter.sort, input.sort, fields) } };
    if (input.rescore && input.rescore.length > 0 && input.k > 0) return this.rescoredQuery(input, input.rescore);
    if (input.collapse) return this.collapsedQuery(input, input.collapse);
    // A count (`size: 0`, nothing scored): ES's TotalHitCountCollector over Lucene's Weight.count.
    if (input.k === 0 && !input.searchAfter && !queryScores(input))
      return { total: { value: this.count(input.query), relation: 'eq' }, max_score: null, hits: [] };
    const pq = input.k > 0 ? presortedQuery(this, input) : null;
    if (pq) {
      const order = pq.filtered();
      const key = (r: number): SortKey => pq.keyOf(order.segs[r], order.ords[r]);
      let r = input.searchAfter ? afterRank(order.ords.length, key, input.searchAfter, input.sort) : 0;
      const hits: ShardHit[] = [];
      for (; r < order.ords.length && hits.length < input.k; r++) {
        const k = key(r);
        hits.push({ _id: k._id, _score: pq.score, sort: k.sort });
      }
      return { total: { value: pq.total, relation: 'eq' }, max_score: pq.total > 0 ? pq.score : null, hits };
    }
    const parts = this.segmentMatches(input.query, input.stats, queryScores(input));
    const r = collect(parts, { sort: input.sort, k: input.k, searchAfter: input.searchAfter }, fields);
    return { total: { value: r.total, relation: 'eq' }, max_score: r.maxScore, hits: r.hits };
  }

  /** The query phase of a collapsed search: every match is grouped (collapse-collect.ts), never the presorted path. */
  private collapsedQuery(input: QueryInput, collapse: ShardCollapse): QueryOutput {
    const scoring = sortNeedsScores(input.sort) || input.trackScores === true;
    const parts = this.segmentMatches(input.query, input.stats, scoring);
    const r = collectGroups(
      parts,
      { sort: input.sort, k: input.k, ...(input.searchAfter ? { searchAfter: input.searchAfter } : {}), collapse },
      this.reader.fields(),
    );
    return { total: { value: r.total, relation: 'eq' }, max_score: r.maxScore, hits: r.hits, groups: r.groups };
  }

  /**
   * The query phase with ES's rescore phase after it: the top max(k, window_size) hits, rescored
   * (rescore.ts), then the top k of those; `max_score` is the best rescored score (ES takes the
   * first rescored hit's).
   */
  private rescoredQuery(input: QueryInput, rescores: readonly Rescore[]): QueryOutput {
    const window = Math.max(input.k, ...rescores.map((r) => r.windowSize));
    const first = this.query({ ...input, k: window, rescore: undefined });
    const hits = rescoreHits(first.hits, rescores, input.sort, input.k, (q) => this.segmentMatches(q, input.stats, true));
    return { total: first.total, max_score: hits.length > 0 ? hits[0]._score : first.max_score, hits };
  }

  /**
   * Number of live documents matching `query` (all live docs when absent), per segment by
   * query-exec.ts `countMatches` (a term without deletions is its `docFreq`), or from the matches
   * a sliced prepare or the previous query already evaluated.
   */
  count(query?: Query): number {
    const r = this.reader;
    if (!query) return r.docCount;
    const ahead = this.prepared.get(query) ?? (this.last?.query === query ? this.last : undefined);
    const plan = ahead?.plan ?? new QueryCompiler(r.fields(), this.localStats(), r.dictionary).compile(query);
    let n = 0;
    r.views.forEach((v, i) => {
      const docs = ahead?.parts[i]?.m.docs;
      if (docs === undefined) n += countMatches(plan, v.segment, v.live);
      else if (!v.live) n += docs.length;
      else for (const d of docs) n += v.live[d];
    });
    return n;
  }

  /**
   * This generation's matches of `input.query` in the global order of `input.sort`, by rank
   * (selection.ts `sortedMatches`).
   * @throws EsError 400 for an unsortable field or an invalid query (as the query phase).
   */
  sortedMatches(input: SelectInput): SortedMatches {
    return sortedMatches(this, input);
  }

  /**
   * The sample round of exact selection (docs/selection.md): the match count, max score and the
   * keys at evenly spaced ranks, with the presorted order built in slices first.
   * @throws EsError 400 for an unsortable field or an invalid query (the promise rejects).
   */
  async sample(input: SelectInput, samples: number): Promise<ReturnType<typeof sampleMatches>> {
    await this.preparePresorted(input);
    return sampleMatches(this.sortedMatches(input), samples);
  }

  /**
   * The range round of exact selection: how many matches sort before `lower`, and the matches in
   * [lower, upper), at most `limit`, with the presorted order built in slices first.
   * @throws EsError 400 for an unsortable field or an invalid query (the promise rejects).
   */
  async range(
    input: SelectInput,
    lower: SelectionBound | undefined,
    upper: SelectionBound | undefined,
    limit: number,
  ): Promise<{ before: number; hits: ShardHit[] }> {
    await this.preparePresorted(input);
    return rangeOfMatches(this.sortedMatches(input), lower, upper, limit);
  }

  /** The shard's aggregation partials over the live matches of `query` (aggs/shard-aggs.ts). */
  aggs(nodes: readonly AggNode[], query: Query, candidates?: number, index?: string): AggPartial[] {
    return collectShardAggs(this, nodes, query, candidates, index);
  }

  /** The exact terms refinement tasks over the live matches of `query` (aggs/shard-aggs.ts). */
  refineAggs(nodes: readonly AggNode[], query: Query, tasks: readonly TermsRefineTask[], index?: string): TermsPartial[] {
    return refineShardAggs(this, nodes, query, tasks, index);
  }
}
