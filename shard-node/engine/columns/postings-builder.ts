/**
 * Builds one field's postings from a stream of term occurrences held in flat typed arrays (no
 * object per token or per posting entry), like Lucene's `FreqProxTermsWriter`: occurrences are
 * appended as (term id, doc, position); `build()` counting-sorts them by term (stable, so docs stay
 * ascending when they were added in doc order) and collapses runs of one doc into one entry with
 * its freq. Every term's arrays are views into a few shared `Int32Array`s.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/FreqProxTermsWriter.java
 */
import { compareCodePoints } from '../../../protocol/sort.ts';
import { IntBuffer } from './growable.ts';
import { TermPostings } from './term-postings.ts';
import { runAtOnce, sortSteps, type SliceClock, type Steps } from '../../../shared/sliced-work.ts';

/** Loop iterations between two looks at the slice clock. */
const ITEMS_PER_CHECK = 65536;

/** Output of {@link PostingsBuilder.build}. */
export interface BuiltPostings {
  terms: TermPostings;
  /** Terms by code point, when built with `sorted`; `terms` then iterates in this order too. */
  sorted: string[] | undefined;
  /** Term id → rank in `sorted` (when sorted). */
  rankOf: Int32Array | undefined;
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
    let order: Int32Array | undefined;
    let rankOf: Int32Array | undefined;
    let names: string[] | undefined;
    if (sorted) {
      // Term ids sorted by their terms (distinct, so the order is total), then ranked.
      const all = this.names;
      order = new Int32Array(T);
      for (let t = 0; t < T; t++) order[t] = t;
      yield* sortSteps(order, clock, (a, b) => compareCodePoints(all[a], all[b]));
      names = new Array<string>(T);
      rankOf = new Int32Array(T);
      for (let r = 0; r < T; r++) {
        const t = order[r];
        names[r] = all[t];
        rankOf[t] = r;
      }
    }
    const keys = names ?? this.names;
    if (!sPos) {
      // DOCS-only: one occurrence per (term, doc) already, so the sorted docs are the postings.
      const terms = new TermPostings({ ids: this.ids, keys, pairStart: start, docs: sDoc, freqs: null, posStarts: null, positions: null });
      return { terms, sorted: names, rankOf, occurrences: n };
    }
    // Positional: collapse each term's run of one doc into one entry; positions stay in place.
    let pairs = 0;
    const pairStart = new Int32Array(T + 1);
    for (let t = 0; t < T; t++) {
      pairStart[t] = pairs;
      let prev = -1;
      for (let j = start[t]; j < start[t + 1]; j++) {
        if (sDoc[j] !== prev) {
          prev = sDoc[j];
          pairs++;
        }
      }
      if (t % 4096 === 0 && clock.due()) yield;
    }
    pairStart[T] = pairs;
    const docs = new Int32Array(pairs);
    const freqs = new Int32Array(pairs);
    const posStarts = new Int32Array(pairs + T);
    for (let t = 0; t < T; t++) {
      let p = pairStart[t] - 1;
      const ps = pairStart[t] + t;
      let prev = -1;
      for (let j = start[t]; j < start[t + 1]; j++) {
        if (sDoc[j] !== prev) {
          prev = sDoc[j];
          docs[++p] = prev;
          posStarts[ps + p - pairStart[t]] = j;
        }
        freqs[p]++;
      }
      posStarts[ps + pairStart[t + 1] - pairStart[t]] = start[t + 1];
      if (t % 4096 === 0 && clock.due()) yield;
    }
    const terms = new TermPostings({ ids: this.ids, keys, pairStart, docs, freqs, posStarts, positions: sPos });
    return { terms, sorted: names, rankOf, occurrences: n };
  }
}
