/**
 * One field's term dictionary and postings in a sealed segment, held compactly as Lucene holds
 * them in its `.tim`/`.doc` files: the terms in a prefix-compressed {@link TermDictionary} (ordinal
 * = rank by code point), each term's postings in one byte stream in the block layout of
 * postings-codec.ts, and one byte offset per term. A {@link PostingList} is decoded on lookup.
 *
 * Before, a field held a `Map<string, number>`, a `keys` string array and flat `Int32Array`s of
 * docs, freqs, position starts and positions (16 bytes per positional posting, a JS string and a
 * map entry per term); the figures of the change are in docs/performance.md ("Compact postings").
 *
 * The encoded form ({@link EncodedTermPostings}) is plain typed arrays, so a segment file writer
 * copies them out and a reader wraps them again with {@link TermPostings.fromEncoded}. Once the
 * segment is in a file, the postings stream stays there ({@link TermPostings.inFile},
 * {@link TermPostings.readFromFile}): a lookup reads the pages of the term's bytes through the
 * block cache (segment-file/file-pages.ts); the dictionary and the offsets stay in memory.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/codecs/lucene90/Lucene90PostingsFormat.html
 */
import type { PostingList } from '../segment.ts';
import { decodeDocs, decodeDocsFreqs, decodePostings, postingsStats } from './postings-codec.ts';
import { TermDictionary, type TermDictionaryParts } from './term-dictionary.ts';
import { cachedPostings } from './postings-cache.ts';
import { ByteReader } from './packed-ints.ts';
import type { FilePages } from '../segment-file/file-pages.ts';

let nextId = 1;

/** Bytes enough for a term's postings header (docFreq and totalTermFreq, two varints). */
const POSTINGS_HEAD_BYTES = 10;

/** The encoded arrays of a {@link TermPostings}, for segment files (shared, never copied here). */
export interface EncodedTermPostings {
  /** The sorted terms. */
  dictionary: TermDictionaryParts;
  /** Every term's postings, back to back, in ordinal order (postings-codec.ts layout). */
  postings: Uint8Array;
  /** Byte offset in `postings` of each term's postings, by ordinal. */
  offsets: Uint32Array;
  /** Whether the postings carry freqs and positions (text fields) or docs only (keyword, boolean). */
  positional: boolean;
}

/** Docs and total term freq of one term (Lucene `TermStatistics` inputs). */
export interface TermStats {
  docFreq: number;
  totalTermFreq: number;
}

/** A read-only term → postings map over encoded arrays (the members the engine uses of a `Map<string, PostingList>`). */
export class TermPostings {
  /** The field's terms, sorted by code point: ordinals here are the postings' ordinals. */
  readonly dictionary: TermDictionary;
  /** Every term's postings while in memory (null once they are read from the segment file). */
  private postings: Uint8Array | null;
  /** The same bytes in the segment file, read a page at a time ({@link TermPostings.readFromFile}). */
  private file: FilePages | null = null;
  private readonly offsets: Uint32Array;
  private readonly positional: boolean;
  /** Process-unique id: the decoded-postings cache key prefix. */
  private readonly id = nextId++;

  private constructor(dictionary: TermDictionary, parts: EncodedTermPostings) {
    this.dictionary = dictionary;
    this.postings = parts.postings;
    this.offsets = parts.offsets;
    this.positional = parts.positional;
  }

  /** Wraps encoded arrays (from `PostingsBuilder` or a segment file). */
  static fromEncoded(parts: EncodedTermPostings): TermPostings {
    return new TermPostings(TermDictionary.fromEncoded(parts.dictionary), parts);
  }

  /** Wraps encoded arrays whose postings stay in a segment file (`pages`), read on demand. */
  static inFile(dictionary: TermDictionaryParts, pages: FilePages, offsets: Uint32Array, positional: boolean): TermPostings {
    const terms = new TermPostings(TermDictionary.fromEncoded(dictionary), { dictionary, postings: new Uint8Array(0), offsets, positional });
    terms.postings = null;
    terms.file = pages;
    return terms;
  }

  /** Wraps a built dictionary and the postings encoded in its ordinal order. */
  static of(dictionary: TermDictionary, postings: Uint8Array, offsets: Uint32Array, positional: boolean): TermPostings {
    return new TermPostings(dictionary, { dictionary: dictionary.encodedParts(), postings, offsets, positional });
  }

  /**
   * Moves the postings bytes out of the heap once they are in a segment file (`pages`, the same
   * bytes): from now on a term's postings are read from the file on demand, through the block
   * cache. The dictionary and offsets stay in memory. Readers see the same postings before and after.
   * @throws RangeError when `pages` is not as long as the postings
   */
  readFromFile(pages: FilePages): void {
    if (this.postings !== null && pages.length !== this.postings.length) throw new RangeError('postings pages of another length');
    this.file = pages;
    this.postings = null;
  }

  /** Whether the postings are read from a segment file (not held in the heap). */
  get onDisk(): boolean {
    return this.file !== null;
  }

