/**
 * The resident memory of real shard-node processes per document copy, part by part, after the load
 * of the scale run's shape at a smaller size (issue 16; docs/performance.md, "Resident memory per
 * copy"). Starts `FOLIO_BENCH_NODES` shard nodes (default 2) and a coordinator (bench/cluster.ts),
 * loads `FOLIO_BENCH_DOCS` documents of bench/corpus.ts (default 500,000) into as many shards as
 * nodes with 1 replica, so that each node holds `docs` copies (the 2 M scale run: 1 M per node),
 * waits for green, flushes, waits until the nodes are quiet, then reads in every node after two
 * forced GCs: `process.memoryUsage()`, V8's heap spaces (committed and used) and
 * `/proc/self/smaps_rollup`, against the same read of the empty nodes. Prints one JSON object.
 * Run: `node bench/node-memory-cluster.ts`.
 */
import { loadSample } from '../scripts/samples/load.ts';
import { startBenchCluster } from './cluster.ts';
import { buildCorpus } from './corpus.ts';
import { waitForQuiet } from './process-cpu.ts';

const NODES = Number(process.env.FOLIO_BENCH_NODES ?? 2);
const DOCS = Number(process.env.FOLIO_BENCH_DOCS ?? 500_000);

/** Evaluated in each shard node: its memory as one JSON string. */
const READ = `(() => {
  const v8 = process.getBuiltinModule('v8');
  const fs = process.getBuiltinModule('fs');
  const smaps = {};
  for (const l of fs.readFileSync('/proc/self/smaps_rollup', 'utf8').split('\\n')) {
    const m = /^(\\w+):\\s+(\\d+) kB/.exec(l);
    if (m) smaps[m[1]] = Number(m[2]) * 1024;
  }
  // anonymous resident bytes by mapping: the main malloc arena ([heap]), glibc thread arenas (64 MiB-aligned), the rest (V8 pages, mmap'd blocks)
  const anon = { brk: 0, threadArenas: 0, other: 0 };
  let kind = null;
  for (const l of fs.readFileSync('/proc/self/smaps', 'utf8').split('\\n')) {
    const h = /^([0-9a-f]+)-([0-9a-f]+) \\S+ \\S+ \\S+ \\S+\\s*(.*)$/.exec(l);
    if (h) {
      const start = BigInt('0x' + h[1]);
      kind = h[3] === '[heap]' ? 'brk' : h[3] === '' && start % 67108864n === 0n && BigInt('0x' + h[2]) - start <= 67108864n ? 'threadArenas' : 'other';
      continue;
    }
    const m = /^Anonymous:\\s+(\\d+) kB/.exec(l);
    if (m && kind) anon[kind] += Number(m[1]) * 1024;
  }
  const spaces = {};
  for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name] = { committed: s.physical_space_size, used: s.space_used_size };
  const h = v8.getHeapStatistics();
  return JSON.stringify({ mem: process.memoryUsage(), smaps, anon, spaces, heapCommitted: h.total_physical_size, mallocedMemory: h.malloced_memory });
})()`;

type Read = {
  mem: NodeJS.MemoryUsage;
  smaps: Record<string, number>;
  anon: { brk: number; threadArenas: number; other: number };
  spaces: Record<string, { committed: number; used: number }>;
  heapCommitted: number;
  mallocedMemory: number;
};

/** Flattens one node's read into named byte figures. */
function figures(r: Read): Record<string, number> {
  const out: Record<string, number> = {
    rss: r.mem.rss,
    rssAnon: r.smaps.Anonymous,
    rssFile: r.smaps.Rss - r.smaps.Anonymous,
    heapUsed: r.mem.heapUsed,
    heapCommitted: r.heapCommitted,
    heapSlack: r.heapCommitted - r.mem.heapUsed,
    external: r.mem.external,
    v8Malloced: r.mallocedMemory,
    nativeOutsideV8: r.smaps.Anonymous - r.heapCommitted - r.mem.external,
    'anon.brk': r.anon.brk,
    'anon.threadArenas': r.anon.threadArenas,
    'anon.other': r.anon.other,
  };
  for (const [name, s] of Object.entries(r.spaces)) {
    out[`${name}.committed`] = s.committed;
    out[`${name}.used`] = s.used;
  }
  return out;
}

async function main(): Promise<void> {
  const corpus = buildCorpus(DOCS);
  const cluster = await startBenchCluster(NODES);
  try {
    const before = ((await cluster.shardEvaluate(READ)) as Read[]).map(figures);
    const t0 = performance.now();
    await loadSample(cluster.coordinatorUrl, corpus.sample(NODES, 2_000_000), { batchDocs: 5000, replicas: 1 });
    const loadS = (performance.now() - t0) / 1000;
    for (;;) {
      const h = (await (await fetch(`${cluster.coordinatorUrl}/_cluster/health?wait_for_status=green&timeout=5s`)).json()) as { status: string };
      if (h.status === 'green') break;
    }
    const flushAndRead = async () => {
      await fetch(`${cluster.coordinatorUrl}/${corpus.sample(NODES, 2_000_000).name}/_flush`, { method: 'POST' });
      await waitForQuiet(cluster.shardPids, { deadlineMs: 300_000 });
      return ((await cluster.shardEvaluate(READ)) as Read[]).map(figures);
    };
    const grownPerCopy = (after: Record<string, number>[]) => {
      const out: Record<string, number> = {};
      for (const k of Object.keys(after[0])) out[k] = +(after.reduce((s, a, i) => s + a[k] - before[i][k], 0) / (2 * DOCS)).toFixed(1);
      return out;
    };
    const after = await flushAndRead(); // as bench:scale reads it: one flush, then quiet
    const perCopy = grownPerCopy(after);
    const perCopyAfterSecondFlush = grownPerCopy(await flushAndRead()); // the merges that ran after the first flush, flushed too
    const perNodeMiB = after.map((a) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, +(v / 2 ** 20).toFixed(1)])));
    const report = {
      nodes: NODES,
      docs: DOCS,
      copiesPerNode: (2 * DOCS) / NODES,
      loadS: +loadS.toFixed(1),
      rawSourcePerDoc: +corpus.rawSourceBytesPerDoc.toFixed(1),
      perCopy,
      perCopyAfterSecondFlush,
      perNodeMiB,
    };
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } finally {
    await cluster.stop();
  }
}

await main();
