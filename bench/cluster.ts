/**
 * The Folio cluster of the bench: the repository's docker-compose.yml, widened to `shards` shard
 * services (copies of `shard-0`) in a temporary compose file, run as local processes through the
 * same translation as `npm start` and the e2e tests (scripts/local-services.ts). Shard nodes run
 * with the V8 inspector on a loopback port, so the bench can force a GC before reading their
 * resident memory from /proc/<pid>/status. Every service's output lines go to `<name>.log` in a
 * directory that outlives the run (`FOLIO_BENCH_LOG_DIR`, else a new `folio-bench-logs-*` under the
 * temporary directory), so that a long run's failures (a replica failed mid-bulk) can be read after.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createWriteStream, mkdirSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startProcess, stopProcess, waitHealthy } from '../scripts/local-process.ts';
import type { RunningService } from '../scripts/local-process.ts';
import { dependencyLevels, freePort, namedVolumesOf, readComposeFile, translateServices } from '../scripts/local-services.ts';
import { etcdServicesOf } from '../scripts/local-etcd.ts';
import type { ComposeFile } from '../scripts/local-services.ts';

/** How long one service may take to become healthy. */
const HEALTHY_DEADLINE_MS = 60_000;

/** A running bench cluster. */
export interface BenchCluster {
  coordinatorUrl: string;
  /** PIDs of the shard-node processes (new ones after {@link BenchCluster.restartShardNodes}). */
  readonly shardPids: number[];
  /** PID of the coordinator process. */
  coordinatorPid: number;
  /** Forces a full GC in every shard node (via its inspector) and returns their summed memory. */
  shardMemory(): Promise<ShardMemory>;
  /** Forces two full GCs in every shard node, then evaluates `expression` (returning a JSON string) in each; the parsed results in node order. */
  shardEvaluate(expression: string): Promise<unknown[]>;
  /**
   * Stops every shard node (SIGTERM, SIGKILL after `graceMs`), starts them again on the same ports
   * and data directories, and resolves the `performance.now()` at which the new processes were
   * spawned, once each answers its health check (the caller waits for green itself).
   */
  restartShardNodes(graceMs: number): Promise<number>;
  /** Bytes of every file in the shard nodes' data directories (segment files, translog, SQLite). */
  shardDataBytes(): number;
  /** The directory holding each service's `<name>.log` (kept after {@link BenchCluster.stop}). */
  logDir: string;
  /** Stops every process and removes the temporary directory. */
  stop(): Promise<void>;
}

/** Summed size of the files under `dir`, recursively (0 when it is missing). */
function treeBytes(dir: string): number {
  let total = 0;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += treeBytes(p);
    else if (e.isFile()) total += statSync(p).size;
  }
  return total;
}

/** Summed memory of the shard nodes, bytes. */
export interface ShardMemory {
  rss: number;
  heapUsed: number;
  /** V8 `external` (includes ArrayBuffers: typed-array columns, Buffers). */
  external: number;
  /** True when a GC could be forced in every shard node before reading. */
  gcForced: boolean;
}

