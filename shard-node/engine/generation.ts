/**
 * An immutable refresh generation (Lucene's point-in-time `DirectoryReader`): a list of segments
 * with a frozen live-docs bitset each. Searches, dfs and fetches read one generation, so they never
 * see writes that happened after its refresh.
 *
 * Term statistics are Lucene's: per segment, summed over segments, and they still count deleted
 * documents until a merge drops them (as ES without dfs does).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/index/DirectoryReader.html
 */
import type { FieldMapping, Mapping } from '../../protocol/mapping.ts';
import { flatFields } from '../../protocol/mapping.ts';
import { ownValue, setOwn } from '../../shared/own-keys.ts';
import type {
  FetchedDoc,
  FieldStatistics,
  HitExtras,
  ScoringStatistics,
  ShardCollapse,
  ShardGroups,
  ShardHit,
  SourceFilter,
  TermStatistics,
  TrackTotalHits,
} from '../../protocol/search.ts';
import type { Query } from '../../protocol/query-ast.ts';
import type { SortField, SortValue } from '../../protocol/sort.ts';
import { sortNeedsScores } from '../../protocol/sort.ts';
import { filterSourceText } from '../../shared/raw-json.ts';
import { storedSourceFilter } from '../../shared/source-mapping.ts';
import { collect, searchAfterValues, type SegmentMatches } from './collector.ts';
import { IGNORED_FIELD } from './doc-parser.ts';
import { collectGroups } from './collapse-collect.ts';
import { rescoreHits } from './rescore.ts';
import type { Rescore } from '../../protocol/rescore.ts';
import { afterRank, presortedQuery, presortedServes } from './selection.ts';
import { DEFAULT_SLICE_MS } from '../../shared/event-loop-slices.ts';
import { runSliced, type SliceClock, type Steps } from '../../shared/sliced-work.ts';
import type { ValueList } from './matchers.ts';
import type { SegmentView } from './segment-merge.ts';
import type { Plan, StatsSource } from './query-compile.ts';
import { QueryCompiler } from './query-compile.ts';
import { prefixRange, type TermDictionary } from './multi-term.ts';
import { evaluate } from './query-exec.ts';
import { hitExtras, ignoredFields, type HitFetch } from './hit-fetch.ts';

/** Input of {@link Generation.query} (the shard part of `QueryPhaseRequest`). */
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

/** Output of {@link Generation.query}. */
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

function flat(mapping: Mapping): Map<string, FieldMapping> {
  return flatFields(mapping) as Map<string, FieldMapping>;
}

/** One immutable refresh generation of a shard. */
export class Generation {
  /** Monotonic per shard. */
  readonly id: number;
  readonly views: readonly SegmentView[];
  /** Doc base of each segment (for `_doc` sort values). */
  readonly bases: readonly number[];
  private readonly getMapping: () => Mapping;
  /** The last plan compiled per query object, with what it was compiled against and its value lists (see {@link Generation.plan}). */
  private readonly plans = new WeakMap<Query, { stats: ScoringStatistics | undefined; mapping: Mapping; plan: Plan; lists: ValueList[] }>();
  /** Segment matches computed ahead in slices ({@link Generation.prepareQuery}), per query object, until the query takes them. */
  private readonly prepared = new WeakMap<Query, { plan: Plan; scoring: boolean; parts: SegmentMatches[] }>();

  constructor(id: number, views: readonly SegmentView[], getMapping: () => Mapping) {
    this.id = id;
    this.views = views;
    let b = 0;
    this.bases = views.map((v) => {
      const base = b;
      b += v.segment.maxDoc;
      return base;
    });
    this.getMapping = getMapping;
  }

  private routedMemo: boolean | undefined;
  private hitMetadataMemo: boolean | undefined;

  /** True when some document of this generation was indexed with a custom routing (its hits show `_routing`). */
  get hasRouting(): boolean {
    return (this.routedMemo ??= this.views.some((v) => v.segment.routings !== null));
  }

  /**
   * True when some document's hit shows metadata beyond `_id`: a custom routing (`_routing`) or
   * fields whose values were not indexed (`_ignored`, doc-parser.ts).
   */
  get hasHitMetadata(): boolean {
    return (this.hitMetadataMemo ??= this.hasRouting || this.views.some((v) => v.segment.inverted.has(IGNORED_FIELD)));
  }

