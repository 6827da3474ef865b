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

/** Occurrence accumulator for one field of one segment being built or merged. */
export class PostingsBuilder {
  /** With positions (text): freqs, posStarts and positions are built; else DOCS-only. */
  readonly positional: boolean;
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private readonly occTerm = new IntBuffer(1024);
  private readonly occDoc = new IntBuffer(1024);
  private readonly occPos: IntBuffer | null;

  constructor(positional: boolean) {
    this.positional = positional;
    this.occPos = positional ? new IntBuffer(1024) : null;
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

  /** Counting-sorts the occurrences by term and builds the posting lists. */
  build(sorted: boolean): BuiltPostings {
    return runAtOnce((clock) => this.buildSteps(sorted, clock));
  }

  /** {@link PostingsBuilder.build} as pausable steps (shared/sliced-work.ts), for merges run in slices. */
  *buildSteps(sorted: boolean, clock: SliceClock): Steps<BuiltPostings> {
    const T = this.names.length;
    const n = this.occTerm.length;
    const occTerm = this.occTerm.a;
    const start = new Int32Array(T + 1);
    for (let i = 0; i < n; i++) start[occTerm[i] + 1]++;
    for (let t = 0; t < T; t++) start[t + 1] += start[t];
    const cursor = start.slice(0, T);
    const sDoc = new Int32Array(n);
    const sPos = this.occPos ? new Int32Array(n) : null;
    const occDoc = this.occDoc.a;
    const occPos = this.occPos?.a;
    for (let i = 0; i < n; i++) {
      const j = cursor[occTerm[i]]++;
      sDoc[j] = occDoc[i];
      if (sPos) sPos[j] = occPos![i];
      if (i % ITEMS_PER_CHECK === 0 && clock.due()) yield;
    }
    // Term ids sorted by their terms (distinct, so the order is total), then ranked: the
    // dictionary's ordinals. Postings are encoded in that order.
    const all = this.names;
    const order = new Int32Array(T);
    for (let t = 0; t < T; t++) order[t] = t;
    yield* sortSteps(order, clock, (a, b) => compareCodePoints(all[a], all[b]));
    const names = new Array<string>(T);
    const rankOf = new Int32Array(T);
    for (let r = 0; r < T; r++) {
      const t = order[r];
      names[r] = all[t];
      rankOf[t] = r;
    }
    const dictionary = TermDictionary.build(names);
    if (clock.due()) yield;
    const w = new ByteWriter(n + 4 * T + 64);
    const offsets = new Uint32Array(T);
    let docs = new Int32Array(64);
    let freqs = new Int32Array(64);
    for (let r = 0; r < T; r++) {
      const t = order[r];
      offsets[r] = w.length;
      if (!sPos) {
        // DOCS-only: one occurrence per (term, doc) already, so the sorted docs are the postings.
        encodePostings(w, start[t + 1] - start[t], sDoc, start[t], null, null, 0);
      } else {
        // Positional: collapse the term's run of one doc into one entry; positions stay in place.
        if (docs.length < start[t + 1] - start[t]) {
          docs = new Int32Array(2 * (start[t + 1] - start[t]));
          freqs = new Int32Array(docs.length);
        }
        let p = -1;
        let prev = -1;
        for (let j = start[t]; j < start[t + 1]; j++) {
          if (sDoc[j] !== prev) {
            prev = sDoc[j];
            docs[++p] = prev;
            freqs[p] = 0;
          }
          freqs[p]++;
        }
        encodePostings(w, p + 1, docs, 0, freqs, sPos, start[t]);
      }
      if (r % 1024 === 0 && clock.due()) yield;
    }
    const terms = TermPostings.of(dictionary, w.toBytes(), offsets, sPos !== null);
    return {
      terms,
      get sorted() {
        return sorted ? terms.sorted() : undefined;
      },
      rankOf,
      occurrences: n,
    };
  }
}
