/**
 * An immutable segment, as in Lucene: documents numbered by ordinal 0..maxDoc-1, with `_id`s,
 * `_source`s, an inverted index per text/keyword/boolean field (postings with freqs and positions,
 * one-byte length norms for text), numeric doc values in typed arrays, and keyword doc values for
 * sorting. Deletions are never recorded here: live-docs bitsets live in the generation.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/package-summary.html
 */
import type { ParsedDoc } from './doc-parser.ts';
import { compareCodePoints } from '../../shared/sort.ts';
import { intToByte4 } from './similarity.ts';

/** Postings of one term: ascending doc ordinals, and for text fields freqs and positions. */
export interface PostingList {
  docs: Int32Array;
  /** Term frequency per doc; null for DOCS-only fields (keyword, boolean), where it is 1. */
  freqs: Int32Array | null;
  /** Positions of doc i are `positions[posStarts[i] .. posStarts[i+1])`; null without positions. */
  posStarts: Int32Array | null;
  positions: Int32Array | null;
  /** Sum of freqs (docFreq for DOCS-only fields, as Lucene reports). */
  totalTermFreq: number;
}

/** One field's inverted index in a segment plus its Lucene `Terms` statistics. */
export interface InvertedField {
  terms: Map<string, PostingList>;
  /** Docs with at least one term. */
  docCount: number;
  /** Sum of field lengths (sum of docFreqs for DOCS-only fields, as Lucene 8+). */
  sumTotalTermFreq: number;
  /** Encoded length norm per doc (text); null when the field omits norms. */
  norms: Uint8Array | null;
  /** 1 when the doc has at least one term. */
  has: Uint8Array;
  /** Terms sorted by code point, built lazily for range/prefix queries. */
  sorted?: string[];
}

/** Numeric doc values (numbers, dates as epoch ms, booleans as 0/1). */
export interface NumericField {
  min: Float64Array;
  max: Float64Array;
  has: Uint8Array;
  /** All values of docs that have more than one value. */
  multi: Map<number, number[]>;
}

/** String doc values for sorting: per doc the smallest and largest term by code point. */
export interface StringDocValues {
  min: (string | null)[];
  max: (string | null)[];
}

let nextSegmentId = 1;

/** An immutable segment. Build one with {@link SegmentBuilder} or `mergeSegments`. */
export class Segment {
  /** Process-unique id (for debugging and caches). */
  readonly id: number = nextSegmentId++;
  readonly maxDoc: number;
  readonly ids: string[];
  /** `_source` per doc as JSON text. */
  readonly sources: string[];
  readonly idToOrd: Map<string, number>;
  readonly inverted: Map<string, InvertedField>;
  readonly numeric: Map<string, NumericField>;
  readonly strings: Map<string, StringDocValues>;
  /** Per field path, 1 for docs where the field has a value (ES `exists`). */
  readonly exists: Map<string, Uint8Array>;
  /** Lazily uninverted text fielddata (min/max term per doc). */
  private readonly fielddata = new Map<string, StringDocValues>();

  constructor(parts: {
    ids: string[];
    sources: string[];
    inverted: Map<string, InvertedField>;
    numeric: Map<string, NumericField>;
    strings: Map<string, StringDocValues>;
    exists: Map<string, Uint8Array>;
  }) {
    this.maxDoc = parts.ids.length;
    this.ids = parts.ids;
    this.sources = parts.sources;
    this.idToOrd = new Map(parts.ids.map((id, i) => [id, i]));
    this.inverted = parts.inverted;
    this.numeric = parts.numeric;
    this.strings = parts.strings;
    this.exists = parts.exists;
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
    fd = { min: new Array(this.maxDoc).fill(null), max: new Array(this.maxDoc).fill(null) };
    for (const term of this.sortedTerms(field)) {
      for (const d of this.inverted.get(field)!.terms.get(term)!.docs) {
        if (fd.min[d] === null) fd.min[d] = term;
        fd.max[d] = term;
      }
    }
    this.fielddata.set(field, fd);
    return fd;
  }
}

interface PostingBuilder {
  docs: number[];
  freqs: number[];
  posStarts: number[];
  positions: number[];
  ttf: number;
}

/** Accumulates parsed documents and seals them into a {@link Segment}. */
export class SegmentBuilder {
  private readonly ids: string[] = [];
  private readonly sources: string[] = [];
  private readonly inv = new Map<string, { terms: Map<string, PostingBuilder>; norms: number[] | null; has: number[]; docCount: number; sttf: number; positions: boolean }>();
  private readonly nums = new Map<string, { min: number[]; max: number[]; multi: Map<number, number[]> }>();
  private readonly strs = new Map<string, { min: (string | null)[]; max: (string | null)[] }>();
  private readonly ex = new Map<string, number[]>();

  /** Number of docs added so far. */
  get size(): number {
    return this.ids.length;
  }

