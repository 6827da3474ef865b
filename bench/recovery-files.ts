/**
 * File-based versus ops-based peer recovery (issue 16, docs/recovery.md), measured in one run on
 * the same machine: two clusters of the repository's processes (test/support/compose-cluster.ts:
 * 3 shard nodes, 1 coordinator, loopback), one after the other. Each loads the same
 * {@link DOCS} documents (geonames-like: name, country, population, location, a text field) into
 * one index of 1 shard without replicas, refreshes and flushes, then sets `number_of_replicas: 1`
 * and times the new replica's recovery to green. The first cluster runs with the defaults (a
 * target more than 10,000 ops behind gets the files, throttled at 40mb/s); the second with
 * `FOLIO_RECOVERY_FILE_MIN_OPS=-1` (every recovery by operations, as before). Prints the time to
 * green, the coordinator's recovery outcome and, for the files, the bytes and bytes/s of phase 1.
 *
 * Run: `node bench/recovery-files.ts` (FOLIO_BENCH_DOCS to change the count, default 300,000;
 * FOLIO_RECOVERY_MAX_BYTES_PER_SEC to change the throttle of the file-based run).
 */
import { randomBytes } from 'node:crypto';
import { es } from './es-call.ts';
import { startComposeCluster } from '../test/support/compose-cluster.ts';

const DOCS = Number(process.env.FOLIO_BENCH_DOCS ?? 300_000);
const BULK_DOCS = 5_000;
const INDEX = 'recovery-files';
const COUNTRIES = ['FR', 'DE', 'US', 'BR', 'IN', 'CN', 'JP', 'NG', 'EG', 'AU', 'CA', 'MX'];
const WORDS = ['river', 'mount', 'saint', 'lake', 'port', 'north', 'valley', 'new', 'old', 'upper', 'bay', 'field'];

/** Document `i`, the same in both runs. */
function doc(i: number): Record<string, unknown> {
  const w = (k: number) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return {
    name: `${w(1)} ${w(2)} ${i}`,
    country: COUNTRIES[i % COUNTRIES.length],
    population: (i * 7919) % 2_000_000,
    location: { lat: ((i * 37) % 18_000) / 100 - 90, lon: ((i * 91) % 36_000) / 100 - 180 },
    text: `${w(3)} ${w(4)} ${w(5)} ${w(6)} near ${w(7)} ${w(8)}`,
  };
}

/** The fields of a `_recovery` shard entry this bench reads. */
interface RecoveryEntry {
  primary: boolean;
  index: { total_time_in_millis: number; source_throttle_time_in_millis: number };
  verify_index: { total_time_in_millis: number };
}

/** One cluster: load, add a replica, time its recovery. */
async function run(label: string, env: Record<string, string>): Promise<Record<string, unknown>> {
  const cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'info', FOLIO_CLUSTER_SECRET: randomBytes(32).toString('hex'), ...env } });
  const url = cluster.coordinatorUrl;
  try {
    await es(url, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    const loadStarted = Date.now();
    for (let b = 0; b < DOCS; b += BULK_DOCS) {
      const lines: string[] = [];
      for (let i = b; i < Math.min(DOCS, b + BULK_DOCS); i++) lines.push(JSON.stringify({ index: { _id: String(i) } }), JSON.stringify(doc(i)));
      const r = await es<{ errors: boolean }>(url, 'POST', `/${INDEX}/_bulk`, lines.join('\n') + '\n', 'application/x-ndjson');
      if (r.errors) throw new Error('bulk item failed');
    }
    await es(url, 'POST', `/${INDEX}/_refresh`);
    await es(url, 'POST', `/${INDEX}/_flush`);
    const loadSec = (Date.now() - loadStarted) / 1000;
    const started = Date.now();
    await es(url, 'PUT', `/${INDEX}/_settings`, { index: { number_of_replicas: 1 } });
    let status = '';
    while (status !== 'green') status = (await es<{ status: string }>(url, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=60s`)).status;
    const greenSec = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 500)); // the log line follows the in-sync change
    const line = cluster
      .logs('coordinator')
      .split('\n')
      .filter((l) => l.includes('"shard copy recovered"'))
      .at(-1);
    const outcome = line ? (JSON.parse(line) as { mode: string; ops: number; tookMs: number; files?: { files: number; bytes: number; tookMs: number } }) : null;
    const rec = await es<Record<string, { shards: RecoveryEntry[] }>>(url, 'GET', `/${INDEX}/_recovery`);
    const replica = rec[INDEX].shards.find((s) => !s.primary);
    const f = outcome?.files;
    return {
      label,
      docs: DOCS,
      loadSec,
      greenSec,
      mode: outcome?.mode,
      recoveryMs: outcome?.tookMs,
      opsReplayed: outcome?.ops,
      ...(f
        ? {
            files: f.files,
            fileMiB: Number((f.bytes / 1024 / 1024).toFixed(1)),
            phase1Ms: f.tookMs,
            phase1MiBPerSec: Number((f.bytes / 1024 / 1024 / (f.tookMs / 1000)).toFixed(1)),
            // The index stage (the copy of the files) apart from verify_index (checks, the store filled, the copy opened).
            indexStageMs: replica?.index.total_time_in_millis,
            copyMiBPerSec: replica ? Number((f.bytes / 1024 / 1024 / (replica.index.total_time_in_millis / 1000)).toFixed(1)) : undefined,
            verifyStageMs: replica?.verify_index.total_time_in_millis,
            throttledMs: replica?.index.source_throttle_time_in_millis,
          }
        : {}),
    };
  } finally {
    await cluster.stop();
  }
}

const results = [];
results.push(
  await run('files', process.env.FOLIO_RECOVERY_MAX_BYTES_PER_SEC ? { FOLIO_RECOVERY_MAX_BYTES_PER_SEC: process.env.FOLIO_RECOVERY_MAX_BYTES_PER_SEC } : {}),
);
console.log(JSON.stringify(results[0]));
results.push(await run('ops', { FOLIO_RECOVERY_FILE_MIN_OPS: '-1' }));
console.log(JSON.stringify(results[1]));
