/**
 * Builds segments, as Lucene's `IndexingChain` and `DocumentsWriterPerThread` do: documents are
 * inverted as they are added into growable typed-array buffers (postings with freqs and positions,
 * length norms, keyword and numeric doc values, `exists` flags, `_source` text), then sealed into
 * an immutable {@link Segment} (segment.ts) at refresh, at once or in event-loop slices.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/IndexingChain.java
 */
import type { ParsedDoc } from './doc-parser.ts';
import { compareCodePoints } from '../../protocol/sort.ts';
import { intToByte4 } from './similarity.ts';
import { ByteBuffer, FloatBuffer, IntBuffer } from './columns/growable.ts';
import { PostingsBuilder } from './columns/postings-builder.ts';
import { SourceSlabBuilder } from './columns/source-slab.ts';
import { IdHash } from './columns/id-hash.ts';
import { IdColumn } from './columns/id-column.ts';
import { runAtOnce, type SliceClock, type Steps } from '../../shared/sliced-work.ts';
import type { RankColumn } from './columns/columns.ts';
import { narrowNumbers, PresencePool, rankColumn } from './columns/columns.ts';
import { keywordDocValues, Segment, type InvertedField, type NumericField, type StringDocValues } from './segment.ts';

/** The `_ignored` metadata field (doc-parser.ts `IGNORED_FIELD`). */
const IGNORED = '_ignored';

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
      const built = yield* f.pb.buildSteps(false, clock);
      const has = pool.share(f.has.seal(n));
      inverted.set(name, {
        terms: built.terms,
        docCount: f.docCount,
        sumTotalTermFreq: f.sttf,
        norms: f.norms ? f.norms.seal(n) : null,
        has,
      });
      if (clock.due()) yield;
      if (!s) continue;
      const rankOf = built.rankOf;
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
      strings.set(name, keywordDocValues(built.terms.dictionary, min, s.multiValued ? ranks(s.max) : min));
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
    const ids = IdColumn.of(this.ids);
    const idToOrd = yield* IdHash.buildSteps(ids, clock);
    return new Segment({
      ids,
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
