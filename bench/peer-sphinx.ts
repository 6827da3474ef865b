/**
 * Ceiling 2, the peer: Sphinx 2.2.11 (Debian `sphinxsearch`) as a distributed engine of Folio's
 * shape. `shards` agent `searchd` processes each serve one plain index built by `indexer` from
 * a tsvpipe file of their share of the corpus (split by Folio's own routing, so every agent holds
 * the documents of the same Folio shard); a front `searchd` holds a `type = distributed` index
 * over them with `agent_persistent`. Everything binds 127.0.0.1 and lives in a temporary
 * directory; every searchd runs in the foreground (`--nodetach`, `watchdog = 0`) as our child,
 * so stopping the peer stops all of them. Queries go over SphinxQL with mysql2 `query()` only
 * (prepared statements fail on SphinxQL). The figures: docs/performance.md (Deep paging benchmark).
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { freePort } from '../scripts/local-services.ts';
import { defaultRoutingNumShards, shardForRouting } from '../coordinator/cluster/routing.ts';
import { rssBytes } from './cluster.ts';
import type { Corpus } from './corpus.ts';

const run = promisify(execFile);

/** Deadline for installing the Debian package. */
const INSTALL_TIMEOUT_MS = 300_000;
/** Latin-1, Latin Extended-A (as is), Greek and Cyrillic with case folding (2.2.11 has no `non_cjk`). */
const CHARSET_TABLE =
  '0..9, A..Z->a..z, _, a..z, U+C0..U+D6->U+E0..U+F6, U+D8..U+DE->U+F8..U+FE, U+DF..U+F6, U+F8..U+FF, U+100..U+17F, ' +
  'U+391..U+3A9->U+3B1..U+3C9, U+3B1..U+3C9, U+410..U+42F->U+430..U+44F, U+430..U+44F';

