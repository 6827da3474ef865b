/**
 * Property test of `composite` paging through real shard engines: random documents (multi-valued
 * and missing values, keys leaning to shards) in 1–8 shards; walking every page with `after_key`
 * must return each composite key exactly once, in order, with its exact count: the concatenated
 * pages equal the oracle list computed from all the documents at once.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAggregations } from '../../rest/aggs/agg-parse.ts';
import { mergeMappings } from '../../../shared/dynamic-mapping.ts';
import { flatFields, type Mapping } from '../../../protocol/mapping.ts';
import { compareCodePoints } from '../../../protocol/sort.ts';
import { collectShardAggs } from '../../../shard-node/engine/aggs/shard-aggs.ts';
import { Shard } from '../../../shard-node/engine/shard.ts';
import { reduceAggs } from './reduce.ts';
import { renderAggs } from './render.ts';
import { searcherOf } from '../../../shard-node/engine/searcher.ts';

const MAPPING: Mapping = { properties: { tag: { type: 'keyword' }, n: { type: 'long' } } };
interface Doc {
  tags: string[];
  n: number | null;
}

const docArb = fc.record({
  tags: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'é', 'Z'), { maxLength: 2 }),
  n: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
  shard: fc.nat(7),
});

describe('composite paging through real shard engines', () => {
  it('a walk with after_key returns every key once, in order, with exact counts', () => {
    fc.assert(
      fc.property(
        fc.array(docArb, { minLength: 1, maxLength: 200, size: 'max' }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom<'asc' | 'desc'>('asc', 'desc'),
        fc.boolean(),
        (raw, shardCount, size, order, missingBucket) => {
          let mapping = MAPPING;
          const shards = Array.from(
            { length: shardCount },
            (_, s) => new Shard({ index: 'c', shard: s, getMapping: () => mapping, updateMapping: (u) => (mapping = mergeMappings(mapping, u)) }),
          );
          const docs: Doc[] = raw.map((r) => ({ tags: r.tags, n: r.n }));
          raw.forEach((r, i) => {
            const source: Record<string, unknown> = { tag: r.tags };
            if (r.n !== null) source.n = r.n;
            const [res] = shards[r.shard % shardCount].apply([{ op: 'index', _id: `d${i}`, source: JSON.stringify(source), create: false }]);
            if (res.error) throw new Error(JSON.stringify(res.error));
          });
          for (const s of shards) s.refresh();
          const gens = shards.map((s) => s.acquire());
          const sources = [
            { t: { terms: { field: 'tag', order, missing_bucket: missingBucket } } },
            { h: { histogram: { field: 'n', interval: 5, missing_bucket: missingBucket } } },
          ];
          // Oracle: every (tag, bucket) combination of each doc once, with counts, in composite order.
          const counts = new Map<string, { t: string | null; h: number | null; n: number }>();
          for (const d of docs) {
            const ts: (string | null)[] = d.tags.length > 0 ? [...new Set(d.tags)] : missingBucket ? [null] : [];
            const hs: (number | null)[] = d.n !== null ? [Math.floor(d.n / 5) * 5] : missingBucket ? [null] : [];
            for (const t of ts)
              for (const h of hs) {
                const id = JSON.stringify([t, h]);
                const c = counts.get(id) ?? { t, h, n: 0 };
                c.n++;
                counts.set(id, c);
              }
          }
          const dir = order === 'asc' ? 1 : -1;
          const oracle = [...counts.values()].sort((x, y) => {
            if (x.t !== y.t) return x.t === null ? -dir : y.t === null ? dir : dir * compareCodePoints(x.t, y.t);
            if (x.h !== y.h) return x.h === null ? -1 : y.h === null ? 1 : x.h - y.h;
            return 0;
          });
          const walked: { t: unknown; h: unknown; n: number }[] = [];
          let after: Record<string, unknown> | undefined;
          for (let page = 0; page < 100; page++) {
            const nodes = parseAggregations({ c: { composite: { sources, size, ...(after ? { after } : {}) } } });
            const o = reduceAggs(
              nodes,
              gens.map((g) => collectShardAggs(searcherOf(g), nodes, { kind: 'match_all', boost: 1 })),
            );
            if (!o.done) throw new Error('composite needs no refinement');
            const c = renderAggs(o.reduced, { fieldMapping: (f) => flatFields(MAPPING).get(f), typedKeys: false }).c as {
              after_key?: Record<string, unknown>;
              buckets: { key: { t: unknown; h: unknown }; doc_count: number }[];
            };
            for (const b of c.buckets) walked.push({ t: b.key.t, h: b.key.h, n: b.doc_count });
            if (c.buckets.length < size) break;
            after = c.after_key;
          }
          expect(walked).toEqual(oracle);
        },
      ),
      { numRuns: 120 },
    );
  });
});