/** Writes a compose file with `shards` shard services and the coordinator pointing at all of them. */
export function widenCompose(compose: ComposeFile, shards: number): ComposeFile {
  const template = compose.services['shard-0'];
  const coord = structuredClone(compose.services.coordinator);
  // Services beside the shard nodes and the coordinator (etcd) and their volumes stay as they are.
  const isNode = (name: string) => name.startsWith('shard-') || name === 'coordinator';
  const services: ComposeFile['services'] = Object.fromEntries(Object.entries(compose.services).filter(([name]) => !isNode(name)));
  const volumes: Record<string, null> = Object.fromEntries(
    Object.keys(compose.volumes ?? {})
      .filter((v) => !v.startsWith('shard-'))
      .map((v) => [v, null]),
  );
  for (let i = 0; i < shards; i++) {
    const s = structuredClone(template);
    s.environment = { ...(s.environment as Record<string, string>), FOLIO_NODE_ID: `shard-${i}` };
    // Its own data volume; the volumes every service shares (the snapshot repository) stay.
    s.volumes = ((template.volumes ?? []) as string[]).map((v) => (v.startsWith('shard-0-data:') ? `shard-${i}-data:/data` : v));
    services[`shard-${i}`] = s;
    volumes[`shard-${i}-data`] = null;
  }
  const port = (coord.environment as Record<string, string>).FOLIO_NODES.split(',')[0].split(':').at(-1);
  coord.environment = {
    ...(coord.environment as Record<string, string>),
    FOLIO_NODES: Array.from({ length: shards }, (_, i) => `http://shard-${i}:${port}`).join(','),
  };
  const others = Object.entries((coord.depends_on ?? {}) as Record<string, unknown>).filter(([name]) => !isNode(name));
  const nodes = Array.from({ length: shards }, (_, i): [string, { condition: string }] => [`shard-${i}`, { condition: 'service_healthy' }]);
  coord.depends_on = Object.fromEntries([...(others as [string, { condition?: string }][]), ...nodes]);
  services.coordinator = coord;
  return { ...compose, services, volumes };
}

/** VmRSS of a process in bytes (0 when it is gone). */
export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs one inspector command on the process listening on `port`; resolves its result. */
async function inspect(port: number, calls: { method: string; params?: object }[]): Promise<unknown[]> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const ws = new WebSocket(list[0].webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`inspector on ${port}: connection failed`));
  });
  try {
    const out: unknown[] = [];
    for (const [id, call] of calls.entries()) {
      ws.send(JSON.stringify({ id, ...call }));
      out.push(
        await new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`inspector on ${port}: ${call.method} timed out`)), 30_000);
          ws.onmessage = (ev) => {
            const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: unknown };
            if (msg.id !== id) return;
            clearTimeout(timer);
            if (msg.error) reject(new Error(`inspector: ${JSON.stringify(msg.error)}`));
            else resolve(msg.result);
          };
        }),
      );
    }
    return out;
  } finally {
    ws.close();
  }
}

/** Forces two full GCs in each shard node through its inspector, then sums their memory. */
async function forcedGcMemory(shardRuns: RunningService[], inspectPorts: Map<string, number>): Promise<ShardMemory> {
  const total: ShardMemory = { rss: 0, heapUsed: 0, external: 0, gcForced: true };
  for (const r of shardRuns) {
    try {
      const [, , mem] = await inspect(inspectPorts.get(r.service.name)!, [
        { method: 'HeapProfiler.collectGarbage' },
        { method: 'HeapProfiler.collectGarbage' },
        { method: 'Runtime.evaluate', params: { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true } },
      ]);
      const usage = JSON.parse((mem as { result: { value: string } }).result.value) as NodeJS.MemoryUsage;
      total.heapUsed += usage.heapUsed;
      total.external += usage.external;
    } catch {
      total.gcForced = false;
    }
    total.rss += rssBytes(r.child.pid ?? 0);
  }
  return total;
}

/** The directory for the services' logs: `FOLIO_BENCH_LOG_DIR` (created if missing) or a new temporary one. */
async function benchLogDir(): Promise<string> {
  const configured = process.env.FOLIO_BENCH_LOG_DIR;
  if (!configured) return mkdtemp(join(tmpdir(), 'folio-bench-logs-'));
  mkdirSync(configured, { recursive: true });
  return configured;
}

/**
 * Starts the service with its output lines appended to `<logDir>/<name>.log`; the coordinator with
 * the Node flags of FOLIO_BENCH_COORDINATOR_NODE_FLAGS (e.g. `--trace-gc`, which NODE_OPTIONS refuses).
 */
