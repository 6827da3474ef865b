/**
 * `npm start`: runs the docker-compose.yml services as local processes (3 shard nodes on free
 * loopback ports, the coordinator on `FOLIO_PORT`, default 9200), forwards their pino lines to
 * stdout, loads the sample data sets that are absent, prints example requests, and stays in the
 * foreground.
 *
 * Environment: `FOLIO_PORT` (coordinator port), `FOLIO_SAMPLE` = `all` (default) | `cities` |
 * `mails` | `none`, `FOLIO_COMPOSE_FILE` (default: the repository's docker-compose.yml),
 * `FOLIO_CLUSTER_SECRET` (default: random per run, passed to every service), `FOLIO_HOME` (root of
 * the data, default `<repo>/.folio`), `FOLIO_ETCD` (etcd endpoints to use instead of starting the
 * compose file's `etcd` service; that service otherwise runs /usr/bin/etcd, or the served embedded
 * store when etcd is not installed: scripts/local-services.ts).
 * Data of the shard nodes lives under `<FOLIO_HOME>/<coordinator port>/<volume>/`, so two `npm start`s
 * with different `FOLIO_PORT`s are two separate clusters side by side. `<FOLIO_HOME>/<port>/services.json`
 * lists every running service's name, URL and pid (rewritten on each restart, removed on exit).
 * A service that dies is restarted as its compose `restart` policy says (`unless-stopped` for all
 * four: scripts/supervisor.ts), on the same port and data directory, after a backoff (1 s doubling
 * to 30 s, reset after a 10 s run), with a log line saying which service died, how, and when it
 * restarts. SIGINT/SIGTERM stop every child (SIGTERM, SIGKILL after its `stop_grace_period`) and
 * cancel pending restarts.
 * A service that does not become healthy at start still fails the start.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import { startProcess, stopProcess, waitHealthy } from './local-process.ts';
import type { RunningService } from './local-process.ts';
import { parseEtcdEndpoints } from '../shared/state-store/open-store.ts';
import { DEFAULT_COMPOSE_FILE, REPO_ROOT, dependencyLevels, freePort, namedVolumesOf, readComposeFile, translateServices } from './local-services.ts';
import { etcdServicesOf } from './local-etcd.ts';
import type { ComposeFile } from './local-services.ts';
import { Supervisor } from './supervisor.ts';
import { cities } from './samples/cities.ts';
import { indexExists, loadSample } from './samples/load.ts';
import { mails } from './samples/mails.ts';
import type { Sample } from './samples/sample.ts';

/** The coordinator's port without FOLIO_PORT. */
const DEFAULT_COORDINATOR_PORT = 9200;
/** How long one service may take to become healthy. */
const HEALTHY_DEADLINE_MS = 60_000;

/** Which samples `FOLIO_SAMPLE` selects. Throws on an unknown value. */
function selectedSamples(value: string | undefined): Sample[] {
  switch ((value ?? 'all').trim().toLowerCase()) {
    case '':
    case 'all':
      return [cities, mails];
    case 'cities':
      return [cities];
    case 'mails':
      return [mails];
    case 'none':
      return [];
    default:
      throw new Error(`FOLIO_SAMPLE must be one of all, cities, mails, none; got [${value}]`);
  }
}

/** Loads each selected sample unless its index exists, with a progress bar on stderr. */
async function loadSamples(url: string, samples: Sample[]): Promise<void> {
  for (const sample of samples) {
    if (await indexExists(url, sample.name)) {
      console.log(`[folio] index [${sample.name}] exists, not loading it again`);
      continue;
    }
    const bar = new SingleBar(
      { format: `[folio] loading ${sample.name} [{bar}] {percentage}% {value}/{total} docs, {duration}s`, hideCursor: true },
      Presets.shades_classic,
    );
    let started = false;
    try {
      await loadSample(url, sample, {
        onProgress: (done, total) => {
          if (!started) bar.start(total, done);
          started = true;
          bar.update(done);
        },
      });
    } finally {
      bar.stop();
    }
  }
}

/** Prints the URL and three example requests. */
function printExamples(url: string): void {
  console.log(`
[folio] ready: ${url}

  curl '${url}/'
  curl '${url}/cities/_search?size=5&from=10&sort=population:desc'
  curl -H 'Content-Type: application/json' '${url}/mails/_search' -d '{"query":{"match":{"subject":"money"}},"size":3,"_source":["subject","from","spam"]}'

A service that dies is restarted. Ctrl-C stops the cluster.`);
}

/** Services started but not yet healthy (then the supervisor owns them). */
const starting = new Set<RunningService>();
let stopping = false;
/** `<FOLIO_HOME>/<port>/services.json`, once known. */
let servicesFile: string | null = null;

const supervisor = new Supervisor({
  start: (service) => startProcess(service, { detached: true, onLine: (line) => process.stdout.write(line + '\n') }),
  waitHealthy: (r) => waitHealthy(r, HEALTHY_DEADLINE_MS),
  log: (line) => console.error(line),
  onRestarted: () => writeServicesFile(),
});

/** Every current child (supervised or still starting). */
function children(): RunningService[] {
  return [...supervisor.current(), ...starting];
}