  /** Adds one document; `source` is its `_source` JSON text. */
  add(id: string, source: string, doc: ParsedDoc): void {
    const ord = this.ids.length;
    this.ids.push(id);
    this.sources.push(source);
    for (const [field, tv] of doc.text) {
      const f = this.field(field, true);
      const byTerm = new Map<string, number[]>();
      for (let i = 0; i < tv.terms.length; i++) {
        const p = byTerm.get(tv.terms[i]);
        if (p) p.push(tv.positions[i]);
        else byTerm.set(tv.terms[i], [tv.positions[i]]);
      }
      for (const [term, ps] of byTerm) {
        const pb = this.posting(f.terms, term);
        pb.docs.push(ord);
        pb.freqs.push(ps.length);
        pb.posStarts.push(pb.positions.length);
        for (const p of ps) pb.positions.push(p);
        pb.ttf += ps.length;
      }
      f.norms![ord] = intToByte4(tv.terms.length);
      if (tv.terms.length > 0) {
        f.has.push(ord);
        f.docCount++;
        f.sttf += tv.terms.length;
      }
    }
    for (const [field, terms] of doc.terms) {
      const f = this.field(field, false);
      const uniq = [...new Set(terms)].sort(compareCodePoints);
      for (const term of uniq) {
        const pb = this.posting(f.terms, term);
        pb.docs.push(ord);
        pb.ttf++;
      }
      f.has.push(ord);
      f.docCount++;
      f.sttf += uniq.length;
      let s = this.strs.get(field);
      if (!s) this.strs.set(field, (s = { min: [], max: [] }));
      s.min[ord] = uniq[0];
      s.max[ord] = uniq[uniq.length - 1];
    }
    for (const [field, values] of doc.numbers) {
      let n = this.nums.get(field);
      if (!n) this.nums.set(field, (n = { min: [], max: [], multi: new Map() }));
      let lo = values[0];
      let hi = values[0];
      for (const v of values) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      n.min[ord] = lo;
      n.max[ord] = hi;
      if (values.length > 1) n.multi.set(ord, values.slice());
    }
    for (const field of doc.exists) {
      let e = this.ex.get(field);
      if (!e) this.ex.set(field, (e = []));
      e.push(ord);
    }
  }

  private field(name: string, text: boolean) {
    let f = this.inv.get(name);
    if (!f) this.inv.set(name, (f = { terms: new Map(), norms: text ? [] : null, has: [], docCount: 0, sttf: 0, positions: text }));
    return f;
  }

  private posting(terms: Map<string, PostingBuilder>, term: string): PostingBuilder {
    let pb = terms.get(term);
    if (!pb) terms.set(term, (pb = { docs: [], freqs: [], posStarts: [], positions: [], ttf: 0 }));
    return pb;
  }

  /** Seals the added documents into an immutable segment. */
  build(): Segment {
    const n = this.ids.length;
    const bits = (ords: number[]): Uint8Array => {
      const b = new Uint8Array(n);
      for (const o of ords) b[o] = 1;
      return b;
    };
    const inverted = new Map<string, InvertedField>();
    for (const [name, f] of this.inv) {
      const terms = new Map<string, PostingList>();
      for (const [term, pb] of f.terms) {
        const positions = f.positions;
        terms.set(term, {
          docs: Int32Array.from(pb.docs),
          freqs: positions ? Int32Array.from(pb.freqs) : null,
          posStarts: positions ? Int32Array.from([...pb.posStarts, pb.positions.length]) : null,
          positions: positions ? Int32Array.from(pb.positions) : null,
          totalTermFreq: pb.ttf,
        });
      }
      let norms: Uint8Array | null = null;
      if (f.norms) {
        norms = new Uint8Array(n);
        f.norms.forEach((v, i) => (norms![i] = v));
      }
      inverted.set(name, { terms, docCount: f.docCount, sumTotalTermFreq: f.sttf, norms, has: bits(f.has) });
    }
    const numeric = new Map<string, NumericField>();
    for (const [name, v] of this.nums) {
      const nf: NumericField = { min: new Float64Array(n), max: new Float64Array(n), has: new Uint8Array(n), multi: v.multi };
      v.min.forEach((x, i) => {
        nf.min[i] = x;
        nf.max[i] = v.max[i];
        nf.has[i] = 1;
      });
      numeric.set(name, nf);
    }
    const strings = new Map<string, StringDocValues>();
    for (const [name, v] of this.strs) {
      const min: (string | null)[] = new Array(n).fill(null);
      const max: (string | null)[] = new Array(n).fill(null);
      v.min.forEach((x, i) => {
        min[i] = x;
        max[i] = v.max[i];
      });
      strings.set(name, { min, max });
    }
    const exists = new Map<string, Uint8Array>();
    for (const [name, ords] of this.ex) exists.set(name, bits(ords));
    return new Segment({ ids: this.ids, sources: this.sources, inverted, numeric, strings, exists });
  }
}
