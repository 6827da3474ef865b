/**
 * Page-1 CPU bench (issue 17): CPU time per search summed over every process of one or more
 * running `npm start` clusters, and p50 / searches per second, at 1 and 16 clients, with the runs
 * of the clusters interleaved (A, B, A, B, …) so that paired figures share the machine's load.
 * CPU is read from /proc/<pid>/stat (utime + stime) of every service listed in the cluster's
 * `<FOLIO_HOME>/<port>/services.json` before and after each run, divided by the searches; it is
 * the figure to trust on a shared machine, where wall times swing with other load.
 *
 * Usage (each cluster started with `FOLIO_SAMPLE=none FOLIO_PORT=<port> FOLIO_HOME=<home> npm start`):
 * ```
 * node bench/page1.ts --cluster A=9301@/tmp/folio-a --cluster B=9302@/tmp/folio-b \
 *   [--docs 200000] [--rounds 3] [--seconds 4] [--clients 1,16] [--tasks sorted,default,count]
 * ```
 * The corpus (bench/corpus.ts, index `bench-cities`, 4 shards, 1 replica) is loaded into every
 * cluster that does not hold it yet.
 */
import { readFileSync } from 'node:fs';
import { cpuMs, waitForQuiet } from './process-cpu.ts';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCorpus } from './corpus.ts';
import { closedLoop } from './load-driver.ts';
import { FolioClient } from './measure.ts';
import { indexExists, loadSample } from '../scripts/samples/load.ts';

/** The page-1 bodies measured, by task name. */
export const PAGE1_TASKS: Record<string, Record<string, unknown>> = {
  sorted: { query: { match_all: {} }, sort: [{ population: 'desc' }], size: 10 },
  default: { query: { match_all: {} }, size: 10 },
  filtered: { query: { term: { country: 'US' } }, sort: [{ population: 'desc' }], size: 10 },
  count: { query: { term: { country: 'US' } }, track_total_hits: true, size: 10 },
  // The PostgreSQL comparison's exact count (bench/pg-tasks.ts).
  count0: { query: { term: { country: 'US' } }, track_total_hits: true, size: 0 },
  // With ES's default instead of the bench's request_cache=false (issue 17: the shard request cache; compare with count0).
  count0_cached: { query: { term: { country: 'US' } }, track_total_hits: true, size: 0 },
  // A size-0 aggregation over a filter, without and with the shard request cache.
  agg0: { query: { term: { country: 'IT' } }, track_total_hits: true, size: 0, aggs: { f: { terms: { field: 'featureCode' } } } },
  agg0_cached: { query: { term: { country: 'IT' } }, track_total_hits: true, size: 0, aggs: { f: { terms: { field: 'featureCode' } } } },
};

/** URL parameters of the tasks that have their own (measure.ts `searchRaw`; '' = none: ES's default, the index setting decides). */
export const PAGE1_TASK_PARAMS: Record<string, string> = { count0_cached: '', agg0_cached: '' };

/** One cluster under test: its label, coordinator URL and the pids of its services. */
interface Target {
  label: string;
  url: string;
  pids: number[];
  /** The coordinator's pid (its CPU is also printed on its own). */
  coordinator: number;
}

/** Parses `label=port@home` into a target (pids from services.json). */
function target(spec: string): Target {
  const m = /^([^=]+)=(\d+)@(.+)$/.exec(spec);
  if (!m) throw new Error(`--cluster wants label=port@home, got [${spec}]`);
  const services = JSON.parse(readFileSync(join(m[3], m[2], 'services.json'), 'utf8')) as { name: string; pid: number | null }[];
  const pids = services.map((s) => s.pid ?? 0).filter((p) => p > 0);
  return { label: m[1], url: `http://127.0.0.1:${m[2]}`, pids, coordinator: services.find((s) => s.name === 'coordinator')?.pid ?? 0 };
}

/** Figures of every run, by `label task clients`: CPU per search, the coordinator's share, p50, searches/s. */
const runs = new Map<string, { cpu: number; coordinator: number; p50: number; rps: number }[]>();

