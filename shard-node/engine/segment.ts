/**
 * An immutable segment, as in Lucene: documents numbered by ordinal 0..maxDoc-1, with `_id`s,
 * `_source`s in one UTF-8 slab, an inverted index per text/keyword/boolean field (postings with
 * freqs and positions, one-byte length norms for text), numeric doc values in `Float64Array`s, and
 * keyword doc values as ordinals into the field's sorted term dictionary (Lucene `SORTED_SET`).
 * Deletions are never recorded here: live-docs bitsets live in the generation. Segments are built
 * by `SegmentBuilder` (segment-builder.ts) or merged by `mergeSegments` (segment-merge.ts).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/package-summary.html
 */
import type { SourceSlab } from './columns/source-slab.ts';
import type { TermPostings } from './columns/term-postings.ts';
import type { TermDictionary } from './columns/term-dictionary.ts';
import { IdHash } from './columns/id-hash.ts';
import { runSliced } from '../../shared/sliced-work.ts';
import { IdColumn } from './columns/id-column.ts';
import type { IntegerColumn, NumericColumn, RankColumn } from './columns/columns.ts';
import { narrowIntegers, rankColumn } from './columns/columns.ts';

/** Postings of one term: ascending doc ordinals, and for text fields freqs and positions. */
export interface PostingList {
  docs: Int32Array;
  /** Term frequency per doc; null for DOCS-only fields (keyword, boolean), where it is 1. */
  freqs: Int32Array | null;
  /**
   * Positions of doc i are `positions[posStarts[i] .. posStarts[i+1])`; null without positions.
   * `positions` may be shared by every term of the field (offsets are absolute).
   */
  posStarts: Int32Array | null;
  positions: Int32Array | null;
  /** Sum of freqs (docFreq for DOCS-only fields, as Lucene reports). */
  totalTermFreq: number;
}

/** One field's inverted index in a segment plus its Lucene `Terms` statistics. */
export interface InvertedField {
  /** Term → postings (a compact dictionary and encoded postings; a {@link PostingList} is decoded on each lookup). */
  terms: TermPostings;
  /** Docs with at least one term. */
  docCount: number;
  /** Sum of field lengths (sum of docFreqs for DOCS-only fields, as Lucene 8+). */
  sumTotalTermFreq: number;
  /** Encoded length norm per doc (text); null when the field omits norms. */
  norms: Uint8Array | null;
  /** 1 when the doc has at least one term. */
  has: Uint8Array;
}

/** Numeric doc values (numbers, dates as epoch ms, booleans as 0/1). */
export interface NumericField {
  /** Per doc its smallest value (0 when absent); an `Int32Array` when that is exact. */
  min: NumericColumn;
  /** Per doc its largest value; the same array as `min` when no doc has two or more values. */
  max: NumericColumn;
  has: Uint8Array;
  /**
   * All values, ascending (Lucene `SORTED_NUMERIC` order, duplicates kept), of the docs whose min
   * and max do not tell them: more than two values, or two equal ones. A doc absent here has one
   * value (min = max) or two (min and max).
   */
  multi: Map<number, number[]>;
}

/**
 * String doc values for sorting: per doc 1 + the rank in `terms` (sorted by code point) of its
 * smallest and largest term, 0 when it has none, in the narrowest unsigned array that fits.
 * `max` is `min` when every doc has at most one term. The ranks are the ordinals of the field's
 * term dictionary; a segment's `terms` strings are made from it on first read
 * ({@link keywordDocValues}).
 */
export interface StringDocValues {
  readonly terms: readonly string[];
  min: RankColumn;
  max: RankColumn;
}

/** Bytes held per kind of data (typed arrays counted once even when shared). */
export interface SegmentBytes {
  /** `_source` slab plus offsets. */
  source: number;
  /** Numeric and keyword doc-value columns, presence and `exists` flags. */
  docValues: number;
}

