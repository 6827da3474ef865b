/**
 * The coordinator's memory on the abuse suite's 100,000-delete `_bulk` (issue 11; test/e2e/abuse.test.ts,
 * "bulk deletes of never-existing ids"; docs/reliability.md). Starts 2 shard nodes and a coordinator
 * (bench/cluster.ts), creates an index of 2 shards and 0 replicas, sends a first bulk of 10,000
 * deletes (warm-up), then `FOLIO_BENCH_RUNS` (default 5) bulks of 100,000 `delete` lines of unknown
 * ids, one after the other. Per run it prints the time, the coordinator's RSS growth 1.5 s after the
 * reply (what the abuse case asserts, < 128 MiB), its peak RSS growth (/proc/<pid>/status VmRSS
 * every 20 ms), and from `/metrics` (every 100 ms) its peak growth of V8 heap used + external memory
 * (young-generation garbage included) and of the old and large-object spaces + external memory
 * (what outlives the scavenger), each against the read before the run.
 * Run: `node bench/bulk-memory.ts`; `FOLIO_BENCH_COORDINATOR_NODE_FLAGS=--trace-gc-nvp
 * FOLIO_BENCH_LOG_DIR=<dir>` logs the coordinator's collections to `<dir>/coordinator.log`.
 */
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { startBenchCluster } from './cluster.ts';
import { es } from './es-call.ts';

const RUNS = Number(process.env.FOLIO_BENCH_RUNS ?? 5);
const ITEMS = 100_000;
const INDEX = 'bulk-memory';
const MiB = 1024 * 1024;
/** As the abuse suite's wait before it reads RSS after a case. */
const DECAY_WAIT_MS = 1_500;

/** The resident bytes of `pid` (VmRSS). */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** The coordinator's memory from its `/metrics`: V8 heap used + external, and the part of it outside the young generation. */
interface HeapRead {
  heapAndExternal: number;
  /** V8's old and large-object spaces used, + external memory: what outlives the scavenger. */
  oldAndExternal: number;
}

async function readHeap(url: string): Promise<HeapRead> {
  const res = await request(`${url}/metrics`);
  const text = await res.body.text();
  const value = (name: string, space?: string): number =>
    Number(new RegExp(`^${name}(?:\\{[^}]*${space ? `space="${space}"` : ''}[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
  const external = value('folio_nodejs_external_memory_bytes');
  const space = (name: string): number => value('folio_nodejs_heap_space_size_used_bytes', name);
  return {
    heapAndExternal: value('folio_nodejs_heap_size_used_bytes') + external,
    oldAndExternal: space('old') + space('large_object') + external,
  };
}

/** Samples `read` every `everyMs` until stopped; resolves the highest value seen. */
function peakOf(read: () => number | Promise<number>, everyMs: number): { stop: () => Promise<number> } {
  let peak = -Infinity;
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        peak = Math.max(peak, await read());
      } catch {
        // a sample lost under load: the next one counts
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return peak;
    },
  };
}

function bulkBody(items = ITEMS): string {
  const lines: string[] = [];
  for (let i = 0; i < items; i++) lines.push(JSON.stringify({ delete: { _id: `ghost-${i}-${Math.random().toString(36).slice(2)}` } }));
  return lines.join('\n') + '\n';
}

const mib = (bytes: number): string => (bytes / MiB).toFixed(1);

const cluster = await startBenchCluster(2);
try {
  const url = cluster.coordinatorUrl;
  const pid = cluster.coordinatorPid;
  await es(url, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 2, number_of_replicas: 0 } });
  await es(url, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=60s`);
  // A first, smaller bulk: the coordinator's code is compiled and its young generation grown, as in
  // the abuse suite, whose cluster has loaded its sample data before.
  await es(url, 'POST', `/${INDEX}/_bulk`, bulkBody(10_000), 'application/x-ndjson');
  await new Promise((r) => setTimeout(r, DECAY_WAIT_MS));
  console.log(
    'run | ms | RSS growth after 1.5 s (MiB) | peak RSS growth (MiB) | peak heap+external growth (MiB) | peak old+large-object space+external growth (MiB)',
  );
  for (let run = 1; run <= RUNS; run++) {
    const body = bulkBody();
    const rssBefore = rss(pid);
    const heapBefore = await readHeap(url);
    const rssPeak = peakOf(() => rss(pid), 20);
    // One /metrics read per 100 ms: the reads allocate in the coordinator too.
    let heapPeak = heapBefore;
    const heapSampler = peakOf(async () => {
      const h = await readHeap(url);
      heapPeak = {
        heapAndExternal: Math.max(heapPeak.heapAndExternal, h.heapAndExternal),
        oldAndExternal: Math.max(heapPeak.oldAndExternal, h.oldAndExternal),
      };
      return 0;
    }, 100);
    const t0 = performance.now();
    const reply = await es<{ items: unknown[]; errors: boolean }>(url, 'POST', `/${INDEX}/_bulk`, body, 'application/x-ndjson');
    const ms = performance.now() - t0;
    if (reply.items.length !== ITEMS) throw new Error(`${reply.items.length} items answered`);
    await new Promise((r) => setTimeout(r, DECAY_WAIT_MS));
    const rssAfter = rss(pid);
    const [peakRss] = await Promise.all([rssPeak.stop(), heapSampler.stop()]);
    console.log(
      `${run} | ${Math.round(ms)} | ${mib(rssAfter - rssBefore)} | ${mib(peakRss - rssBefore)} | ${mib(heapPeak.heapAndExternal - heapBefore.heapAndExternal)} | ${mib(heapPeak.oldAndExternal - heapBefore.oldAndExternal)}`,
    );
  }
} finally {
  await cluster.stop();
}
