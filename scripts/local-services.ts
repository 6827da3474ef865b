/**
 * Translates docker-compose.yml into local processes, for machines without a Docker engine.
 *
 * One description of the services, two runners: `npm start` (scripts/start.ts) and the end-to-end
 * tests (test/support/compose-cluster.ts) both read the compose file through this module, so the
 * command, environment, dependency order and health checks cannot drift from what Docker runs.
 *
 * The translation, per service:
 * - ports: every service gets a loopback port (`FOLIO_HOST=127.0.0.1`, `FOLIO_PORT=<port>`);
 * - host names: `http://<service>:<containerPort>` in any environment value becomes
 *   `http://127.0.0.1:<port of that service>` (the compose network's DNS, done by hand);
 * - volumes: an environment value equal to a volume's container path (`FOLIO_DATA: /data`)
 *   becomes a local directory for that service;
 * - health checks: the service's own `healthcheck.test` is kept, with its
 *   `http://(127.0.0.1|localhost|<service>):<containerPort>` rewritten to the local port;
 * - `node` as the first word of a command runs `process.execPath` (the repo's pinned Node);
 * - `restart`: the policy is kept for the runner (`npm start` restarts as compose would, scripts/supervisor.ts).
 * - an etcd service (its command runs `etcd`, scripts/local-etcd.ts): the local etcd binary with its
 *   client URLs on the service's loopback port, its peer URLs on a free one, `--data-dir` on the
 *   volume's directory; when that binary is absent, the served embedded store
 *   (`node state-store/main.ts`, the same JSON gateway and `/health`) on the same port. Its
 *   `etcdctl endpoint health` check becomes `etcdctl --endpoints=<url> endpoint health`, or an HTTP
 *   GET of `/health` (`{"health":"true"}`) when etcdctl is not installed;
 * - external services (`external`, e.g. `npm start` with FOLIO_ETCD): not started; their URLs in
 *   other services' environment become the given text, and dependencies on them are dropped.
 * @see https://github.com/compose-spec/compose-spec/blob/main/05-services.md
 */
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ETCD_BIN, etcdFlagsOf, isEtcdService, localEtcd } from './local-etcd.ts';
import { localPreload } from './local-preload.ts';

/** The repository root (parent of scripts/). */
export const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Default compose file: `<repo>/docker-compose.yml`. */
export const DEFAULT_COMPOSE_FILE = join(REPO_ROOT, 'docker-compose.yml');

/** The part of a compose service that the local runner understands. */
export interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string[] | string;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { target: number; published?: number | string })[];
  volumes?: (string | { source?: string; target: string })[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string[] | string; interval?: string; timeout?: string; retries?: number; start_period?: string; start_interval?: string };
  /** `no` (default), `always`, `on-failure[:max-retries]` or `unless-stopped`. */
  restart?: string;
  /** Time between SIGTERM and SIGKILL on stop (compose default 10s). */
  stop_grace_period?: string;
}

/** A parsed compose file (only `services` and `volumes` are used). */
export interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** A dependency with its compose condition (`service_started` when a list form is used). */
export interface Dependency {
  service: string;
  condition: 'service_started' | 'service_healthy' | 'service_completed_successfully';
}

/** A compose service translated to a local process. */
export interface LocalService {
  name: string;
  /** argv; `argv[0]` is an executable path or name (`node` → `process.execPath`). */
  argv: string[];
  /** The service's environment after translation (not including the parent's environment). */
  env: Record<string, string>;
  /** Loopback port the service listens on. */
  port: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The port inside the container (`FOLIO_PORT` of the compose file). */
  containerPort: number;
  /** True for a service with a published port (the coordinator). */
  published: boolean;
  dependsOn: Dependency[];
  /** Health-check argv (`CMD` form) or `['/bin/sh', '-c', cmd]` (`CMD-SHELL`), null when none. */
  healthcheck: { argv: string[]; intervalMs: number; timeoutMs: number } | null;
  /** The compose restart policy (`on-failure:N` as `on-failure`; its retry limit is not kept). */
  restart: RestartPolicy;
  /** compose `stop_grace_period` in ms (default 10 s): SIGTERM, then SIGKILL after this long. */
  stopGraceMs: number;
}

/** Compose's restart policies. */
export type RestartPolicy = 'no' | 'always' | 'on-failure' | 'unless-stopped';

