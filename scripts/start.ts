/**
 * `npm start`: runs the docker-compose.yml services as local processes (3 shard nodes on
 * 9301–9303, the coordinator on `FOLIO_PORT`, default 9200), forwards their pino lines to stdout,
 * loads the sample data sets that are absent, prints example requests, and stays in the foreground.
 *
 * Environment: `FOLIO_PORT` (coordinator port), `FOLIO_SAMPLE` = `all` (default) | `cities` |
 * `mails` | `none`, `FOLIO_COMPOSE_FILE` (default: the repository's docker-compose.yml),
 * `FOLIO_CLUSTER_SECRET` (default: random per run, passed to every service).
 * Data of the shard nodes lives under `.folio/<volume>/`.
 * SIGINT/SIGTERM stop every child (SIGTERM, SIGKILL after 5 s); a child that dies stops the rest
 * and exits non-zero.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SingleBar, Presets } from 'cli-progress';
import { startProcess, stopProcess, waitHealthy } from './local-process.ts';
import type { RunningService } from './local-process.ts';
import { DEFAULT_COMPOSE_FILE, REPO_ROOT, dependencyLevels, namedVolumesOf, readComposeFile, translateServices } from './local-services.ts';
import { cities } from './samples/cities.ts';
import { indexExists, loadSample } from './samples/load.ts';
import { mails } from './samples/mails.ts';
import type { Sample } from './samples/sample.ts';

/** First port of the shard nodes (then +1 per shard service, in compose order). */
const FIRST_SHARD_PORT = 9301;
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
    const bar = new SingleBar({ format: `[folio] loading ${sample.name} [{bar}] {percentage}% {value}/{total} docs, {duration}s`, hideCursor: true }, Presets.shades_classic);
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

Ctrl-C stops the cluster.`);
}

/** The children, in start order. */
const running: RunningService[] = [];
let stopping = false;

/** Stops every child (SIGTERM, SIGKILL after 5 s) and exits with `code`. Idempotent. */
async function shutdown(code: number, reason?: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (reason) console.error(`[folio] ${reason}; stopping all services`);
  await Promise.all(running.map((r) => stopProcess(r)));
  process.exit(code);
}

/** Starts everything and returns; the process then stays up until a signal or a child's death. */
async function main(): Promise<void> {
  const samples = selectedSamples(process.env.FOLIO_SAMPLE);
  const coordinatorPort = Number(process.env.FOLIO_PORT ?? 9200);
  if (!Number.isInteger(coordinatorPort) || coordinatorPort < 1) throw new Error(`FOLIO_PORT must be a port number, got [${process.env.FOLIO_PORT}]`);

  const compose = readComposeFile(process.env.FOLIO_COMPOSE_FILE || DEFAULT_COMPOSE_FILE);
  const levels = dependencyLevels(compose);
  const ports: Record<string, number> = {};
  let next = FIRST_SHARD_PORT;
  for (const name of levels.flat()) ports[name] = (compose.services[name].ports ?? []).length > 0 ? coordinatorPort : next++;
  const volumeDirs: Record<string, string> = {};
  for (const name of levels.flat()) {
    for (const v of namedVolumesOf(compose, name)) {
      volumeDirs[v] = join(REPO_ROOT, '.folio', v);
      mkdirSync(volumeDirs[v], { recursive: true });
    }
  }
  // The parent's FOLIO_PORT names the coordinator port; every child gets its own from the translation.
  // The parent's FOLIO_CLUSTER_SECRET, else a fresh one per run, the same for every child: the
  // compose file's dev default never protects a local cluster.
  const clusterSecret = process.env.FOLIO_CLUSTER_SECRET || randomBytes(32).toString('hex');
  const services = translateServices(compose, { ports, volumeDirs, env: { FOLIO_CLUSTER_SECRET: clusterSecret } });
  const byName = new Map(services.map((s) => [s.name, s]));

  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  const watch = (r: RunningService) => {
    void r.exited.then((how) => {
      if (stopping) return;
      const tail = r.logs().split('\n').slice(-30).join('\n');
      console.error(`[folio] service [${r.service.name}] exited unexpectedly (${how}); its last output:\n${tail}`);
      void shutdown(1, `service [${r.service.name}] died`);
    });
  };

  for (const level of levels) {
    const started = level.map((name) => startProcess(byName.get(name)!, { detached: true, onLine: (line) => process.stdout.write(line + '\n') }));
    running.push(...started);
    started.forEach(watch);
    console.log(`[folio] started ${started.map((r) => `${r.service.name} (${r.service.url})`).join(', ')}`);
    await Promise.all(started.map((r) => waitHealthy(r, HEALTHY_DEADLINE_MS)));
  }

  const url = services.find((s) => s.published)?.url ?? `http://127.0.0.1:${coordinatorPort}`;
  await loadSamples(url, samples);
  printExamples(url);
}

main().catch((err: unknown) => {
  void shutdown(1, `start failed: ${err instanceof Error ? err.message : String(err)}`);
});