function startLogged(service: Parameters<typeof startProcess>[0], logDir: string): RunningService {
  const flags = service.name === 'coordinator' ? (process.env.FOLIO_BENCH_COORDINATOR_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '') : [];
  if (flags.length > 0) service = { ...service, argv: [service.argv[0], ...flags, ...service.argv.slice(1)] };
  const file = createWriteStream(join(logDir, `${service.name}.log`), { flags: 'a' });
  const run = startProcess(service, { onLine: (line) => file.write(line + '\n') });
  void run.exited.then(() => file.end());
  return run;
}

/** Starts `shards` shard nodes + 1 coordinator (log level warn) and waits until all are healthy. */
export async function startBenchCluster(shards: number): Promise<BenchCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'folio-bench-'));
  const logDir = await benchLogDir();
  const compose = widenCompose(readComposeFile(), shards);
  const composeFile = join(dir, 'docker-compose.yml');
  await writeFile(composeFile, stringify(compose));
  const levels = dependencyLevels(compose);
  const names = levels.flat();
  const ports: Record<string, number> = {};
  for (const name of names) ports[name] = await freePort();
  const volumeDirs: Record<string, string> = {};
  for (const name of names) for (const v of namedVolumesOf(compose, name)) volumeDirs[v] = join(dir, v);
  const peerPorts: Record<string, number> = {};
  for (const name of etcdServicesOf(compose)) if (name in ports) peerPorts[name] = await freePort();
  const services = translateServices(compose, { ports, volumeDirs, peerPorts, env: { FOLIO_LOG_LEVEL: process.env.FOLIO_BENCH_LOG_LEVEL ?? 'warn' } });
  const inspectPorts = new Map<string, number>();
  for (const s of services) {
    if (!s.name.startsWith('shard-')) continue;
    const p = await freePort();
    inspectPorts.set(s.name, p);
    s.argv = [s.argv[0], `--inspect=127.0.0.1:${p}`, ...s.argv.slice(1)];
  }
  const running: RunningService[] = [];
  const killAll = () => {
    for (const r of running) if (!r.hasExited()) r.child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  const stop = async () => {
    await Promise.all(running.map((r) => stopProcess(r)));
    process.off('exit', killAll);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const level of levels) {
      const started = level.map((name) =>
        startLogged(
          services.find((s) => s.name === name)!,
          logDir,
        ),
      );
      running.push(...started);
      await Promise.all(started.map((r) => waitHealthy(r, HEALTHY_DEADLINE_MS)));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  let shardRuns = running.filter((r) => r.service.name.startsWith('shard-'));
  return {
    coordinatorUrl: running.find((r) => r.service.name === 'coordinator')!.service.url,
    get shardPids() {
      return shardRuns.map((r) => r.child.pid ?? 0);
    },
    coordinatorPid: running.find((r) => r.service.name === 'coordinator')!.child.pid ?? 0,
    shardMemory: () => forcedGcMemory(shardRuns, inspectPorts),
    shardEvaluate: (expression) =>
      Promise.all(
        shardRuns.map(async (r) => {
          const [, , out] = await inspect(inspectPorts.get(r.service.name)!, [
            { method: 'HeapProfiler.collectGarbage' },
            { method: 'HeapProfiler.collectGarbage' },
            { method: 'Runtime.evaluate', params: { expression, returnByValue: true } },
          ]);
          return JSON.parse((out as { result: { value: string } }).result.value) as unknown;
        }),
      ),
    async restartShardNodes(graceMs) {
      await Promise.all(shardRuns.map((r) => stopProcess(r, graceMs)));
      const spawnedAt = performance.now();
      const again = shardRuns.map((r) => startLogged(r.service, logDir));
      for (const [i, r] of shardRuns.entries()) running[running.indexOf(r)] = again[i];
      shardRuns = again;
      await Promise.all(again.map((r) => waitHealthy(r, HEALTHY_DEADLINE_MS)));
      return spawnedAt;
    },
    logDir,
    shardDataBytes: () => Object.entries(volumeDirs).reduce((sum, [v, d]) => sum + (v.startsWith('shard-') ? treeBytes(d) : 0), 0),
    stop,
  };
}
