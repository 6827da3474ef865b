/**
 * An immutable segment, as in Lucene: documents numbered by ordinal 0..maxDoc-1, with `_id`s,
 * `_source`s in one UTF-8 slab, an inverted index per text/keyword/boolean field (postings with
 * freqs and positions, one-byte length norms for text), numeric doc values in `Float64Array`s, and
 * keyword doc values as ordinals into the field's sorted term dictionary (Lucene `SORTED_SET`).
 * Deletions are never recorded here: live-docs bitsets live in the generation.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/package-summary.html
 */
import type { ParsedDoc } from './doc-parser.ts';
import { compareCodePoints } from '../../protocol/sort.ts';
import { intToByte4 } from './similarity.ts';

/** The `_ignored` metadata field (doc-parser.ts `IGNORED_FIELD`). */
const IGNORED = '_ignored';
import { ByteBuffer, FloatBuffer, IntBuffer } from './columns/growable.ts';
import { PostingsBuilder } from './columns/postings-builder.ts';
import type { SourceSlab } from './columns/source-slab.ts';
import type { TermPostings } from './columns/term-postings.ts';
import { SourceSlabBuilder } from './columns/source-slab.ts';
import { IdHash } from './columns/id-hash.ts';
import { runAtOnce, type SliceClock, type Steps } from '../../shared/sliced-work.ts';
import type { NumericColumn, RankColumn } from './columns/columns.ts';
import { narrowNumbers, PresencePool, rankColumn } from './columns/columns.ts';

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
  /** Term → postings (flat arrays; a {@link PostingList} is made on each lookup). */
  terms: TermPostings;
  /** Docs with at least one term. */
  docCount: number;
  /** Sum of field lengths (sum of docFreqs for DOCS-only fields, as Lucene 8+). */
  sumTotalTermFreq: number;
  /** Encoded length norm per doc (text); null when the field omits norms. */
  norms: Uint8Array | null;
  /** 1 when the doc has at least one term. */
  has: Uint8Array;
  /** Terms sorted by code point: built at seal for keyword fields, lazily for text. */
  sorted?: string[];
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
 * `max` is `min` when every doc has at most one term.
 */