/**
 * A service's `restart` policy (default `no`).
 * @throws Error for a value compose does not know
 * @see https://docs.docker.com/reference/compose-file/services/#restart
 */
export function restartPolicyOf(name: string, service: ComposeService): RestartPolicy {
  const raw = String(service.restart ?? 'no').trim();
  const policy = raw.split(':')[0];
  if (policy === 'no' || policy === 'always' || policy === 'unless-stopped' || policy === 'on-failure') return policy;
  throw new Error(`service [${name}]: unknown restart policy [${raw}]`);
}

/** Options of {@link translateServices}. */
export interface TranslateOptions {
  /** Loopback port per service name; every selected service needs one. */
  ports: Record<string, number>;
  /** Local directory per named volume (`shard-0-data` → `/tmp/x/shard-0-data`). */
  volumeDirs: Record<string, string>;
  /** Applied last to every service's environment (e.g. `FOLIO_LOG_LEVEL`). */
  env?: Record<string, string>;
  /** Services to translate; their dependencies are added. Default: all. */
  services?: string[];
  /** Loopback peer port per etcd service (see local-etcd.ts `etcdServicesOf`); required for each one run by the etcd binary. */
  peerPorts?: Record<string, number>;
  /** Binary for etcd services; null runs the served embedded store instead. Default: local-etcd.ts `ETCD_BIN` when it exists. */
  etcdBinary?: string | null;
  /**
   * Services that run elsewhere, with the text their `http://<name>:<port>` URLs become (e.g.
   * `{ etcd: 'http://10.0.0.5:2379,http://10.0.0.6:2379' }`): not started, not depended on.
   */
  external?: Record<string, string>;
}

/** Reads and parses a compose file. Throws when it has no `services` mapping. */
export function readComposeFile(file: string = DEFAULT_COMPOSE_FILE): ComposeFile {
  const doc = parse(readFileSync(file, 'utf8')) as ComposeFile | null;
  if (!doc || typeof doc.services !== 'object' || doc.services === null) {
    throw new Error(`${file}: no services mapping`);
  }
  return doc;
}

/** Normalizes `depends_on` (list or mapping form) into dependencies with conditions. */
export function dependenciesOf(service: ComposeService): Dependency[] {
  const deps = service.depends_on;
  if (!deps) return [];
  if (Array.isArray(deps)) return deps.map((s) => ({ service: s, condition: 'service_started' }));
  return Object.entries(deps).map(([s, d]) => ({
    service: s,
    condition: (d?.condition ?? 'service_started') as Dependency['condition'],
  }));
}

/** Normalizes `environment` (mapping or `KEY=VALUE` list) into strings; null values are dropped. */
export function environmentOf(service: ComposeService): Record<string, string> {
  const env = service.environment;
  const out: Record<string, string> = {};
  if (!env) return out;
  if (Array.isArray(env)) {
    for (const entry of env) {
      const eq = entry.indexOf('=');
      if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
    return out;
  }
  for (const [k, v] of Object.entries(env)) if (v !== null && v !== undefined) out[k] = String(v);
  return out;
}

/** Normalizes `command`: an exec array as is; a string split on whitespace (no shell quoting). */
export function commandOf(name: string, service: ComposeService): string[] {
  const cmd = service.command;
  if (Array.isArray(cmd) && cmd.length > 0) return cmd.map(String);
  if (typeof cmd === 'string' && cmd.trim() !== '') return cmd.trim().split(/\s+/);
  throw new Error(`service [${name}] has no command; the image's CMD is not known without Docker`);
}

/**
 * Orders the selected services (plus their transitive dependencies) in levels: every service's
 * dependencies are in earlier levels, as `docker compose up` starts them. Throws on unknown
 * services, on cycles and on an empty selection.
 */
export function dependencyLevels(compose: ComposeFile, selected?: string[], external: string[] = []): string[][] {
  if (selected !== undefined && selected.length === 0) throw new Error('no services selected (omit the list to run all)');
  const outside = new Set(external);
  const wanted = new Set<string>();
  const visit = (name: string, path: string[]) => {
    if (!(name in compose.services)) throw new Error(`unknown service [${name}]${path.length ? ` (needed by ${path.at(-1)})` : ''}`);
    if (path.includes(name)) throw new Error(`dependency cycle: ${[...path, name].join(' -> ')}`);
    if (wanted.has(name) || outside.has(name)) return;
    for (const dep of dependenciesOf(compose.services[name])) visit(dep.service, [...path, name]);
    wanted.add(name);
  };
  for (const name of selected ?? Object.keys(compose.services)) visit(name, []);
  const levels: string[][] = [];
  const placed = new Set<string>(outside);
  while (placed.size < wanted.size + outside.size) {
    const level = [...wanted].filter((n) => !placed.has(n) && dependenciesOf(compose.services[n]).every((d) => placed.has(d.service)));
    for (const n of level) placed.add(n);
    levels.push(level);
  }
  return levels;
}

/** Parses a compose duration (`1m30s`, `5s`, `500ms`, `1h`) into milliseconds. */
export function parseDurationMs(value: string | undefined, dflt: number): number {
  if (value === undefined) return dflt;
  const re = /(\d+(?:\.\d+)?)(ms|us|h|m|s)/g;
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 };
  let total = 0;
  let consumed = 0;
  for (const m of value.matchAll(re)) {
    total += Number(m[1]) * units[m[2]];
    consumed += m[0].length;
  }
  if (consumed !== value.length || consumed === 0) throw new Error(`invalid compose duration [${value}]`);
  return total;
}

