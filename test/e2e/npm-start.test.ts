/**
 * `npm start` as a user runs it: two of them side by side (different FOLIO_PORT, each with its own
 * FOLIO_HOME) are two separate clusters; the first runs the compose file's etcd service itself, the
 * second is given FOLIO_ETCD (an etcd the test runs) and starts none; a shard node killed with
 * SIGKILL is restarted by the first one's supervisor and the cluster is green again with no manual
 * step; SIGTERM stops every process each of them started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, freePort } from '../../scripts/local-services.ts';
import { EtcdStore } from '../../shared/state-store/etcd-store.ts';
import { startEtcdCluster } from '../support/etcd-process.ts';
import type { EtcdCluster } from '../support/etcd-process.ts';

/** The whole file's budget. */
const BUDGET_MS = 90_000;

interface StartedCluster {
  proc: ChildProcess;
  port: number;
  home: string;
  url: string;
  output: () => string;
}

interface ServiceEntry {
  name: string;
  url: string;
  pid: number;
}

const clusters: StartedCluster[] = [];
let externalEtcd: EtcdCluster | undefined;

function npmStart(port: number, extraEnv: Record<string, string> = {}): StartedCluster {
  const home = mkdtempSync(join(tmpdir(), 'folio-npm-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, FOLIO_PORT: String(port), FOLIO_SAMPLE: 'none', FOLIO_HOME: home };
  for (const k of ['FOLIO_CLUSTER_SECRET', 'FOLIO_COMPOSE_FILE', 'FOLIO_NODES', 'FOLIO_DATA', 'FOLIO_ETCD']) delete env[k];
  Object.assign(env, extraEnv);
  const proc = spawn(process.execPath, ['scripts/start.ts'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const cluster = { proc, port, home, url: `http://127.0.0.1:${port}`, output: () => out };
  clusters.push(cluster);
  return cluster;
}

function services(c: StartedCluster): ServiceEntry[] {
  return JSON.parse(readFileSync(join(c.home, String(c.port), 'services.json'), 'utf8')) as ServiceEntry[];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms: number, c?: StartedCluster): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await Promise.resolve(fn()).catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${c ? `\n--- npm start output (tail) ---\n${c.output().slice(-6000)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function http(method: string, url: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

afterAll(async () => {
  // Whatever happened above: no process left behind, no temporary data left.
  for (const c of clusters) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  for (const c of clusters) {
    const file = join(c.home, String(c.port), 'services.json');
    if (existsSync(file)) for (const s of services(c)) if (alive(s.pid)) process.kill(s.pid, 'SIGKILL');
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    rmSync(c.home, { recursive: true, force: true });
  }
  await externalEtcd?.stop();
});

describe('npm start', () => {
  it('runs two clusters side by side, restarts a killed shard node back to green, and stops every process', { timeout: BUDGET_MS }, async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    externalEtcd = await startEtcdCluster(1);
    const a = npmStart(portA);
    const b = npmStart(portB, { FOLIO_ETCD: externalEtcd.endpoints[0] });
    for (const c of [a, b]) await until(`[folio] ready on ${c.port}`, () => c.output().includes(`[folio] ready: ${c.url}`) || undefined, 60_000, c);

    // Two clusters: their own shard nodes (free ports, not 9301–9303), their own data, their own documents.
    const [svcA, svcB] = [services(a), services(b)];
    const shardUrls = (l: ServiceEntry[]) => l.filter((s) => s.name.startsWith('shard-')).map((s) => s.url);
    expect(shardUrls(svcA)).toHaveLength(3);
    expect(shardUrls(svcA).filter((u) => shardUrls(svcB).includes(u))).toEqual([]);
    // A runs the compose file's etcd service (healthy, answering a CAS); B, given FOLIO_ETCD, runs none.
    expect(svcA.map((s) => s.name).sort()).toEqual(['coordinator', 'etcd', 'shard-0', 'shard-1', 'shard-2']);
    expect(svcB.map((s) => s.name).sort()).toEqual(['coordinator', 'shard-0', 'shard-1', 'shard-2']);
    expect(b.output()).toContain(`[folio] FOLIO_ETCD is set: using etcd at ${externalEtcd.endpoints[0]}, not starting etcd`);
    const etcdA = new EtcdStore({ endpoints: [svcA.find((s) => s.name === 'etcd')!.url] });
    try {
      expect((await etcdA.txn({ compare: [{ key: 'npm-start', modRevision: 0 }], ops: [{ op: 'put', key: 'npm-start', value: 'a' }] })).succeeded).toBe(true);
    } finally {
      await etcdA.close();
    }
    expect(existsSync(join(a.home, String(portA), 'shard-0-data', 'node.lock'))).toBe(true);
    // Every node holds a copy of every shard: a write while one node is down puts its copies out of sync.
    expect((await http('PUT', `${a.url}/docs`, { settings: { number_of_shards: 3, number_of_replicas: 2 } })).status).toBe(200);
    expect((await http('PUT', `${a.url}/docs/_doc/a?refresh=true`, { from: 'a' })).status).toBe(201);
    expect((await http('PUT', `${b.url}/docs/_doc/b?refresh=true`, { from: 'b' })).status).toBe(201);
    expect((await http('GET', `${a.url}/docs/_doc/b`)).body.found).toBe(false);
    expect((await http('GET', `${b.url}/docs/_doc/a`)).body.found).toBe(false);
    const green = (c: StartedCluster) =>
      http('GET', `${c.url}/_cluster/health?wait_for_status=green&timeout=1s`).then((r) => (r.body.status === 'green' ? true : undefined));
    await until('cluster A green', () => green(a), 30_000, a);

    // SIGKILL one shard node of A, write while it is down (its copy falls out of sync), and wait.
    const victim = svcA.find((s) => s.name === 'shard-1')!;
    const killedAt = Date.now();
    process.kill(victim.pid, 'SIGKILL');
    await until(
      'a write while shard-1 is down',
      async () => ((await http('PUT', `${a.url}/docs/_doc/c`, { from: 'a, during the outage' })).status < 300 ? true : undefined),
      30_000,
      a,
    );
    const afterWrite = (await http('GET', `${a.url}/_cluster/health`)).body.status;
    const restarted = await until('shard-1 restarted', () => services(a).find((s) => s.name === 'shard-1' && s.pid !== victim.pid), 30_000, a);
    expect(restarted.url).toBe(victim.url); // same port: the coordinator knows it by URL
    await until('cluster A green again', () => green(a), 45_000, a);
    const restartToGreenMs = Date.now() - killedAt;
    expect((await http('GET', `${a.url}/docs/_doc/a`)).body).toMatchObject({ found: true, _source: { from: 'a' } });
    expect((await http('GET', `${a.url}/docs/_doc/c`)).body).toMatchObject({ found: true });
    expect(a.output()).toMatch(
      new RegExp(`service \\[shard-1\\] \\(pid ${victim.pid}\\) died at \\S+ \\(signal SIGKILL\\) after [0-9.]+ s; restarting it in 1 s`),
    );
    console.info(
      `npm start: shard-1 SIGKILLed, restarted and the cluster green again in ${restartToGreenMs} ms (health after the outage write: ${String(afterWrite)})`,
    );

    // SIGTERM stops everything each npm start runs, the restarted node included.
    const pids = [...services(a), ...services(b)].map((s) => s.pid);
    for (const c of [a, b]) c.proc.kill('SIGTERM');
    for (const c of [a, b])
      await until(`npm start on ${c.port} to exit`, () => (c.proc.exitCode !== null || c.proc.signalCode !== null ? true : undefined), 15_000, c);
    expect([a.proc.exitCode, b.proc.exitCode]).toEqual([0, 0]);
    expect(pids.filter(alive)).toEqual([]);
    expect(existsSync(join(a.home, String(portA), 'services.json'))).toBe(false);
    // A clean shutdown released every lock (the restarted node's too).
    const locks = ['shard-0', 'shard-1', 'shard-2'].filter((s) => existsSync(join(a.home, String(portA), `${s}-data`, 'node.lock')));
    expect(locks, a.output().slice(-8000)).toEqual([]);
  });
});