/**
 * Keyword doc values whose `terms` are the strings of the field's term dictionary, made on first
 * read (most keyword fields are never sorted or aggregated on). They share the dictionary with the
 * field's postings, as Lucene's `SORTED_SET` doc values keep their own terms.
 */
export function keywordDocValues(dictionary: TermDictionary, min: RankColumn, max: RankColumn): StringDocValues {
  return {
    get terms() {
      return dictionary.strings();
    },
    min,
    max,
  };
}

/**
 * Keyword doc values whose rank columns stay in the segment file until a sort, an aggregation or a
 * script first reads them (`load`, called once; the columns are then kept), as Lucene reads
 * `SORTED_SET` doc values from its files on demand: most keyword fields are only searched, and their
 * columns (1–4 bytes a doc each, 8 for a multi-valued field) were most of a loaded shard's doc values.
 */
export function lazyKeywordDocValues(dictionary: TermDictionary, load: () => { min: RankColumn; max: RankColumn }): StringDocValues {
  let columns: { min: RankColumn; max: RankColumn } | null = null;
  return {
    get terms() {
      return dictionary.strings();
    },
    get min() {
      return (columns ??= load()).min;
    },
    get max() {
      return (columns ??= load()).max;
    },
  };
}

/** Segments read from their files whose `_id` tables are still to build (weakly: one merged away is skipped). */
const idTablesToBuild: WeakRef<Segment>[] = [];
let buildingIdTables = false;

/**
 * Queues `segment`'s `_id` table for a background build in event-loop slices, one segment after the
 * other. Opening a shard reads its segment files without hashing every `_id` (38 % of the open of a
 * 500,000-document shard, docs/performance.md "Restarts"), so that a restarted copy serves searches
 * at once; writes and GETs need the table, and the first one before the build makes it at once. As
 * Lucene, whose `_id` terms index is read from the file, not built, when a segment opens.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/blocktree/Lucene90BlockTreeTermsReader.html
 */
function buildIdTablesInBackground(segment: Segment): void {
  idTablesToBuild.push(new WeakRef(segment));
  if (buildingIdTables) return;
  buildingIdTables = true;
  setImmediate(() => void drainIdTables());
}

async function drainIdTables(): Promise<void> {
  try {
    for (let ref = idTablesToBuild.shift(); ref !== undefined; ref = idTablesToBuild.shift()) await ref.deref()?.buildIdTable();
  } finally {
    buildingIdTables = false;
  }
}

let nextSegmentId = 1;

/** An immutable segment. Build one with `SegmentBuilder` (segment-builder.ts) or `mergeSegments`. */
export class Segment {
  /** Process-unique id (for debugging and caches). */
  readonly id: number = nextSegmentId++;
  readonly maxDoc: number;
  /** `_id` per doc ordinal (one buffer of code units, id-column.ts): read one with `ids.get(d)`. */
  readonly ids: IdColumn;
  /** `_source` per doc as UTF-8 JSON text; read one with {@link Segment.source}. */
  readonly sources: SourceSlab;
  /** The `_id` table once built ({@link Segment.idToOrd}). */
  private idHash: IdHash | undefined;
  /**
   * Per doc, its `_version` and `_seq_no` (ES keeps both as doc values): where a write finds the
   * version of a refreshed document, so the shard's live version map holds only recent writes.
   * Each in the narrowest array that holds it exactly ({@link narrowIntegers}: versions are mostly 1,
   * a byte each; seq_nos 4 bytes below 2^31).
   */
  readonly versions: IntegerColumn;
  readonly seqNos: IntegerColumn;
  /** Per doc ordinal, the custom `_routing` it was indexed with; null when no doc of the segment has one (the usual case). */
  readonly routings: ReadonlyMap<number, string> | null;
  readonly inverted: Map<string, InvertedField>;
  readonly numeric: Map<string, NumericField>;
  readonly strings: Map<string, StringDocValues>;
  /** Per field path, 1 for docs where the field has a value (ES `exists`). */
  readonly exists: Map<string, Uint8Array>;
  /** Lazily uninverted text fielddata (min/max term per doc). */
  private readonly fielddata = new Map<string, StringDocValues>();

