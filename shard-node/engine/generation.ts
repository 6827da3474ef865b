/**
 * An immutable refresh generation (Lucene's point-in-time `DirectoryReader`): a list of segments
 * with a frozen live-docs bitset each, and what reading them answers: live documents by `_id`
 * (non-real-time get, the fetch phase, the fused fetch's `_source` texts), doc counts, and term
 * and field statistics. Searches, dfs and fetches read one generation, so they never see writes
 * that happened after its refresh. How a generation is searched (queries, collectors, sorted
 * reads, selection, aggregations) is the searcher's job (searcher.ts, Lucene's `IndexSearcher`).
 *
 * Term statistics are Lucene's: per segment, summed over segments, and they still count deleted
 * documents until a merge drops them (as ES without dfs does).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/index/DirectoryReader.html
 */
import type { FieldMapping, Mapping } from '../../protocol/mapping.ts';
import { flatFields } from '../../protocol/mapping.ts';
import type { FetchedDoc, FieldStatistics, HitExtras, SourceFilter, TermStatistics } from '../../protocol/search.ts';
import { filterSourceText } from '../../shared/raw-json.ts';
import { storedSourceFilter } from '../../shared/source-mapping.ts';
import { IGNORED_FIELD } from './doc-parser.ts';
import type { SegmentView } from './segment-merge.ts';
import type { TermDictionary } from './multi-term.ts';
import { hitExtras, ignoredFields, type HitFetch } from './hit-fetch.ts';

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
      const st = v.segment.inverted.get(field)?.terms.stats(term);
      if (st) {
        docFreq += st.docFreq;
        totalTermFreq += st.totalTermFreq;
      }
    }
    return { docFreq, totalTermFreq };
  }

  /** The terms of each field over this generation's segments, for multi-term queries (multi-term.ts). */
  readonly dictionary: TermDictionary = {
    forEachTerm: (field, fn) => {
      for (const v of this.views) {
        const inv = v.segment.inverted.get(field);
        if (inv) for (const t of inv.terms.keys()) fn(t);
      }
    },
    forEachWithPrefix: (field, prefix, fn) => {
      for (const v of this.views) v.segment.inverted.get(field)?.terms.dictionary.forEachWithPrefix(prefix, (t) => fn(t));
    },
    size: (field) => {
      let n = 0;
      for (const v of this.views) n += v.segment.inverted.get(field)?.terms.size ?? 0;
      return n;
    },
  };

  /** The index mapping as it is now (what a fetch compiles its `fields` against). */
  mapping(): Mapping {
    return this.getMapping();
  }

  /** The index mapping flattened to field paths (cached per mapping object). */
  fields(): Map<string, FieldMapping> {
    return flat(this.getMapping());
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
      version: seg.versions[loc.ord],
      seqNo: seg.seqNos[loc.ord],
      ...(routing !== undefined ? { routing } : {}),
      ...(ignored !== undefined ? { ignored } : {}),
      source: seg.source(loc.ord),
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
