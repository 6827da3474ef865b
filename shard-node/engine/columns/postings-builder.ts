/**
 * Builds one field's postings from a stream of term occurrences held in flat typed arrays (no
 * object per token or per posting entry), like Lucene's `FreqProxTermsWriter`: occurrences are
 * appended as (term id, doc, position); `build()` counting-sorts them by term (stable, so docs stay
 * ascending when they were added in doc order), sorts the terms by code point into a
 * `TermDictionary`, and encodes each term's postings (runs of one doc collapsed into one entry with
 * its freq) in dictionary order (postings-codec.ts).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/FreqProxTermsWriter.java
 */
import { compareCodePoints } from '../../../protocol/sort.ts';
import { IntBuffer } from './growable.ts';
import { TermPostings } from './term-postings.ts';
import { TermDictionary } from './term-dictionary.ts';
import { ByteWriter } from './packed-ints.ts';
import { encodePostings } from './postings-codec.ts';
import { runAtOnce, sortSteps, type SliceClock, type Steps } from '../../../shared/sliced-work.ts';

/** Loop iterations between two looks at the slice clock. */
const ITEMS_PER_CHECK = 65536;

/** Output of {@link PostingsBuilder.build}. */
export interface BuiltPostings {
  /** The terms (sorted by code point, whatever `sorted` asked) and their encoded postings. */
  terms: TermPostings;
  /** Terms by code point as strings, when built with `sorted` (made on first read, then kept by `terms`). */
  readonly sorted: string[] | undefined;
  /** Term id → rank by code point (the term's ordinal in `terms`). */
  rankOf: Int32Array;
  /** Sum of all occurrences (Lucene `sumTotalTermFreq` for positional fields). */
  occurrences: number;
}

/** Occurrences counting-sorted by term id: term t's are `[start[t], start[t + 1])` of `docs` (and `positions`). */
interface ByTerm {
  start: Int32Array;
  docs: Int32Array;
  positions: Int32Array | null;
}

/** Occurrence accumulator for one field of one segment being built or merged. */
export class PostingsBuilder {
  /** With positions (text): freqs, posStarts and positions are built; else DOCS-only. */
  readonly positional: boolean;
  private readonly ids = new Map<string, number>();
  private readonly names: string[];
  /** Term ids are ranks by code point already ({@link PostingsBuilder.presorted}): no sort at build. */
  private readonly inOrder: boolean;
  private readonly occTerm = new IntBuffer(1024);
  private readonly occDoc = new IntBuffer(1024);
  private readonly occPos: IntBuffer | null;

  constructor(positional: boolean, presortedNames?: string[]) {
    this.positional = positional;
    this.occPos = positional ? new IntBuffer(1024) : null;
    this.names = presortedNames ?? [];
    this.inOrder = presortedNames !== undefined;
  }

  /**
   * A builder whose term ids are the indexes of `names` (distinct, ascending by code point), as a
   * merge has them from its inputs' sorted dictionaries: `add` takes those ids, `termId` and
   * `lookup` are not used, and `build` needs no sort. Terms that get no occurrence are dropped.
   */
  static presorted(positional: boolean, names: string[]): PostingsBuilder {
    return new PostingsBuilder(positional, names);
  }