  /** Live documents. */
  get docCount(): number {
    return this.views.reduce((s, v) => s + v.liveCount, 0);
  }

  /** Deleted documents not yet merged away. */
  get deletedCount(): number {
    return this.views.reduce((s, v) => s + v.segment.maxDoc - v.liveCount, 0);
  }

  /** Lucene `CollectionStatistics` of a field over this generation (deleted docs included). */
  fieldStats(field: string): FieldStatistics {
    let docCount = 0;
    let sumTotalTermFreq = 0;
    for (const v of this.views) {
      const inv = v.segment.inverted.get(field);
      if (inv) {
        docCount += inv.docCount;
        sumTotalTermFreq += inv.sumTotalTermFreq;
      }
    }
    return { docCount, sumTotalTermFreq };
  }

  /** Lucene `TermStatistics` of a term over this generation (deleted docs included). */
  termStats(field: string, term: string): TermStatistics {
    let docFreq = 0;
    let totalTermFreq = 0;
    for (const v of this.views) {
      const pl = v.segment.inverted.get(field)?.terms.get(term);
      if (pl) {
        docFreq += pl.docs.length;
        totalTermFreq += pl.totalTermFreq;
      }
    }
    return { docFreq, totalTermFreq };
  }

  /** The terms of each field over this generation's segments, for multi-term queries (multi-term.ts). */
  private readonly dictionary: TermDictionary = {
    forEachTerm: (field, fn) => {
      for (const v of this.views) {
        const inv = v.segment.inverted.get(field);
        if (inv) for (const t of inv.terms.keys()) fn(t);
      }
    },
    forEachWithPrefix: (field, prefix, fn) => {
      for (const v of this.views) {
        const sorted = v.segment.sortedTerms(field);
        const [from, to] = prefixRange(sorted, prefix);
        for (let i = from; i < to; i++) fn(sorted[i]);
      }
    },
    size: (field) => {
      let n = 0;
      for (const v of this.views) n += v.segment.inverted.get(field)?.terms.size ?? 0;
      return n;
    },
  };

  private localStats(): StatsSource {
    return { field: (f) => this.fieldStats(f), term: (f, t) => this.termStats(f, t) };
  }

  /**
   * ES's dfs phase: the statistics of every term this query scores, and of their fields, keyed as
   * in protocol/search.ts (`ScoringStatistics`). Merged over shards they make scores independent of the shard layout.
   */
  dfs(query: Query): ScoringStatistics {
    const out: ScoringStatistics = { terms: {}, fields: {} };
    const recorder: StatsSource = {
      field: (f) => {
        const stats = this.fieldStats(f);
        setOwn(out.fields, f, stats); // a field may be called `__proto__`
        return stats;
      },
      term: (f, t) => {
        const stats = this.termStats(f, t);
        setOwn(out.terms, termKey(f, t), stats);
        return stats;
      },
    };
    new QueryCompiler(flat(this.getMapping()), recorder, this.dictionary).compile(query);
    return out;
  }

  /** The index mapping as it is now (what a fetch compiles its `fields` against). */
  mapping(): Mapping {
    return this.getMapping();
  }

