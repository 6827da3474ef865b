/**
 * One field's term dictionary and postings in a sealed segment, in a few flat typed arrays (as
 * Lucene keeps a field's postings in one `.doc`/`.pos` file addressed by the terms dictionary),
 * with a {@link PostingList} made on demand as views into them. Keeping one object and four
 * typed-array views per term alive cost 56 MiB of a 82 MiB heap for 90,000 `cities` documents,
 * and two thirds of a full garbage collection's pause (80 ms → 30 ms without them): a shard node's
 * major GCs stalled its `/livez` by 150-220 ms (docs/reliability.md, the abuse suite). Here the
 * live objects per term are its string and a `Map` entry (no object of its own).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90PostingsFormat.html
 */
import type { PostingList } from '../segment.ts';

/** The flat arrays a {@link TermPostings} reads (built by `PostingsBuilder`). */
export interface TermPostingsParts {
  /** Term → term id (an index into `pairStart`). */
  ids: Map<string, number>;
  /** The terms in iteration order (code point order for fields built sorted). */
  keys: readonly string[];
  /** Term id t's entries are `[pairStart[t], pairStart[t + 1])` of `docs` (and of `freqs`). */
  pairStart: Int32Array;
  /** Ascending doc ordinals per term. */
  docs: Int32Array;
  /** Term frequency per entry; null for DOCS-only fields. */
  freqs: Int32Array | null;
  /**
   * Positional fields: term t's position offsets are `posStarts[pairStart[t] + t ..= pairStart[t + 1] + t]`
   * (one more than its entries), absolute offsets into `positions`; null for DOCS-only fields.
   */
  posStarts: Int32Array | null;
  positions: Int32Array | null;
}

/** A read-only `Map<string, PostingList>` over flat arrays (only the members the engine uses). */
export class TermPostings {
  private readonly ids: Map<string, number>;
  private readonly order: readonly string[];
  private readonly pairStart: Int32Array;
  private readonly docArray: Int32Array;
  private readonly freqs: Int32Array | null;
  private readonly posStarts: Int32Array | null;
  private readonly positions: Int32Array | null;

  constructor(parts: TermPostingsParts) {
    this.ids = parts.ids;
    this.order = parts.keys;
    this.pairStart = parts.pairStart;
    this.docArray = parts.docs;
    this.freqs = parts.freqs;
    this.posStarts = parts.posStarts;
    this.positions = parts.positions;
  }

  /** Number of distinct terms. */
  get size(): number {
    return this.order.length;
  }

  /** Whether the field has `term`. */
  has(term: string): boolean {
    return this.ids.has(term);
  }

  /** The postings of `term` (views made on each call), or undefined. */
  get(term: string): PostingList | undefined {
    const t = this.ids.get(term);
    return t === undefined ? undefined : this.list(t);
  }

  /** The ascending doc ordinals of `term` (one view), or undefined: what matchers need. */
  docs(term: string): Int32Array | undefined {
    const t = this.ids.get(term);
    return t === undefined ? undefined : this.docArray.subarray(this.pairStart[t], this.pairStart[t + 1]);
  }

  /** The terms, in iteration order. */
  keys(): IterableIterator<string> {
    return this.order[Symbol.iterator]();
  }

  /** `[term, postings]` pairs in iteration order (postings made as iterated). */
  *entries(): IterableIterator<[string, PostingList]> {
    for (const term of this.order) yield [term, this.list(this.ids.get(term)!)];
  }

  /** Same as {@link TermPostings.entries} (`for (const [term, postings] of terms)`, as over a `Map`). */
  [Symbol.iterator](): IterableIterator<[string, PostingList]> {
    return this.entries();
  }

  private list(t: number): PostingList {
    const a = this.pairStart[t];
    const b = this.pairStart[t + 1];
    const docs = this.docArray.subarray(a, b);
    if (!this.posStarts) return { docs, freqs: this.freqs ? this.freqs.subarray(a, b) : null, posStarts: null, positions: null, totalTermFreq: b - a };
    const posStarts = this.posStarts.subarray(a + t, b + t + 1);
    return { docs, freqs: this.freqs!.subarray(a, b), posStarts, positions: this.positions, totalTermFreq: posStarts[b - a] - posStarts[0] };
  }
}