/** The container port a service listens on: its `FOLIO_PORT`, an etcd service's advertised client port, else the target of its first port mapping. */
export function containerPortOf(name: string, service: ComposeService): number {
  if (isEtcdService(service)) {
    const flags = new Map(etcdFlagsOf(commandOf(name, service)));
    const url = (flags.get('advertise-client-urls') || flags.get('listen-client-urls') || 'http://localhost:2379').split(',')[0];
    return Number(new URL(url).port || 2379);
  }
  const fromEnv = environmentOf(service).FOLIO_PORT;
  if (fromEnv !== undefined) return Number(fromEnv);
  const first = service.ports?.[0];
  if (typeof first === 'object' && first !== null) return Number(first.target);
  if (first !== undefined) return Number(String(first).split(':').at(-1));
  throw new Error(`service [${name}] has neither FOLIO_PORT nor a port mapping`);
}

/** Volume mounts as `{ source, target }`; anonymous volumes and bind mounts keep their source text. */
export function volumeMountsOf(service: ComposeService): { source: string; target: string }[] {
  return (service.volumes ?? []).map((v) => {
    if (typeof v === 'object') return { source: v.source ?? '', target: v.target };
    const [source, target] = v.split(':');
    return target === undefined ? { source: '', target: source } : { source, target };
  });
}

/** Replaces `http://<host>:<port>` for each `[host, port] → url` pair, not touching longer ports. */
function rewriteUrls(text: string, map: { host: string; port: number; url: string }[]): string {
  let out = text;
  for (const { host, port, url } of map) {
    const escaped = host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`https?://${escaped}:${port}(?![0-9])`, 'g'), url);
  }
  return out;
}

/**
 * The environment a Dockerfile's `ENV KEY=VALUE …` lines set (later lines win; values without
 * quotes or spaces, as ours are).
 * @see https://docs.docker.com/reference/dockerfile/#env
 */