/** The median of `xs`. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Runs one task at `clients` on one target and prints its figures. */
async function measure(t: Target, client: FolioClient, task: string, clients: number, seconds: number): Promise<void> {
  const body = JSON.stringify(PAGE1_TASKS[task]);
  const params = PAGE1_TASK_PARAMS[task];
  const op = async (): Promise<void> => void (await client.searchRaw(body, params));
  // Warm-up outside the CPU window.
  await closedLoop(op, { clients, durationMs: 300, warmupMs: 300 });
  const cpu0 = cpuMs(t.pids);
  const coord0 = cpuMs([t.coordinator]);
  const mono0 = process.hrtime.bigint() / 1000n;
  const r = await closedLoop(op, { clients, durationMs: seconds * 1000, warmupMs: 0 });
  const mono1 = process.hrtime.bigint() / 1000n;
  const perSearch = r.requests > 0 ? (cpuMs(t.pids) - cpu0) / r.requests : NaN;
  const coordPerSearch = r.requests > 0 ? (cpuMs([t.coordinator]) - coord0) / r.requests : NaN;
  const key = `${t.label}\t${task}\t${clients}c`;
  runs.set(key, [...(runs.get(key) ?? []), { cpu: perSearch, coordinator: coordPerSearch, p50: r.p50Ms, rps: r.rps }]);
  console.log(
    `${t.label}\t${task}\t${clients}c\tcpu/search ${perSearch.toFixed(3)} ms (coordinator ${coordPerSearch.toFixed(3)})\tp50 ${r.p50Ms.toFixed(2)} ms\tp99 ${r.p99Ms.toFixed(2)} ms\t${r.rps.toFixed(0)}/s\terrors ${r.errors}${r.firstError ? ' ' + r.firstError : ''}\tmonotonic µs ${mono0}-${mono1}`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      cluster: { type: 'string', multiple: true },
      docs: { type: 'string', default: '200000' },
      rounds: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '4' },
      clients: { type: 'string', default: '1,16' },
      tasks: { type: 'string', default: 'sorted,default' },
      // CPU ms per second under which a cluster counts as quiet (raise it for profiled processes).
      quiet: { type: 'string', default: '60' },
    },
  });
  const targets = (values.cluster ?? []).map(target);
  if (targets.length === 0) throw new Error('name at least one --cluster label=port@home');
  const corpus = buildCorpus(Number(values.docs));
  for (const t of targets) {
    // loadSample indexes every document again into an existing index: only a missing one is loaded.
    if (await indexExists(t.url, 'bench-cities')) continue;
    const loaded = await loadSample(t.url, corpus.sample(4, 1_000_000), { shards: 4, replicas: 1 });
    console.log(`${t.label}: loaded ${loaded.docs} docs`);
  }
  for (const t of targets) {
    // Background merges after a load would be billed to the searches (bench/process-cpu.ts).
    const { waitedMs, quiet } = await waitForQuiet(t.pids, { maxMsPerS: Number(values.quiet) });
    console.log(`${t.label}: ${quiet ? 'quiet' : 'still busy'} after ${(waitedMs / 1000).toFixed(0)} s`);
    const before = t.pids.map((pid) => cpuMs([pid]));
    const mono0 = process.hrtime.bigint() / 1000n;
    await new Promise((r) => setTimeout(r, 3000));
    const idle = t.pids.map((pid, i) => cpuMs([pid]) - before[i]);
    console.log(
      `${t.label}\tidle CPU ms/s by pid: ${idle.map((ms, i) => `${t.pids[i]} ${(ms / 3).toFixed(0)}`).join(', ')}\tmonotonic µs ${mono0}-${process.hrtime.bigint() / 1000n}`,
    );
  }
  const clients = values.clients.split(',').map(Number);
  const clientsOf = new Map(targets.map((t) => [t, new FolioClient(t.url, 'bench-cities', Math.max(...clients))]));
  for (let round = 1; round <= Number(values.rounds); round++) {
    console.log(`# round ${round}`);
    for (const task of values.tasks.split(','))
      for (const c of clients) for (const t of targets) await measure(t, clientsOf.get(t)!, task, c, Number(values.seconds));
  }
  console.log('# medians over the rounds: CPU per search (coordinator), p50, searches/s');
  for (const [key, rs] of [...runs].sort((a, b) => a[0].split('\t').slice(1).join().localeCompare(b[0].split('\t').slice(1).join())))
    console.log(
      `${key}\t${median(rs.map((x) => x.cpu)).toFixed(3)} ms (${median(rs.map((x) => x.coordinator)).toFixed(3)})\tp50 ${median(rs.map((x) => x.p50)).toFixed(2)} ms\t${median(rs.map((x) => x.rps)).toFixed(0)}/s`,
    );
  await Promise.all([...clientsOf.values()].map((c) => c.close()));
}

await main();