  /** The id of `term`, assigned on first sight. */
  termId(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(term, id);
      this.names.push(term);
    }
    return id;
  }

  /** The id of `term`, or -1 when it was never added. */
  lookup(term: string): number {
    return this.ids.get(term) ?? -1;
  }

  /**
   * Records one occurrence. Per term, docs must arrive in ascending order and a doc's positions
   * ascending; a DOCS-only field takes one occurrence per (term, doc) and ignores `pos`.
   */
  add(termId: number, doc: number, pos: number): void {
    this.occTerm.push(termId);
    this.occDoc.push(doc);
    if (this.occPos) this.occPos.push(pos);
  }

  /**
   * Counting-sorts the occurrences by term, sorts the terms into a dictionary and encodes the
   * postings. `sorted`: whether {@link BuiltPostings.sorted} gives the terms as strings.
   */
  build(sorted: boolean): BuiltPostings {
    return runAtOnce((clock) => this.buildSteps(sorted, clock));
  }

  /** {@link PostingsBuilder.build} as pausable steps (shared/sliced-work.ts), for merges run in slices. */
  *buildSteps(sorted: boolean, clock: SliceClock): Steps<BuiltPostings> {
    const byTerm = yield* this.byTermSteps(clock);
    const { order, rankOf } = yield* this.orderSteps(byTerm.start, clock);
    const names = new Array<string>(order.length);
    for (let r = 0; r < order.length; r++) names[r] = this.names[order[r]];
    const dictionary = TermDictionary.build(names);
    if (clock.due()) yield;
    const encoded = yield* encodeSteps(byTerm, order, clock);
    const terms = TermPostings.of(dictionary, encoded.bytes, encoded.offsets, this.positional);
    return {
      terms,
      get sorted() {
        return sorted ? terms.sorted() : undefined;
      },
      rankOf,
      occurrences: byTerm.docs.length,
    };
  }

  /** Counting sort of the occurrences by term id (stable: docs stay ascending per term). */
  private *byTermSteps(clock: SliceClock): Steps<ByTerm> {
    const T = this.names.length;
    const n = this.occTerm.length;
    const occTerm = this.occTerm.a;
    const start = new Int32Array(T + 1);
    for (let i = 0; i < n; i++) start[occTerm[i] + 1]++;
    for (let t = 0; t < T; t++) start[t + 1] += start[t];
    const cursor = start.slice(0, T);
    const docs = new Int32Array(n);
    const positions = this.occPos ? new Int32Array(n) : null;
    const occDoc = this.occDoc.a;
    const occPos = this.occPos?.a;
    for (let i = 0; i < n; i++) {
      const j = cursor[occTerm[i]]++;
      docs[j] = occDoc[i];
      if (positions) positions[j] = occPos![i];
      if (i % ITEMS_PER_CHECK === 0 && clock.due()) yield;
    }
    return { start, docs, positions };
  }

  /**
   * The ids of the terms that have occurrences, by code point (the dictionary's ordinals), and
   * term id → ordinal (-1 for a term without occurrences).
   */
  private *orderSteps(start: Int32Array, clock: SliceClock): Steps<{ order: Int32Array; rankOf: Int32Array }> {
    const T = this.names.length;
    let live = 0;
    for (let t = 0; t < T; t++) if (start[t + 1] > start[t]) live++;
    let order = new Int32Array(live);
    for (let t = 0, i = 0; t < T; t++) if (start[t + 1] > start[t]) order[i++] = t;
    if (!this.inOrder) {
      // Distinct terms, so the order is total.
      const all = this.names;
      order = yield* sortSteps(order, clock, (a, b) => compareCodePoints(all[a], all[b]));
    }
    const rankOf = new Int32Array(T).fill(-1);
    for (let r = 0; r < order.length; r++) rankOf[order[r]] = r;
    return { order, rankOf };
  }
}

/** Encodes each term's postings in `order` (runs of one doc collapsed into one entry with its freq). */
function* encodeSteps(byTerm: ByTerm, order: Int32Array, clock: SliceClock): Steps<{ bytes: Uint8Array; offsets: Uint32Array }> {
  const { start, docs: sDoc, positions } = byTerm;
  const w = new ByteWriter(sDoc.length + 4 * order.length + 64);
  const offsets = new Uint32Array(order.length);
  let docs = new Int32Array(64);
  let freqs = new Int32Array(64);
  for (let r = 0; r < order.length; r++) {
    const t = order[r];
    const a = start[t];
    const b = start[t + 1];
    offsets[r] = w.length;
    if (!positions) {
      // DOCS-only: one occurrence per (term, doc) already, so the sorted docs are the postings.
      encodePostings(w, b - a, sDoc, a, null, null, 0);
    } else {
      // Positional: collapse the term's run of one doc into one entry; positions stay in place.
      if (docs.length < b - a) {
        docs = new Int32Array(2 * (b - a));
        freqs = new Int32Array(docs.length);
      }
      let p = -1;
      let prev = -1;
      for (let j = a; j < b; j++) {
        if (sDoc[j] !== prev) {
          prev = sDoc[j];
          docs[++p] = prev;
          freqs[p] = 0;
        }
        freqs[p]++;
      }
      encodePostings(w, p + 1, docs, 0, freqs, positions, a);
    }
    if (r % 1024 === 0 && clock.due()) yield;
  }
  return { bytes: w.toBytes(), offsets };
}