export interface StringDocValues {
  terms: readonly string[];
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

let nextSegmentId = 1;

/** An immutable segment. Build one with {@link SegmentBuilder} or `mergeSegments`. */
export class Segment {
  /** Process-unique id (for debugging and caches). */
  readonly id: number = nextSegmentId++;
  readonly maxDoc: number;
  readonly ids: string[];
  /** `_source` per doc as UTF-8 JSON text; read one with {@link Segment.source}. */
  readonly sources: SourceSlab;
  /** `_id` → ordinal ({@link IdHash}: -1 when absent). */
  readonly idToOrd: IdHash;
  /**
   * Per doc, its `_version` and `_seq_no` (ES keeps both as doc values): where a write finds the
   * version of a refreshed document, so the shard's live version map holds only recent writes.
   */
  readonly versions: Float64Array;
  readonly seqNos: Float64Array;
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
    ids: string[];
    versions: Float64Array;
    seqNos: Float64Array;
    routings?: ReadonlyMap<number, string> | null;
    sources: SourceSlab;
    inverted: Map<string, InvertedField>;
    numeric: Map<string, NumericField>;
    strings: Map<string, StringDocValues>;
    exists: Map<string, Uint8Array>;
    /** The `_id` table, when built already (in slices); else built here. */
    idToOrd?: IdHash;
  }) {
    this.maxDoc = parts.ids.length;
    this.ids = parts.ids;
    this.sources = parts.sources;
    this.idToOrd = parts.idToOrd ?? IdHash.build(parts.ids);
    this.versions = parts.versions;
    this.seqNos = parts.seqNos;
    this.routings = parts.routings && parts.routings.size > 0 ? parts.routings : null;
    this.inverted = parts.inverted;
    this.numeric = parts.numeric;
    this.strings = parts.strings;
    this.exists = parts.exists;
  }

  /** Doc `d`'s `_source` as JSON text. */
  source(d: number): string {
    return this.sources.get(d);
  }

  /** The terms of an inverted field sorted by code point (cached). */
  sortedTerms(field: string): string[] {
    const inv = this.inverted.get(field);
    if (!inv) return [];
    if (!inv.sorted) inv.sorted = [...inv.terms.keys()].sort(compareCodePoints);
    return inv.sorted;
  }

  /** Text fielddata for sorting (`fielddata: true`): min/max analyzed term per doc, uninverted once. */
  textFielddata(field: string): StringDocValues {
    let fd = this.fielddata.get(field);
    if (fd) return fd;
    const terms = this.sortedTerms(field);
    fd = { terms, min: rankColumn(this.maxDoc, terms.length), max: rankColumn(this.maxDoc, terms.length) };
    for (let r = 0; r < terms.length; r++) {
      for (const d of this.inverted.get(field)!.terms.docs(terms[r])!) {
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

interface InvBuild {
  pb: PostingsBuilder;
  norms: ByteBuffer | null;
  has: ByteBuffer;
  docCount: number;
  sttf: number;
}

interface NumBuild {
  min: FloatBuffer;
  max: FloatBuffer;
  has: ByteBuffer;
  multi: Map<number, number[]>;
  multiValued: boolean;
}

/** Keyword doc values while building: term id + 1 of the doc's min and max term (0 = none). */
interface StrBuild {
  min: IntBuffer;
  max: IntBuffer;
  multiValued: boolean;
}

/**
 * Accumulates parsed documents and seals them into a {@link Segment}. Documents are inverted as
 * they are added (Lucene's `IndexingChain`), into typed-array buffers: nothing per token survives
 * `add`, so an unrefreshed buffer costs about what the sealed segment will.
 */
export class SegmentBuilder {
  private readonly ids: string[] = [];
  private readonly versions = new FloatBuffer();
  private readonly seqNos = new FloatBuffer();
  private readonly routings = new Map<number, string>();
  /** Per doc ordinal, its `_ignored` field names (sorted), for a real-time GET before the refresh; only docs that have some. */
  private readonly ignoredNames = new Map<number, string[]>();
  private readonly sources = new SourceSlabBuilder();
  private readonly inv = new Map<string, InvBuild>();
  private readonly nums = new Map<string, NumBuild>();
  private readonly strs = new Map<string, StrBuild>();
  private readonly ex = new Map<string, ByteBuffer>();

  /** Number of docs added so far. */
  get size(): number {
    return this.ids.length;
  }

  /** The `_source` JSON text of a doc added earlier. */
  source(ord: number): string {
    return this.sources.get(ord);
  }

  /** The custom routing of a doc added earlier (undefined: none). */
  routing(ord: number): string | undefined {
    return this.routings.get(ord);
  }

  /** The `_ignored` field names of a doc added earlier, sorted (undefined: none). */
  ignored(ord: number): string[] | undefined {
    return this.ignoredNames.get(ord);
  }

  /** Adds one document; `source` is its `_source` JSON text, `routing` its custom routing. Returns its ordinal. */
  add(id: string, source: string, doc: ParsedDoc, version: number, seqNo: number, routing?: string): number {
    const ord = this.ids.length;
    this.ids.push(id);
    if (routing !== undefined) this.routings.set(ord, routing);
    const ignored = doc.terms.get(IGNORED);
    if (ignored) this.ignoredNames.set(ord, [...new Set(ignored)].sort(compareCodePoints));
    this.versions.set(ord, version);
    this.seqNos.set(ord, seqNo);
    this.sources.add(source);
    for (const [field, tv] of doc.text) {
      const f = this.field(field, true);
      const { terms, positions } = tv;
      for (let i = 0; i < terms.length; i++) f.pb.add(f.pb.termId(terms[i]), ord, positions[i]);
      f.norms!.set(ord, intToByte4(terms.length));
      if (terms.length > 0) {
        f.has.set(ord, 1);
        f.docCount++;
        f.sttf += terms.length;
      }
    }
    for (const [field, terms] of doc.terms) {
      const f = this.field(field, false);
      let lo: number;
      let hi: number;
      if (terms.length === 1) {
        lo = hi = f.pb.termId(terms[0]);
        f.pb.add(lo, ord, 0);
        f.sttf++;
      } else {
        const uniq = [...new Set(terms)].sort(compareCodePoints);
        for (const term of uniq) f.pb.add(f.pb.termId(term), ord, 0);
        lo = f.pb.termId(uniq[0]);
        hi = f.pb.termId(uniq[uniq.length - 1]);
        f.sttf += uniq.length;
      }
      f.has.set(ord, 1);
      f.docCount++;
      let s = this.strs.get(field);
      if (!s) this.strs.set(field, (s = { min: new IntBuffer(), max: new IntBuffer(), multiValued: false }));
      s.min.set(ord, lo + 1);
      s.max.set(ord, hi + 1);
      if (lo !== hi) s.multiValued = true;
    }
    for (const [field, values] of doc.numbers) {
      let n = this.nums.get(field);
      if (!n) this.nums.set(field, (n = { min: new FloatBuffer(), max: new FloatBuffer(), has: new ByteBuffer(), multi: new Map(), multiValued: false }));
      let lo = values[0];
      let hi = values[0];
      for (let i = 1; i < values.length; i++) {
        const v = values[i];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      n.min.set(ord, lo);
      n.max.set(ord, hi);
      n.has.set(ord, 1);
      if (values.length > 1) n.multiValued = true;
      if (values.length > 2 || (values.length === 2 && lo === hi))
        n.multi.set(
          ord,
          values.slice().sort((a, b) => a - b),
        );
    }
    for (const field of doc.exists) {
      let e = this.ex.get(field);
      if (!e) this.ex.set(field, (e = new ByteBuffer()));
      e.set(ord, 1);
    }
    return ord;
  }

  private field(name: string, text: boolean): InvBuild {
    let f = this.inv.get(name);
    if (!f) this.inv.set(name, (f = { pb: new PostingsBuilder(text), norms: text ? new ByteBuffer() : null, has: new ByteBuffer(), docCount: 0, sttf: 0 }));
    return f;
  }

  /** Seals the added documents into an immutable segment. */
  build(): Segment {
    return runAtOnce((clock) => this.buildSteps(clock));
  }

  /**
   * {@link SegmentBuilder.build} as pausable steps (shared/sliced-work.ts), for a refresh run in
   * slices: postings are sorted per field, keyword ranks and numeric columns filled, `_source`
   * blocks compressed and the `_id` table built, with pauses between pieces. The builder must not
   * change meanwhile (the shard sends new writes to another builder).
   */
  *buildSteps(clock: SliceClock): Steps<Segment> {
    const n = this.ids.length;
    const pool = new PresencePool();
    const inverted = new Map<string, InvertedField>();
    const strings = new Map<string, StringDocValues>();
    for (const [name, f] of this.inv) {
      const s = this.strs.get(name);
      const built = yield* f.pb.buildSteps(s !== undefined, clock);
      const has = pool.share(f.has.seal(n));
      inverted.set(name, {
        terms: built.terms,
        docCount: f.docCount,
        sumTotalTermFreq: f.sttf,
        norms: f.norms ? f.norms.seal(n) : null,
        has,
        sorted: built.sorted,
      });
      if (clock.due()) yield;
      if (!s) continue;
      const rankOf = built.rankOf!;
      const ranks = (b: IntBuffer): RankColumn => {
        const out = rankColumn(n, rankOf.length);
        for (let d = 0; d < b.length; d++) {
          const v = b.a[d];
          if (v > 0) out[d] = rankOf[v - 1] + 1;
        }
        return out;
      };
      const min = ranks(s.min);
      if (clock.due()) yield;
      strings.set(name, { terms: built.sorted!, min, max: s.multiValued ? ranks(s.max) : min });
      if (clock.due()) yield;
    }
    const numeric = new Map<string, NumericField>();
    for (const [name, v] of this.nums) {
      const min = narrowNumbers(v.min.seal(n));
      numeric.set(name, { min, max: v.multiValued ? narrowNumbers(v.max.seal(n)) : min, has: pool.share(v.has.seal(n)), multi: v.multi });
      if (clock.due()) yield;
    }
    const exists = new Map<string, Uint8Array>();
    for (const [name, e] of this.ex) exists.set(name, pool.share(e.seal(n)));
    const sources = yield* this.sources.buildSteps(clock);
    const idToOrd = yield* IdHash.buildSteps(this.ids, clock);
    return new Segment({
      ids: this.ids,
      versions: this.versions.seal(n),
      seqNos: this.seqNos.seal(n),
      routings: this.routings,
      sources,
      inverted,
      numeric,
      strings,
      exists,
      idToOrd,
    });
  }
}