export function dockerfileEnvironment(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^ENV\s+(.+)$/.exec(line.trim());
    if (!m) continue;
    for (const pair of m[1].split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}

let imageEnv: Record<string, string> | undefined;

/**
 * The environment of the repository's image (its Dockerfile's `ENV`), read once: a container of a
 * service with `build` starts from it beneath its compose `environment`, and so do the local
 * processes of those services, so that they run as the containers do (its `LD_PRELOAD` resolved on
 * this machine: local-preload.ts).
 */
export function imageEnvironment(): Record<string, string> {
  imageEnv ??= localPreload(dockerfileEnvironment(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8')));
  return imageEnv;
}

/**
 * Translates the selected services (default: all, plus dependencies) into local processes.
 * Throws when a port or volume directory is missing, or a health-check form is unsupported.
 */
export function translateServices(compose: ComposeFile, opts: TranslateOptions): LocalService[] {
  const external = opts.external ?? {};
  for (const name of Object.keys(external)) if (!(name in compose.services)) throw new Error(`unknown external service [${name}]`);
  const names = dependencyLevels(compose, opts.services, Object.keys(external)).flat();
  const hostMap = names.flatMap((name) => {
    const port = opts.ports[name];
    if (port === undefined) throw new Error(`no local port assigned to service [${name}]`);
    return [{ host: name, port: containerPortOf(name, compose.services[name]), url: `http://127.0.0.1:${port}` }];
  });
  for (const [name, url] of Object.entries(external)) hostMap.push({ host: name, port: containerPortOf(name, compose.services[name]), url });
  const etcdBinary = opts.etcdBinary === undefined ? (existsSync(ETCD_BIN) ? ETCD_BIN : null) : opts.etcdBinary;
  return names.map((name) => {
    const svc = compose.services[name];
    const port = opts.ports[name];
    const containerPort = containerPortOf(name, svc);
    const mounts = volumeMountsOf(svc);
    const localDir = (source: string) => {
      const dir = opts.volumeDirs[source];
      if (dir === undefined) throw new Error(`no local directory for volume [${source}] of service [${name}]`);
      return dir;
    };
    // A service built from the repository's Dockerfile starts from the image's environment, as in a container.
    const env: Record<string, string> = svc.build !== undefined ? { ...imageEnvironment() } : {};
    for (const [k, v] of Object.entries(environmentOf(svc))) {
      const mount = mounts.find((m) => m.target === v);
      env[k] = mount ? localDir(mount.source) : rewriteUrls(v, hostMap);
    }
    env.FOLIO_HOST = '127.0.0.1';
    env.FOLIO_PORT = String(port);
    const url = `http://127.0.0.1:${port}`;
    let argv = commandOf(name, svc);
    if (isEtcdService(svc)) {
      const local = localEtcd(name, argv, mounts, localDir, url, opts.peerPorts?.[name], etcdBinary);
      argv = local.argv;
      if (local.dataDir !== undefined) env.FOLIO_DATA = local.dataDir;
    }
    Object.assign(env, opts.env ?? {});
    const selfMap = ['127.0.0.1', 'localhost', name].map((host) => ({ host, port: containerPort, url }));
    return {
      name,
      argv,
      env,
      port,
      url,
      containerPort,
      published: (svc.ports ?? []).length > 0,
      dependsOn: dependenciesOf(svc).filter((d) => !(d.service in external)),
      healthcheck: healthcheckOf(name, svc, selfMap, url),
      restart: restartPolicyOf(name, svc),
      stopGraceMs: parseDurationMs(svc.stop_grace_period, 10_000),
    };
  });
}

/** True when `cmd` is an executable file in a PATH directory. */
function onPath(cmd: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, cmd)));
}

/** The health check of a service with its URLs rewritten; null when it has none or `NONE`. */
function healthcheckOf(name: string, svc: ComposeService, selfMap: { host: string; port: number; url: string }[], url: string): LocalService['healthcheck'] {
  const hc = svc.healthcheck;
  if (!hc || hc.test === undefined) return null;
  const test = typeof hc.test === 'string' ? ['CMD-SHELL', hc.test] : hc.test.map(String);
  const [form, ...rest] = test;
  let argv: string[];
  if (form === 'NONE') return null;
  if (form === 'CMD') argv = rest.map((a) => rewriteUrls(a, selfMap));
  else if (form === 'CMD-SHELL') argv = ['/bin/sh', '-c', rewriteUrls(rest.join(' '), selfMap)];
  else throw new Error(`service [${name}]: unsupported healthcheck test form [${form}]`);
  if (argv.length === 0) throw new Error(`service [${name}]: empty healthcheck test`);
  if (argv[0] === 'etcdctl') {
    // In the container etcdctl talks to 127.0.0.1:2379; here it is told the local URL, or replaced
    // by a GET of etcd's /health when not installed (Debian puts it in etcd-client, not etcd-server).
    argv = onPath('etcdctl')
      ? ['etcdctl', `--endpoints=${url}`, ...argv.slice(1)]
      : ['node', '-e', `fetch('${url}/health').then((r) => r.json()).then((b) => process.exit(b.health === 'true' ? 0 : 1), () => process.exit(1))`];
  }
  return { argv, intervalMs: parseDurationMs(hc.start_interval ?? hc.interval, 5000), timeoutMs: parseDurationMs(hc.timeout, 30_000) };
}

/** A free loopback port (scripts/free-port.ts). */
export { freePort } from './free-port.ts';

/** Names of the named volumes a service mounts (keys of the top-level `volumes`). */
export function namedVolumesOf(compose: ComposeFile, name: string): string[] {
  const declared = new Set(Object.keys(compose.volumes ?? {}));
  return volumeMountsOf(compose.services[name])
    .map((m) => m.source)
    .filter((s) => declared.has(s));
}
