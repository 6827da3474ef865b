/**
 * The abuse suite's large-terms case as an A/B measure (not a test): against one or more running
 * clusters (`npm start` with `FOLIO_SAMPLE=cities`, or any cluster holding `cities`), sends `RUNS`
 * (default 20) searches one after another, each a `bool.should` of a 60,000-term `terms` on
 * `country` and a 10,000-id `ids` list (test/e2e/abuse.test.ts), while a probe asks every service's
 * `/livez`. Prints per cluster the wall time, the median search, the worst `/livez`, and the CPU
 * time each service's process spent (user + system from `/proc/<pid>/stat`, all threads), read from
 * `<FOLIO_HOME>/<port>/services.json`. On a shared machine the wall time follows the load average;
 * the CPU time per service does not, so compare clusters by it, in the same run, alternating.
 * Run: `node bench/large-terms.ts http://127.0.0.1:9201=/path/home/9201/services.json http://127.0.0.1:9202=...`
 * (`ROUNDS` alternations, default 2). Linux only (reads /proc).
 * @see docs/reliability.md (the 60,000-term case)
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

/** One service of a cluster as services.json lists it (scripts/start.ts). */
interface Service {
  name: string;
  url: string;
  pid?: number;
}

const runs = Number(process.env.RUNS ?? 20);
const rounds = Number(process.env.ROUNDS ?? 2);
const clusters = process.argv.slice(2).map((arg) => {
  const [url, servicesFile] = arg.split('=');
  const services = servicesFile ? (JSON.parse(readFileSync(servicesFile, 'utf8')) as Service[]) : [{ name: 'coordinator', url }];
  return { url, services };
});
if (clusters.length === 0) throw new Error('usage: node bench/large-terms.ts <coordinator url>[=<services.json>] ...');

/** CPU time of a process in ms (utime + stime, clock ticks of 10 ms), 0 when unreadable. */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The case's search body for round `i` (distinct values per search, as the abuse case sends). */
function body(i: number): string {
  const values = Array.from({ length: 60_000 }, (_, j) => `v${i}-${j}`);
  return JSON.stringify({ query: { bool: { should: [{ terms: { country: values } }, { ids: { values: values.slice(0, 10_000) } }] } } });
}

async function search(url: string, i: number): Promise<number> {
  const t = performance.now();
  const res = await request(`${url}/cities/_search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body(i),
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${url}: status ${res.statusCode}`);
  return performance.now() - t;
}

/** Runs the case once against one cluster. */
async function measure(cluster: (typeof clusters)[number]): Promise<Record<string, unknown>> {
  for (let w = 0; w < 2; w++) await search(cluster.url, 1_000 + w); // warm the search path
  const agent = new Agent({ connections: 2 });
  let stop = false;
  let worstLivez = 0;
  let worstBy = '';
  const probes = cluster.services.map(async (s) => {
    while (!stop) {
      const t = performance.now();
      try {
        await (await request(`${s.url}/livez`, { dispatcher: agent })).body.text();
      } catch {
        // a service without /livez (etcd) answers or fails fast: its time still counts
      }
      const ms = performance.now() - t;
      if (ms > worstLivez) [worstLivez, worstBy] = [ms, s.name];
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  const cpu0 = cluster.services.map((s) => cpuMs(s.pid));
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) times.push(await search(cluster.url, i));
  const wallMs = performance.now() - t0;
  const cpu = Object.fromEntries(cluster.services.map((s, i) => [s.name, cpuMs(s.pid) - cpu0[i]]));
  stop = true;
  await Promise.all(probes);
  await agent.close();
  times.sort((a, b) => a - b);
  return {
    url: cluster.url,
    runs,
    wallMs: Math.round(wallMs),
    medianMs: Math.round(times[times.length >> 1]),
    worstLivezMs: Math.round(worstLivez),
    worstLivezBy: worstBy,
    cpuMs: cpu,
  };
}

for (let r = 0; r < rounds; r++) {
  for (const c of clusters) console.log(JSON.stringify({ round: r + 1, ...(await measure(c)) }));
}
