/**
 * Starts the services that docker-compose.yml declares as local processes, for the end-to-end
 * tests (no Docker engine runs on the project's machines). Each service gets a free loopback port,
 * host names become 127.0.0.1:<port>, each named volume a temporary directory, and services start
 * in `depends_on` order, each waited for with its own compose health check (so a wrong health
 * check in the compose file fails the tests). See scripts/local-services.ts for the translation.
 *
 * @example
 * const cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'warn' } });
 * try { await fetch(`${cluster.coordinatorUrl}/`); } finally { await cluster.stop(); }
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, stopProcess, waitHealthy, serviceError } from '../../scripts/local-process.ts';
import type { RunningService } from '../../scripts/local-process.ts';
import { DEFAULT_COMPOSE_FILE, dependencyLevels, freePort, namedVolumesOf, readComposeFile, translateServices } from '../../scripts/local-services.ts';
import { etcdServicesOf } from '../../scripts/local-etcd.ts';

/** How long one service may take to become healthy. */
const HEALTHY_DEADLINE_MS = 60_000;

/** Options of {@link startComposeCluster}. */
export interface ComposeClusterOptions {
  /** Compose file to run (default: the repository's docker-compose.yml). */
  composeFile?: string;
  /** Extra environment applied to every service, after the compose file's (e.g. `FOLIO_LOG_LEVEL`). */
  env?: Record<string, string>;
  /** Services to start; their dependencies are started too. Default: all. */
  services?: string[];
  /** Binary for the etcd service; null runs the served embedded store. Default: /usr/bin/etcd when installed. */
  etcdBinary?: string | null;
}

/** A running local cluster. */
export interface ComposeCluster {
  /** Base URL of the service with a published port (the coordinator), e.g. `http://127.0.0.1:40123`. */
  coordinatorUrl: string;
  /** Base URL per service name. */
  urls: Record<string, string>;
  /** SIGTERM to every service, SIGKILL after 5 s; removes the temporary volume directories. */
  stop(): Promise<void>;
  /** Sends a signal to one service (e.g. to test a shard failure). Throws for an unknown service. */
  kill(service: string, signal?: NodeJS.Signals): void;
  /** Sends a signal to one service (default SIGTERM) and resolves once its process has exited. */
  halt(service: string, signal?: NodeJS.Signals): Promise<void>;
  /** The process id of a running service (undefined once it exited). */
  pid(service: string): number | undefined;
  /** The temporary directory of each named volume (e.g. `shard-1-data`), to inspect or damage a node's data. */
  volumes: Record<string, string>;
  /** Everything a service has written to stdout/stderr so far. Throws for an unknown service. */
  logs(service: string): string;
  /**
   * Starts a service again with the same port, environment and volume directory (after a `kill`,
   * or stopping it first), and resolves once its health check passes. `logs` then returns the new
   * process's output.
   */
  restart(service: string): Promise<void>;
}

const liveClusters = new Set<RunningService[]>();
let exitHookInstalled = false;

/** Kills children left behind if the test process exits without calling stop(). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const running of liveClusters) for (const r of running) if (!r.hasExited()) r.child.kill('SIGKILL');
  });
}

/**
 * Starts the compose services as local processes and resolves once every one is healthy.
 * Rejects, with the failing service's output, when a service exits or stays unhealthy; services
 * already started are stopped first.
 */
export async function startComposeCluster(opts: ComposeClusterOptions = {}): Promise<ComposeCluster> {
  const compose = readComposeFile(opts.composeFile ?? DEFAULT_COMPOSE_FILE);
  const levels = dependencyLevels(compose, opts.services);
  const names = levels.flat();
  const ports: Record<string, number> = {};
  for (const name of names) ports[name] = await freePort();
  // An etcd service run by the etcd binary also needs a peer port.
  const peerPorts: Record<string, number> = {};
  for (const name of etcdServicesOf(compose)) if (names.includes(name)) peerPorts[name] = await freePort();
  const dataRoot = await mkdtemp(join(tmpdir(), 'folio-cluster-'));
  const volumeDirs: Record<string, string> = {};
  for (const name of names) for (const v of namedVolumesOf(compose, name)) volumeDirs[v] = join(dataRoot, v);
  const services = translateServices(compose, { ports, volumeDirs, peerPorts, env: opts.env, services: opts.services, etcdBinary: opts.etcdBinary });
  const byName = new Map(services.map((s) => [s.name, s]));

  const running: RunningService[] = [];
  liveClusters.add(running);
  installExitHook();
  const stopAll = async () => {
    await Promise.all(running.map((r) => stopProcess(r)));
    liveClusters.delete(running);
    await rm(dataRoot, { recursive: true, force: true });
  };

  try {
    for (const level of levels) {
      const started = level.map((name) => startProcess(byName.get(name)!));
      running.push(...started);
      await Promise.all(
        started.map(async (r) => {
          // Every dependent of this level declares a condition; service_healthy needs the health check.
          const needsHealth = services.some((s) => s.dependsOn.some((d) => d.service === r.service.name && d.condition === 'service_healthy'));
          const unsupported = services
            .flatMap((s) => s.dependsOn)
            .find((d) => d.service === r.service.name && d.condition === 'service_completed_successfully');
          if (unsupported) throw new Error(`depends_on condition service_completed_successfully (on [${r.service.name}]) is not supported locally`);
          if (needsHealth && !r.service.healthcheck) throw serviceError(r, 'is depended on with service_healthy but has no healthcheck');
          await waitHealthy(r, HEALTHY_DEADLINE_MS);
        }),
      );
    }
  } catch (err) {
    await stopAll();
    throw err;
  }

  const find = (service: string) => {
    const r = running.find((x) => x.service.name === service);
    if (!r) throw new Error(`unknown service [${service}]; running: ${running.map((x) => x.service.name).join(', ')}`);
    return r;
  };
  const urls = Object.fromEntries(services.map((s) => [s.name, s.url]));
  const published = services.find((s) => s.published) ?? services.find((s) => s.name === 'coordinator');
  return {
    coordinatorUrl: published?.url ?? '',
    urls,
    stop: stopAll,
    kill: (service, signal = 'SIGKILL') => {
      find(service).child.kill(signal);
    },
    halt: async (service, signal = 'SIGTERM') => {
      const r = find(service);
      if (r.hasExited()) return;
      r.child.kill(signal);
      await r.exited;
    },
    volumes: volumeDirs,
    pid: (service) => {
      const r = find(service);
      return r.hasExited() ? undefined : r.child.pid;
    },
    logs: (service) => find(service).logs(),
    restart: async (service) => {
      const old = find(service);
      await stopProcess(old);
      const fresh = startProcess(byName.get(service)!);
      running[running.indexOf(old)] = fresh;
      await waitHealthy(fresh, HEALTHY_DEADLINE_MS);
    },
  };
}