/** Rewrites services.json: name, URL and pid of every current child. */
function writeServicesFile(): void {
  if (!servicesFile) return;
  const list = children().map((r) => ({ name: r.service.name, url: r.service.url, pid: r.child.pid ?? null }));
  writeFileSync(servicesFile, JSON.stringify(list, null, 2) + '\n');
}

/** Stops every child (SIGTERM, SIGKILL after its stop_grace_period), cancels pending restarts and exits with `code`. Idempotent. */
async function shutdown(code: number, reason?: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (reason) console.error(`[folio] ${reason}; stopping all services`);
  // Each service gets its compose stop_grace_period to flush and release its data directory lock.
  const stop = (r: RunningService) => stopProcess(r, r.service.stopGraceMs);
  await Promise.all([supervisor.stop(stop), ...[...starting].map(stop)]);
  if (servicesFile) rmSync(servicesFile, { force: true });
  process.exit(code);
}

/**
 * The data directory of each named volume: `<root>/<port>/<volume>`. Data an older `npm start`
 * kept in `<root>/<volume>` (one cluster per checkout) moves to the default port's directory.
 */
function volumeDirectories(compose: ComposeFile, names: string[], root: string, coordinatorPort: number): Record<string, string> {
  const dirs: Record<string, string> = {};
  for (const name of names) {
    for (const v of namedVolumesOf(compose, name)) {
      dirs[v] = join(root, String(coordinatorPort), v);
      const legacy = join(root, v);
      if (coordinatorPort === DEFAULT_COORDINATOR_PORT && existsSync(legacy) && !existsSync(dirs[v])) {
        mkdirSync(dirname(dirs[v]), { recursive: true });
        renameSync(legacy, dirs[v]);
        console.log(`[folio] moved the data of [${v}] from ${legacy} to ${dirs[v]}`);
      }
      mkdirSync(dirs[v], { recursive: true });
    }
  }
  return dirs;
}

/** Starts everything and returns; the process then stays up until a signal, restarting services that die. */
async function main(): Promise<void> {
  const samples = selectedSamples(process.env.FOLIO_SAMPLE);
  const coordinatorPort = Number(process.env.FOLIO_PORT ?? DEFAULT_COORDINATOR_PORT);
  if (!Number.isInteger(coordinatorPort) || coordinatorPort < 1) throw new Error(`FOLIO_PORT must be a port number, got [${process.env.FOLIO_PORT}]`);
  const root = resolve(process.env.FOLIO_HOME || join(REPO_ROOT, '.folio'));

  const compose = readComposeFile(process.env.FOLIO_COMPOSE_FILE || DEFAULT_COMPOSE_FILE);
  // FOLIO_ETCD: an etcd cluster that runs elsewhere replaces the compose file's etcd service.
  const external: Record<string, string> = {};
  if (process.env.FOLIO_ETCD?.trim()) {
    const endpoints = parseEtcdEndpoints(process.env.FOLIO_ETCD).join(',');
    for (const name of etcdServicesOf(compose)) external[name] = endpoints;
    console.log(`[folio] FOLIO_ETCD is set: using etcd at ${endpoints}, not starting ${Object.keys(external).join(', ') || 'a local etcd'}`);
  }
  const levels = dependencyLevels(compose, undefined, Object.keys(external));
  // The published service (the coordinator) takes FOLIO_PORT; every other one a free loopback
  // port, kept across its restarts (the coordinator knows the shard nodes by URL).
  const ports: Record<string, number> = {};
  for (const name of levels.flat()) ports[name] = (compose.services[name].ports ?? []).length > 0 ? coordinatorPort : await freePort();
  const peerPorts: Record<string, number> = {};
  for (const name of etcdServicesOf(compose)) if (name in ports) peerPorts[name] = await freePort();
  const volumeDirs = volumeDirectories(compose, levels.flat(), root, coordinatorPort);
  servicesFile = join(root, String(coordinatorPort), 'services.json');
  // The parent's FOLIO_PORT names the coordinator port; every child gets its own from the translation.
  // The parent's FOLIO_CLUSTER_SECRET, else a fresh one per run, the same for every child: the
  // compose file's dev default never protects a local cluster.
  const clusterSecret = process.env.FOLIO_CLUSTER_SECRET || randomBytes(32).toString('hex');
  const services = translateServices(compose, { ports, volumeDirs, peerPorts, external, env: { FOLIO_CLUSTER_SECRET: clusterSecret } });
  const byName = new Map(services.map((s) => [s.name, s]));

  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  for (const level of levels) {
    const started = level.map((name) => startProcess(byName.get(name)!, { detached: true, onLine: (line) => process.stdout.write(line + '\n') }));
    for (const r of started) starting.add(r);
    writeServicesFile();
    console.log(`[folio] started ${started.map((r) => `${r.service.name} (${r.service.url}, pid ${r.child.pid ?? '?'})`).join(', ')}`);
    await Promise.all(started.map((r) => waitHealthy(r, HEALTHY_DEADLINE_MS)));
    for (const r of started) {
      starting.delete(r);
      supervisor.add(r);
    }
  }

  const url = services.find((s) => s.published)?.url ?? `http://127.0.0.1:${coordinatorPort}`;
  await loadSamples(url, samples);
  printExamples(url);
}

main().catch((err: unknown) => {
  void shutdown(1, `start failed: ${err instanceof Error ? err.message : String(err)}`);
});