  constructor(parts: {
    ids: readonly string[] | IdColumn;
    versions: Float64Array | IntegerColumn;
    seqNos: Float64Array | IntegerColumn;
    routings?: ReadonlyMap<number, string> | null;
    sources: SourceSlab;
    inverted: Map<string, InvertedField>;
    numeric: Map<string, NumericField>;
    strings: Map<string, StringDocValues>;
    exists: Map<string, Uint8Array>;
    /**
     * The `_id` table, when built already (in slices: a flush or a merge). A segment read from its
     * file comes without one: it is built in the background ({@link buildIdTablesInBackground}), or
     * at once by the first lookup that comes before it.
     */
    idToOrd?: IdHash;
  }) {
    this.maxDoc = parts.ids.length;
    this.ids = parts.ids instanceof IdColumn ? parts.ids : IdColumn.of(parts.ids);
    this.sources = parts.sources;
    this.idHash = parts.idToOrd;
    if (this.idHash === undefined) buildIdTablesInBackground(this);
    this.versions = parts.versions instanceof Float64Array ? narrowIntegers(parts.versions) : parts.versions;
    this.seqNos = parts.seqNos instanceof Float64Array ? narrowIntegers(parts.seqNos) : parts.seqNos;
    this.routings = parts.routings && parts.routings.size > 0 ? parts.routings : null;
    this.inverted = parts.inverted;
    this.numeric = parts.numeric;
    this.strings = parts.strings;
    this.exists = parts.exists;
  }

  /** `_id` → ordinal ({@link IdHash}: -1 when absent), built here in one go if the background has not yet. */
  get idToOrd(): IdHash {
    return (this.idHash ??= IdHash.build(this.ids));
  }

  /** Builds the `_id` table in event-loop slices unless it is built already. */
  async buildIdTable(): Promise<void> {
    if (this.idHash !== undefined) return;
    const table = await runSliced((clock) => IdHash.buildSteps(this.ids, clock));
    this.idHash ??= table;
  }

  /** Doc `d`'s `_source` as JSON text. */
  source(d: number): string {
    return this.sources.get(d);
  }

  /** The terms of an inverted field sorted by code point (cached). */
  sortedTerms(field: string): string[] {
    return this.inverted.get(field)?.terms.sorted() ?? [];
  }

  /** Text fielddata for sorting (`fielddata: true`): min/max analyzed term per doc, uninverted once. */
  textFielddata(field: string): StringDocValues {
    let fd = this.fielddata.get(field);
    if (fd) return fd;
    const terms = this.sortedTerms(field);
    fd = { terms, min: rankColumn(this.maxDoc, terms.length), max: rankColumn(this.maxDoc, terms.length) };
    const postings = this.inverted.get(field)!.terms;
    for (let r = 0; r < terms.length; r++) {
      for (const d of postings.docsOnce(r)) {
        if (fd.min[d] === 0) fd.min[d] = r + 1;
        fd.max[d] = r + 1;
      }
    }
    this.fielddata.set(field, fd);
    return fd;
  }

  /** Bytes of `_source` storage and of doc-value columns (not the inverted index or `_id`s). */
  bytes(): SegmentBytes {
    const seen = new Set<ArrayBufferLike>();
    let docValues = 0;
    const count = (a: ArrayBufferView): void => {
      if (seen.has(a.buffer)) return;
      seen.add(a.buffer);
      docValues += a.byteLength;
    };
    for (const nf of this.numeric.values()) {
      count(nf.min);
      count(nf.max);
      count(nf.has);
      for (const v of nf.multi.values()) docValues += 8 * v.length + 16;
    }
    for (const sv of this.strings.values()) {
      count(sv.min);
      count(sv.max);
    }
    for (const inv of this.inverted.values()) seen.add(inv.has.buffer);
    for (const e of this.exists.values()) count(e);
    return { source: this.sources.byteLength, docValues };
  }
}
