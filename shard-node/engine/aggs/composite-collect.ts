/**
 * Shard-side `composite`: every doc's composite keys (one value per source; the cartesian product
 * for multi-valued fields; a null value for a doc without one when `missing_bucket`), the shard's
 * first `size` keys strictly after `after` in composite order, with their doc counts and
 * sub-aggregations. Exact across shards in one round: the global first `size` keys are each among
 * the first `size` of every shard that has them (ES's `CompositeAggregator` and
 * `InternalComposite.reduce`).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/bucket/composite/CompositeAggregator.java
 */
import type { CompositeAgg, CompositeSource } from '../../../protocol/agg-request.ts';
import { compareCompositeKeys, type CompositeKey } from '../../../shared/aggs/composite-key.ts';
import { roundDate, UTC, zoneOf } from '../../../shared/aggs/date-zone.ts';
import type { BucketKey, CompositePartial } from '../../../protocol/aggs.ts';
import { column, scratch, type AggContext } from './agg-context.ts';
import { keyOf, readValues, type SegDocs } from './doc-values.ts';

/** The key function of one source's values (histogram sources round). */
function sourceKey(src: CompositeSource): (v: BucketKey) => BucketKey {
  if (src.kind === 'histogram') {
    const i = src.interval!;
    return (v) => Math.floor((v as number) / i) * i;
  }
  if (src.kind === 'date_histogram') {
    const zone = src.timeZone ? zoneOf(src.timeZone) : UTC;
    const iv = src.dateInterval!;
    return (v) => roundDate(v as number, iv, zone, src.offset ?? 0);
  }
  return (v) => v;
}

/** Every distinct composite key of each doc: `fn(key, s, d)`. */
function forEachCompositeKey(node: CompositeAgg, docs: SegDocs[], ctx: AggContext, fn: (key: CompositeKey, s: number, d: number) => void): void {
  const keyFns = node.sources.map(sourceKey);
  docs.forEach(({ seg, docs: ds }, s) => {
    const cols = node.sources.map((src) => column(ctx, src.field, seg));
    for (let i = 0; i < ds.length; i++) {
      const d = ds[i];
      let combos: (BucketKey | null)[][] = [[]];
      for (let k = 0; k < node.sources.length; k++) {
        const col = cols[k];
        const n = col ? readValues(col, d, scratch) : 0;
        let values: (BucketKey | null)[];
        if (n === 0) {
          if (!node.sources[k].missingBucket) {
            combos = [];
            break;
          }
          values = [null];
        } else {
          const seen = new Set<BucketKey>();
          for (let j = 0; j < n; j++) seen.add(keyFns[k](keyOf(col!, scratch[j])));
          values = [...seen];
        }
        const next: (BucketKey | null)[][] = [];
        for (const c of combos) for (const v of values) next.push([...c, v]);
        combos = next;
      }
      for (const c of combos) fn(c, s, d);
    }
  });
}

/**
 * The shard's first `size` composite buckets after `after`, kept in a bounded sorted list while the
 * docs are read (memory O(size), as ES's `CompositeValuesCollectorQueue`): once the list is full,
 * its last key only moves down, so a key it dropped or refused can never belong again and every
 * kept key's count is complete.
 */
export function collectComposite(node: CompositeAgg, docs: SegDocs[], ctx: AggContext): CompositePartial {
  const kept: { id: string; key: CompositeKey; lists: number[][] }[] = [];
  const byId = new Map<string, (typeof kept)[number]>();
  const after = node.after;
  const cmp = (a: CompositeKey, b: CompositeKey) => compareCompositeKeys(node.sources, a, b);
  forEachCompositeKey(node, docs, ctx, (key, s, d) => {
    if (after && cmp(key, after) <= 0) return;
    if (kept.length >= node.size && cmp(key, kept[kept.length - 1].key) > 0) return;
    const id = JSON.stringify(key);
    let g = byId.get(id);
    if (!g) {
      g = { id, key, lists: docs.map(() => []) };
      let lo = 0;
      let hi = kept.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (cmp(kept[mid].key, key) < 0) lo = mid + 1;
        else hi = mid;
      }
      kept.splice(lo, 0, g);
      byId.set(id, g);
      if (kept.length > node.size) byId.delete(kept.pop()!.id);
    }
    g.lists[s].push(d);
  });
  return {
    t: 'comp',
    buckets: kept.map((g) => {
      const sd = docs.map(({ seg }, s) => ({ seg, docs: Int32Array.from(g.lists[s]) }));
      const n = g.lists.reduce((x, l) => x + l.length, 0);
      return node.aggs.length > 0 ? { key: [...g.key], n, aggs: ctx.collectAggs(node.aggs, sd, ctx, false) } : { key: [...g.key], n };
    }),
  };
}

/** The docs of the composite bucket whose key is the JSON `id` (a refinement path step). */
export function compositeBucketDocs(node: CompositeAgg, id: string, docs: SegDocs[], ctx: AggContext): SegDocs[] {
  const lists = docs.map((): number[] => []);
  forEachCompositeKey(node, docs, ctx, (key, s, d) => {
    if (JSON.stringify(key) === id) lists[s].push(d);
  });
  return docs.map(({ seg }, s) => ({ seg, docs: Int32Array.from(lists[s]) }));
}