  /** The index mapping flattened to field paths (cached per mapping object). */
  fields(): Map<string, FieldMapping> {
    return flat(this.getMapping());
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
      return ahead.parts;
    }
    return this.views.map((v, i) => ({ seg: v.segment, base: this.bases[i], live: v.live, m: evaluate(plan, v.segment, scoring) }));
  }

  /**
   * Does the heavy part of {@link Generation.query} ahead, in event-loop slices of about `sliceMs`:
   * builds the hash tables of the query's `terms`/`ids` value lists (60,000 values took one task) and, when
   * the presorted path will not serve it, evaluates the query segment by segment, pausing between
   * segments; the synchronous query that follows then finds them (docs/reliability.md, the abuse
   * suite). The results are the ones the query computes itself: the generation does not change.
   * @throws EsError 400 for an invalid query (the promise rejects).
   */
  async prepareQuery(input: QueryInput, sliceMs = DEFAULT_SLICE_MS): Promise<void> {
    const plan = this.plan(input.query, input.stats);
    const lists = this.plans.get(input.query)!.lists;
    const scoring = sortNeedsScores(input.sort) || input.trackScores === true;
    if (lists.length > 0) {
      await runSliced(function* (clock) {
        for (const list of lists) yield* list.prepareSteps(clock);
      }, sliceMs);
    }
    if (input.k > 0 && !input.collapse && presortedServes(this, input)) return;
    const parts = await runSliced((clock) => this.matchSteps(plan, scoring, clock), sliceMs);
    if (this.plan(input.query, input.stats) === plan) this.prepared.set(input.query, { plan, scoring, parts });
  }

  /** The matches of `plan` in each segment, pausing between segments when the clock is due. */
  private *matchSteps(plan: Plan, scoring: boolean, clock: SliceClock): Steps<SegmentMatches[]> {
    const parts: SegmentMatches[] = [];
    for (const [i, v] of this.views.entries()) {
      parts.push({ seg: v.segment, base: this.bases[i], live: v.live, m: evaluate(plan, v.segment, scoring) });
      if (clock.due()) yield;
    }
    return parts;
  }

  /**
   * Compiles `query` against this generation's mapping and statistics (with `stats` from dfs,
   * those for every scored term they hold; local ones otherwise). The plan is kept per query object
   * (weakly), so the phases of one request that compile the same query (a sliced order build, then
   * the query itself) compile a 60,000-value `terms` list once.
   * @throws EsError 400 for an invalid query.
   */
  plan(query: Query, stats: ScoringStatistics | undefined): Plan {
    const mapping = this.getMapping();
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
    const compiler = new QueryCompiler(this.fields(), source, this.dictionary);
    return { plan: compiler.compile(query), lists: compiler.valueLists };
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
    if (input.searchAfter) input = { ...input, searchAfter: { ...input.searchAfter, sort: searchAfterValues(input.searchAfter.sort, input.sort, this.fields()) } };
    if (input.rescore && input.rescore.length > 0 && input.k > 0) return this.rescoredQuery(input, input.rescore);
    if (input.collapse) return this.collapsedQuery(input, input.collapse);
    const pq = input.k > 0 ? presortedQuery(this, input) : null;
    if (pq) {
      const order = pq.filtered();
      const key = (r: number) => pq.keyOf(order.segs[r], order.ords[r]);
      let r = input.searchAfter ? afterRank(order.ords.length, key, input.searchAfter, input.sort) : 0;
      const hits: ShardHit[] = [];
      for (; r < order.ords.length && hits.length < input.k; r++) {
        const k = key(r);
        hits.push({ _id: k._id, _score: pq.score, sort: k.sort });
      }
      return { total: { value: pq.total, relation: 'eq' }, max_score: pq.total > 0 ? pq.score : null, hits };
    }
    const scoring = sortNeedsScores(input.sort) || input.trackScores === true;
    const parts = this.segmentMatches(input.query, input.stats, scoring);
    const r = collect(parts, { sort: input.sort, k: input.k, searchAfter: input.searchAfter }, this.fields());
    return { total: { value: r.total, relation: 'eq' }, max_score: r.maxScore, hits: r.hits };
  }

  /** The query phase of a collapsed search: every match is grouped (collapse-collect.ts), never the presorted path. */
  private collapsedQuery(input: QueryInput, collapse: ShardCollapse): QueryOutput {
    const scoring = sortNeedsScores(input.sort) || input.trackScores === true;
    const parts = this.segmentMatches(input.query, input.stats, scoring);
    const r = collectGroups(parts, { sort: input.sort, k: input.k, ...(input.searchAfter ? { searchAfter: input.searchAfter } : {}), collapse }, this.fields());
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

  /** Number of live documents matching `query` (all live docs when absent). */
  count(query?: Query): number {
    if (!query) return this.docCount;
    const plan = new QueryCompiler(flat(this.getMapping()), this.localStats(), this.dictionary).compile(query);
    let n = 0;
    for (const v of this.views) {
      const { docs } = evaluate(plan, v.segment, false);
      if (!v.live) n += docs.length;
      else for (const d of docs) n += v.live[d];
    }
    return n;
  }

  /** Locates a live document by `_id`. */
  private locate(id: string): { view: SegmentView; ord: number } | null {
    for (let i = this.views.length - 1; i >= 0; i--) {
      const v = this.views[i];
      const ord = v.segment.idToOrd.get(id);
      if (ord >= 0 && (!v.live || v.live[ord])) return { view: v, ord };
    }
    return null;
  }

  /**
   * A live document of this generation by `_id`, as a non-real-time GET reads it (ES `realtime=false`
   * reads the last refreshed searcher): its version, seq_no, custom routing and stored `_source` text; null when
   * this generation has no live copy.
   */
  getDoc(id: string): { version: number; seqNo: number; routing?: string; ignored?: string[]; source: string } | null {
    const loc = this.locate(id);
    if (!loc) return null;
    const seg = loc.view.segment;
    const routing = seg.routings?.get(loc.ord);
    const ignored = ignoredFields(seg, loc.ord);
    return {
      version: seg.versions[loc.ord], seqNo: seg.seqNos[loc.ord], ...(routing !== undefined ? { routing } : {}), ...(ignored !== undefined ? { ignored } : {}), source: seg.source(loc.ord),
    };
  }

  /**
   * The fetch phase: `_source` text of each id (the stored text as is when unfiltered, else filtered
   * as ES `_source`: see {@link filterSourceText}), with what `hit` adds (`_routing`, `_version`,
   * `fields`…: hit-fetch.ts), null for ids not live here.
   */
  fetch(ids: readonly string[], sourceFilter: SourceFilter = true, hit?: HitFetch): (FetchedDoc | null)[] {
    const shown = storedSourceFilter(this.getMapping()); // the mapping's `_source` view, once per call
    return ids.map((id) => {
      const loc = this.locate(id);
      if (!loc) return null;
      const seg = loc.view.segment;
      const extras = hit ? hitExtras(hit, seg, loc.ord, () => JSON.parse(seg.source(loc.ord)) as Record<string, unknown>) : null;
      const doc: FetchedDoc = extras ? { _id: id, ...extras } : { _id: id };
      if (sourceFilter === false) return doc;
      const stored = shown === true ? seg.source(loc.ord) : filterSourceText(seg.source(loc.ord), shown);
      const src = stored === undefined ? undefined : filterSourceText(stored, sourceFilter);
      if (src !== undefined) doc._source = src;
      return doc;
    });
  }

  /**
   * The fused fetch's {@link HitExtras} of each id (null: none, or not live here), or undefined
   * when no hit has any (the reply then carries no `extras`).
   */
  extrasOf(ids: readonly string[], hit: HitFetch): (HitExtras | null)[] | undefined {
    let any = false;
    const out = ids.map((id) => {
      const loc = this.locate(id);
      if (!loc) return null;
      const seg = loc.view.segment;
      const e = hitExtras(hit, seg, loc.ord, () => JSON.parse(seg.source(loc.ord)) as Record<string, unknown>);
      if (e) any = true;
      return e;
    });
    return any ? out : undefined;
  }

  /**
   * The fused fetch of a query-phase reply: each hit's `_source` as JSON text, filtered as
   * {@link Generation.fetch} filters it (the stored text as is when unfiltered: no parse). Null
   * where the filter leaves nothing, `_source` is false, or the id is not live here (never for
   * ids this generation's query just returned).
   */
  sourceTexts(ids: readonly string[], sourceFilter: SourceFilter): (string | null)[] {
    const shown = storedSourceFilter(this.getMapping()); // the mapping's `_source` view, once per call
    return ids.map((id) => {
      if (sourceFilter === false) return null;
      const loc = this.locate(id);
      if (!loc) return null;
      const text = loc.view.segment.source(loc.ord);
      const stored = shown === true ? text : filterSourceText(text, shown);
      return stored === undefined ? null : (filterSourceText(stored, sourceFilter) ?? null);
    });
  }

  /**
   * The whole stored source text of a live document (whatever the mapping's `_source` shows, for
   * what ES reads from doc values: exact sort values), or null when it is not live here.
   */
  storedSourceText(id: string): string | null {
    const loc = this.locate(id);
    return loc ? loc.view.segment.source(loc.ord) : null;
  }
}