/** A running peer. */
export interface SphinxPeer {
  /** `Sphinx 2.2.11-…` as `searchd --help` prints it. */
  version: string;
  /** Seconds `indexer` took for all agents together. */
  indexSeconds: number;
  /** Runs one SphinxQL statement on connection `worker` (opened on demand); resolves the rows. */
  query(worker: number, sql: string): Promise<Record<string, unknown>[]>;
  /** Summed VmRSS of the agents, bytes. */
  agentRss(): number;
  /** Closes the connections and stops every searchd (SIGTERM, SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/** Why the peer could not run. */
export interface PeerSkipped {
  skipped: string;
}

/** True when `cmd` is on PATH. */
async function onPath(cmd: string): Promise<boolean> {
  return run('sh', ['-c', `command -v ${cmd}`]).then(
    () => true,
    () => false,
  );
}

/** Makes sure `searchd` and `indexer` exist, installing `sphinxsearch` with apt-get when possible. */
export async function ensureSphinx(log: (line: string) => void): Promise<string | null> {
  if ((await onPath('searchd')) && (await onPath('indexer'))) return null;
  if (!(await onPath('apt-get'))) return 'searchd/indexer not found and apt-get is not available';
  if (process.getuid?.() !== 0) return 'searchd/indexer not found and not root (run: apt-get install -y sphinxsearch)';
  log('peer: installing the Debian package sphinxsearch (apt-get) ...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run('apt-get', ['install', '-y', 'sphinxsearch'], { env, timeout: INSTALL_TIMEOUT_MS });
  try {
    await install().catch(async () => {
      await run('apt-get', ['update'], { env, timeout: INSTALL_TIMEOUT_MS });
      await install();
    });
  } catch (err) {
    return `apt-get install sphinxsearch failed: ${(err as Error).message.split('\n')[0]}`;
  }
  return (await onPath('searchd')) ? null : 'sphinxsearch installed but searchd is not on PATH';
}

/** A tsvpipe cell: no tabs or newlines (tsvpipe has no quoting). */
function cell(v: string | number | null | undefined): string {
  return String(v ?? '').replace(/[\t\r\n]/g, ' ');
}

/** Writes one tsvpipe file per agent; columns follow the source declarations in {@link agentConfig}. */
async function writeTsv(corpus: Corpus, dir: string, shards: number): Promise<string[]> {
  const files = Array.from({ length: shards }, (_, i) => join(dir, `cities_s${i}.tsv`));
  const streams = files.map((f) => createWriteStream(f));
  const routingShards = defaultRoutingNumShards(shards);
  const buffers: string[] = Array.from({ length: shards }, () => '');
  for (const d of corpus.docs()) {
    const s = shardForRouting(d._id, shards, routingShards);
    const src = d.source as {
      name: string;
      country: string;
      featureCode: string;
      adminCode: string;
      population: number;
      location: { lat: number; lon: number };
    };
    buffers[s] +=
      `${d.sphinxId}\t${cell(src.name)}\t${cell(src.country)}\t${cell(src.featureCode)}\t${cell(src.adminCode)}\t${src.population}\t${src.location.lat}\t${src.location.lon}\n`;
    if (buffers[s].length > 1 << 20) {
      if (!streams[s].write(buffers[s])) await once(streams[s], 'drain');
      buffers[s] = '';
    }
  }
  await Promise.all(
    streams.map(async (st, i) => {
      st.end(buffers[i]);
      await once(st, 'finish');
    }),
  );
  return files;
}

/** The `searchd` section shared by agents and the front. */
function searchdSection(dir: string, name: string, listen: string[], extra = ''): string {
  return `searchd {
${listen.map((l) => `  listen = ${l}`).join('\n')}
  log = ${join(dir, `${name}.log`)}
  pid_file = ${join(dir, `${name}.pid`)}
  binlog_path =
  workers = threads
  max_children = 256
  listen_backlog = 256
  watchdog = 0
  max_packet_size = 128M
  read_timeout = 60
  client_timeout = 300
${extra}}
`;
}

/** Config of agent `i`: one tsvpipe source, one plain index, one searchd. */
function agentConfig(dir: string, i: number, tsv: string, apiPort: number): string {
  return `source src_s${i} {
  type = tsvpipe
  tsvpipe_command = cat ${tsv}
  tsvpipe_field_string = name
  tsvpipe_attr_string = country
  tsvpipe_attr_string = feature_code
  tsvpipe_attr_string = admin_code
  tsvpipe_attr_uint = population
  tsvpipe_attr_float = lat
  tsvpipe_attr_float = lon
}
index cities_s${i} {
  source = src_s${i}
  path = ${join(dir, `cities_s${i}`)}
  docinfo = extern
  charset_table = ${CHARSET_TABLE}
}
indexer {
  mem_limit = 256M
}
${searchdSection(dir, `agent${i}`, [`127.0.0.1:${apiPort}`])}`;
}

/** Config of the front: a distributed index over the agents, pooled agent connections. */
function frontConfig(dir: string, apiPorts: number[], qlPort: number, persistent: number): string {
  return `index cities {
  type = distributed
${apiPorts.map((p, i) => `  agent_persistent = 127.0.0.1:${p}:cities_s${i}`).join('\n')}
  agent_connect_timeout = 1000
  agent_query_timeout = 120000
}
${searchdSection(dir, 'front', [`127.0.0.1:${qlPort}:mysql41`], `  persistent_connections_limit = ${persistent}\n`)}`;
}

/** Waits until a TCP connect to the SphinxQL port succeeds and `SHOW STATUS` answers. */
async function waitSphinxQl(port: number, child: ChildProcess, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`searchd exited (${child.exitCode}) before it answered`);
    try {
      const c = await mysql.createConnection({ host: '127.0.0.1', port });
      await c.query('SHOW STATUS');
      await c.end();
      return;
    } catch (err) {
      if (Date.now() > end) throw new Error(`searchd on ${port} did not answer: ${(err as Error).message}`, { cause: err });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Builds the agents' indexes and starts 4 agents + the front; resolves the peer or why it is skipped. */
export async function startSphinxPeer(corpus: Corpus, shards: number, maxClients: number, log: (line: string) => void): Promise<SphinxPeer | PeerSkipped> {
  const missing = await ensureSphinx(log);
  if (missing) return { skipped: missing };
  const version = (await run('searchd', ['--help']).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }))).stdout.split('\n')[0].trim();
  const dir = await mkdtemp(join(tmpdir(), 'folio-bench-sphinx-'));
  const children: ChildProcess[] = [];
  const connections = new Map<number, Promise<mysql.Connection>>();
  const killAll = () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  };
  process.once('exit', killAll);
  const stop = async () => {
    for (const c of connections.values()) await c.then((x) => x.end()).catch(() => {});
    connections.clear();
    await Promise.all(
      children.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = once(c, 'exit');
        c.kill('SIGTERM');
        const t = setTimeout(() => c.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }),
    );
    process.off('exit', killAll);
    await rm(dir, { recursive: true, force: true });
  };
  const spawnSearchd = (conf: string): ChildProcess => {
    const child = spawn('searchd', ['--config', conf, '--nodetach'], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.resume();
    children.push(child);
    return child;
  };
  try {
    const tsv = await writeTsv(corpus, dir, shards);
    const apiPorts: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < shards; i++) {
      apiPorts.push(await freePort());
      const conf = join(dir, `agent${i}.conf`);
      await writeFile(conf, agentConfig(dir, i, tsv[i], apiPorts[i]));
      await run('indexer', ['--config', conf, '--all', '--quiet'], { timeout: 300_000 }).catch((e: Error & { stdout?: string }) => {
        throw new Error(`indexer for agent ${i} failed: ${e.message}\n${e.stdout ?? ''}`);
      });
    }
    const indexSeconds = (performance.now() - t0) / 1000;
    const agents = apiPorts.map((_, i) => spawnSearchd(join(dir, `agent${i}.conf`)));
    const qlPort = await freePort();
    await writeFile(join(dir, 'front.conf'), frontConfig(dir, apiPorts, qlPort, maxClients));
    const front = spawnSearchd(join(dir, 'front.conf'));
    await waitSphinxQl(qlPort, front, 30_000);
    const connection = (w: number) => {
      let c = connections.get(w);
      if (!c) {
        c = mysql.createConnection({ host: '127.0.0.1', port: qlPort, connectTimeout: 30_000 });
        c.catch(() => connections.delete(w));
        connections.set(w, c);
      }
      return c;
    };
    return {
      version,
      indexSeconds,
      async query(worker, sql) {
        const [rows] = await (await connection(worker)).query(sql);
        return rows as Record<string, unknown>[];
      },
      agentRss: () => agents.reduce((s, a) => s + rssBytes(a.pid ?? 0), 0),
      stop,
    };
  } catch (err) {
    await stop();
    return { skipped: `could not start: ${(err as Error).message.split('\n').slice(0, 3).join(' | ')}` };
  }
}
