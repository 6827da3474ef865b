/**
 * Micro-benchmark of the coordinator's query-phase merge (coordinator/search/merge.ts
 * `mergeTopHits`), not a test: 3 and 8 shard lists of 10,000 keys each (a page at `from` 9,990,
 * size 10, so the merge pops 10,000 keys), sorted by a numeric field with ties (then `_id`), and by
 * `_score`. Each row prints the best of 7 rounds of merges per second, in CPU time of this process.
 * To compare implementations on a loaded machine, pass more module paths in BENCH_MERGE_MODULES
 * (comma-separated, each exporting `mergeTopHits`): their rounds interleave, so they share the load.
 * Run: `node bench/merge.ts`   Env: BENCH_MERGE_MS (default 300 ms per round), BENCH_MERGE_MODULES.
 */
import type { ShardHit } from '../protocol/search.ts';
import { compareHits, SCORE_SORT, type SortField } from '../protocol/sort.ts';
import type { ShardTopHits } from '../coordinator/search/merge.ts';

type Merge = (results: readonly ShardTopHits[], sort: readonly SortField[], from: number, size: number) => unknown[];

const roundMs = Number(process.env.BENCH_MERGE_MS ?? 300);
const paths = (process.env.BENCH_MERGE_MODULES ?? '../coordinator/search/merge.ts').split(',');
const merges: Merge[] = [];
for (const p of paths) merges.push(((await import(p)) as { mergeTopHits: Merge }).mergeTopHits);
const KEYS = 10_000;

/** A deterministic pseudo-random generator (mulberry32), so that every run merges the same lists. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const population: SortField[] = [{ kind: 'field', field: 'population', order: 'desc', missing: '_last', mode: 'max' }];

/** `shards` lists of {@link KEYS} hits each, sorted by `sort`. */
function lists(shards: number, sort: readonly SortField[], seed: number): ShardTopHits[] {
  const rnd = random(seed);
  const scored = sort[0].kind === 'score';
  return Array.from({ length: shards }, (_, s) => {
    const hits: ShardHit[] = Array.from({ length: KEYS }, (_, i) => {
      const v = Math.floor(rnd() * 5000); // ties: about 2 hits per value per shard
      return scored ? { _id: `${s}-${i}`, _score: v / 7, sort: [v / 7] } : { _id: `${s}-${i}`, _score: null, sort: [v] };
    });
    hits.sort((a, b) => compareHits(a, b, sort));
    return { shardIndex: s, index: 'cities', hits };
  });
}

/** CPU ms of this process so far. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Merges per CPU second of each implementation, best of 7 interleaved rounds of about `roundMs` each. */
function opsPerSecond(results: ShardTopHits[], sort: readonly SortField[]): number[] {
  const best = merges.map(() => 0);
  let sink = 0;
  for (let round = 0; round < 7; round++) {
    for (const [m, merge] of merges.entries()) {
      let n = 0;
      const t0 = cpuMs();
      let t = t0;
      while (t - t0 < roundMs) {
        sink += merge(results, sort, KEYS - 10, 10).length;
        n++;
        t = cpuMs();
      }
      best[m] = Math.max(best[m], (n * 1000) / (t - t0));
    }
  }
  if (sink === 0) throw new Error('empty merge');
  return best;
}

console.log(`| shards × keys | sort | ${paths.map((p) => `merges/s ${p}`).join(' | ')} |`);
console.log(`|---|---|${paths.map(() => '---:').join('|')}|`);
for (const shards of [3, 8]) {
  for (const [name, sort] of [
    ['population desc', population],
    ['_score', SCORE_SORT],
  ] as const) {
    const results = lists(shards, sort, 42 + shards);
    console.log(
      `| ${shards} × ${KEYS.toLocaleString('en')} | ${name} | ${opsPerSecond(results, sort)
        .map((x) => x.toFixed(0))
        .join(' | ')} |`,
    );
  }
}