  /** The encoded arrays (shared; the postings read back from the file when they are there): what a segment file stores. */
  encodedParts(): EncodedTermPostings {
    return { dictionary: this.dictionary.encodedParts(), postings: this.postings ?? this.file!.all(), offsets: this.offsets, positional: this.positional };
  }

  /** Bytes of the encoded arrays held in the heap (dictionary, offsets, and the postings or their page checksums). */
  get byteLength(): number {
    return this.dictionary.byteLength + (this.postings?.byteLength ?? this.file!.byteLength) + this.offsets.byteLength;
  }

  /**
   * Term `ord`'s postings bytes and where they start in them: the whole stream in memory, or the
   * term's own bytes read from the file.
   */
  private termBytes(ord: number, headOnly = false, cache = true): [Uint8Array, number] {
    if (this.postings) return [this.postings, this.offsets[ord]];
    const end = ord + 1 < this.offsets.length ? this.offsets[ord + 1] : this.file!.length;
    return [this.file!.slice(this.offsets[ord], headOnly ? Math.min(end, this.offsets[ord] + POSTINGS_HEAD_BYTES) : end, cache), 0];
  }

  /** Number of distinct terms. */
  get size(): number {
    return this.dictionary.size;
  }

  /** Whether the field has `term`. */
  has(term: string): boolean {
    return this.dictionary.ord(term) >= 0;
  }

  /** The postings of `term` (decoded on each call), or undefined. */
  get(term: string): PostingList | undefined {
    const ord = this.dictionary.ord(term);
    return ord < 0 ? undefined : this.postingsAt(ord);
  }

  /** Whether postings carry freqs and positions (text fields); DOCS-only otherwise (keyword, boolean). */
  get hasFreqs(): boolean {
    return this.positional;
  }

  /** The docs and freqs of `term` without its positions (`posStarts`/`positions` null), or undefined: what scoring a term needs. */
  docsAndFreqs(term: string): PostingList | undefined {
    const ord = this.dictionary.ord(term);
    return ord < 0 ? undefined : this.cached(ord, 'f', decodeDocsFreqs);
  }

  /** The ascending doc ordinals of `term`, or undefined: what matchers need (freqs and positions not decoded). */
  docs(term: string): Int32Array | undefined {
    const ord = this.dictionary.ord(term);
    return ord < 0 ? undefined : this.docsAt(ord);
  }

  /** docFreq and totalTermFreq of `term` from its postings header (nothing decoded), or undefined. */
  stats(term: string): TermStats | undefined {
    const ord = this.dictionary.ord(term);
    if (ord < 0) return undefined;
    const [bytes, at] = this.termBytes(ord, true);
    return postingsStats(bytes, at, this.positional);
  }

  /** The postings of the term at ordinal `ord` (0 ≤ ord < size). */
  postingsAt(ord: number): PostingList {
    return this.cached(ord, 'p', decodePostings);
  }

  /** The docs of the term at ordinal `ord` (0 ≤ ord < size). */
  docsAt(ord: number): Int32Array {
    return this.cached(ord, 'd', decodeDocs);
  }

  /** The postings of the term at ordinal `ord`, decoded outside the hot-term cache: for one pass over every term (a merge). */
  postingsOnce(ord: number): PostingList {
    const [bytes, at] = this.termBytes(ord, false, false);
    return decodePostings(bytes, at, this.positional);
  }

  /** The docs of the term at ordinal `ord`, decoded outside the hot-term cache: for one pass over every term (uninverting). */
  docsOnce(ord: number): Int32Array {
    const [bytes, at] = this.termBytes(ord, false, false);
    return decodeDocs(bytes, at, this.positional);
  }

  /** Term `ord`'s postings decoded by `decode`, through the hot-term cache (postings-cache.ts). */
  private cached<T extends PostingList | Int32Array>(ord: number, form: string, decode: (bytes: Uint8Array, offset: number, positional: boolean) => T): T {
    const [head, headAt] = this.termBytes(ord, true);
    const docFreq = new ByteReader(head, headAt).vint();
    return cachedPostings(`${this.id}:${form}:${ord}`, docFreq, () => {
      const [bytes, at] = this.termBytes(ord);
      return decode(bytes, at, this.positional);
    });
  }

  /** The terms sorted by code point, as strings (made once, then kept: {@link TermDictionary.strings}). */
  sorted(): string[] {
    return this.dictionary.strings();
  }

  /** The terms, by code point (decoded as iterated). */
  *keys(): IterableIterator<string> {
    const chunk: string[] = [];
    for (let from = 0; from < this.size; from += 256) {
      chunk.length = 0;
      this.dictionary.forEach(
        (t) => {
          chunk.push(t);
        },
        from,
        Math.min(from + 256, this.size),
      );
      yield* chunk;
    }
  }

  /** `[term, postings]` pairs by code point (postings decoded as iterated, outside the hot-term cache). */
  *entries(): IterableIterator<[string, PostingList]> {
    let ord = 0;
    for (const term of this.keys()) yield [term, this.postingsOnce(ord++)];
  }

  /** Same as {@link TermPostings.entries} (`for (const [term, postings] of terms)`, as over a `Map`). */
  [Symbol.iterator](): IterableIterator<[string, PostingList]> {
    return this.entries();
  }
}
