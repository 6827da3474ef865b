/**
 * The matcher of a `slice` query node (protocol/query-ast.ts): the documents of one segment in
 * sub-slice `id` of `max`. By `_id`, as ES's `TermsSliceQuery`: a document is in the slice whose
 * number is its id's hash modulo `max` (each document in exactly one slice). By a numeric field,
 * as ES's `DocValuesSliceQuery`: a document is in every slice one of its values hashes to, and in
 * none without a value. The `_id` hashes of a segment are computed once, on its first sliced search,
 * and kept with it (4 bytes per document): every batch of a sliced scroll or PIT walk reads them.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/slice/TermsSliceQuery.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/slice/DocValuesSliceQuery.java
 */
import { mix32, numberSliceHash } from '../../protocol/slice.ts';
import type { Segment } from './segment.ts';
import { hashId } from './columns/id-hash.ts';

/** Per segment, each document's `_id` slice hash. */
const idHashes = new WeakMap<Segment, Uint32Array>();

/** The `_id` slice hash of every document of `seg` (cached with the segment). */
function idSliceHashes(seg: Segment): Uint32Array {
  let hashes = idHashes.get(seg);
  if (!hashes) {
    hashes = new Uint32Array(seg.maxDoc);
    for (let d = 0; d < seg.maxDoc; d++) hashes[d] = mix32(hashId(seg.ids.get(d)));
    idHashes.set(seg, hashes);
  }
  return hashes;
}

/** The `_id` slice hash of one id, as {@link sliceMatch} computes it (for tests and oracles). */
export function idSliceHash(id: string): number {
  return mix32(hashId(id));
}

/** Ascending ordinals of the documents of `seg` in sub-slice `id` of `max` by `field` (`_id` or numeric). */
export function sliceMatch(seg: Segment, field: string, id: number, max: number): Int32Array {
  const out: number[] = [];
  if (field === '_id') {
    const hashes = idSliceHashes(seg);
    for (let d = 0; d < hashes.length; d++) if (hashes[d] % max === id) out.push(d);
    return Int32Array.from(out);
  }
  const nf = seg.numeric.get(field);
  if (!nf) return new Int32Array(0);
  const { min, max: hi, has, multi } = nf;
  const inSlice = (v: number) => numberSliceHash(v) % max === id;
  for (let d = 0; d < seg.maxDoc; d++) {
    if (!has[d]) continue;
    if (inSlice(min[d]) || (hi[d] !== min[d] && inSlice(hi[d])) || multi.get(d)?.some(inSlice)) out.push(d);
  }
  return Int32Array.from(out);
}
