/**
 * The second peer: PostgreSQL from Debian (`postgresql`, 15 on bookworm), as most people who page
 * search results run it. Like the Sphinx peer (bench/peer-sphinx.ts) it is installed on demand
 * and runs as our child: `initdb` into a temporary directory, one `postgres` on 127.0.0.1 on a free
 * port with its unix socket in the same directory, stopped with the bench (fast shutdown, SIGKILL
 * after {@link STOP_GRACE_MS}) and the directory removed. PostgreSQL refuses to run as root, so
 * when the bench runs as root `initdb` and `postgres` run as the `postgres` user (setpriv, which
 * execs: the postmaster is our child). Settings are the defaults (shared_buffers 128 MB, JIT on,
 * …) but the listen address, port and socket directory; the table, indexes and load are in
 * bench/pg-schema.ts. Clients (psql, pgbench) connect over TCP as the superuser with trust auth.
 * @see https://www.postgresql.org/docs/15/server-shutdown.html
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { freePort } from '../scripts/local-services.ts';
import { cpuMs } from './process-cpu.ts';

const run = promisify(execFile);

/** Deadline for installing the Debian package (apt-get update + install). */
const INSTALL_TIMEOUT_MS = 300_000;
/** Time between the fast-shutdown signal (SIGINT) and SIGKILL. */
const STOP_GRACE_MS = 10_000;
/** Time the server may take to accept connections after start. */
const START_DEADLINE_MS = 60_000;
/** Where Debian puts each major version's binaries. */
const PG_LIB = '/usr/lib/postgresql';
/** Binaries the peer needs, all from one version's bin directory. */
const BINARIES = ['initdb', 'postgres', 'pgbench', 'psql'];

/** A running PostgreSQL server. */
export interface PostgresServer {
  /** `postgres (PostgreSQL) 15.x …` as `postgres --version` prints it. */
  version: string;
  /** Directory of initdb, postgres, psql and pgbench. */
  binDir: string;
  port: number;
  /** Scratch directory of the run (the data directory is `data/` in it); pgbench logs go here. */
  dir: string;
  /** PID of the postmaster. */
  pid: number;
  /** Runs SQL through psql (unaligned, tab-separated, no headers); resolves the output rows' fields. */
  sql(text: string, stdin?: NodeJS.ReadableStream): Promise<string[][]>;
  /** Summed Pss of the postmaster and its children (/proc/<pid>/smaps_rollup), bytes. */
  pss(): number;
  /** CPU time of the postmaster, its live children and its reaped children (backends), ms. */
  cpuMs(): number;
  /** Fast shutdown (SIGINT), SIGKILL after {@link STOP_GRACE_MS}; removes the scratch directory. */
  stop(): Promise<void>;
}

/** Why the peer could not run. */
export interface PostgresSkipped {
  skipped: string;
}

/** The newest `/usr/lib/postgresql/<v>/bin` holding every binary, or null. */
export function findBinDir(): string | null {
  if (!existsSync(PG_LIB)) return null;
  const dirs = readdirSync(PG_LIB)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(PG_LIB, v, 'bin'));
  return dirs.find((d) => BINARIES.every((b) => existsSync(join(d, b)))) ?? null;
}

/**
 * Makes sure Debian's `postgresql` is installed (apt-get when it is missing); resolves the bin
 * directory or why not. The package's own cluster (`main`, port 5432) is never used: in a container
 * with a `policy-rc.d` that refuses service starts (as here) it stays down; elsewhere the package
 * starts it as a system service, which the bench leaves to the system.
 */
export async function ensurePostgres(log: (line: string) => void): Promise<{ binDir: string } | PostgresSkipped> {
  const found = findBinDir();
  if (found) return { binDir: found };
  const hasApt = await run('sh', ['-c', 'command -v apt-get']).then(
    () => true,
    () => false,
  );
  if (!hasApt) return { skipped: 'PostgreSQL (initdb/postgres/pgbench) not found and apt-get is not available' };
  if (process.getuid?.() !== 0) return { skipped: 'PostgreSQL not found and not root (run: apt-get install -y postgresql)' };
  log('pg peer: installing the Debian package postgresql (apt-get) ...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], { env, timeout: INSTALL_TIMEOUT_MS });
  try {
    await install().catch(async () => {
      await run('apt-get', ['update'], { env, timeout: INSTALL_TIMEOUT_MS });
      await install();
    });
  } catch (err) {
    return { skipped: `apt-get install postgresql failed: ${(err as Error).message.split('\n')[0]}` };
  }
  const binDir = findBinDir();
  return binDir ? { binDir } : { skipped: `postgresql installed but no ${PG_LIB}/<version>/bin holds ${BINARIES.join(', ')}` };
}

/** uid and gid of the `postgres` user from /etc/passwd, or null. */
function postgresUser(): { uid: number; gid: number } | null {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) return null;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** argv that runs `cmd` as the `postgres` user when we are root (setpriv execs, so the pid is the command's). */
function asServerUser(cmd: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [cmd, args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', cmd, ...args]];
}

/** PIDs of `pid` and all its descendants (from /proc/<n>/stat's ppid). */
export function processTree(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while we listed
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) for (const [p, pp] of parent) if (pp === out[i]) out.push(p);
  return out;
}

/** Pss of one process in bytes (0 when it is gone). */
export function pssBytes(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Waits until psql can run `SELECT 1`, or the postmaster exits, or the deadline passes. */
async function waitReady(psql: () => Promise<unknown>, child: ChildProcess, stderrTail: () => string): Promise<void> {
  const end = Date.now() + START_DEADLINE_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited (${child.exitCode}): ${stderrTail()}`);
    try {
      await psql();
      return;
    } catch (err) {
      if (Date.now() > end) throw new Error(`postgres did not accept connections: ${(err as Error).message} ${stderrTail()}`, { cause: err });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Runs psql with `sql` (stdin streamed in when given); resolves the tab-separated fields of each output line. */
async function psql(binDir: string, port: number, sql: string, stdin?: NodeJS.ReadableStream): Promise<string[][]> {
  const child = spawn(
    join(binDir, 'psql'),
    ['-X', '-q', '-A', '-t', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-c', sql],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.on('error', () => {}); // psql may exit before reading all of stdin; its exit code tells
  if (stdin) stdin.pipe(child.stdin);
  else child.stdin.end();
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`psql exited ${code}: ${err.trim().slice(0, 500)}`);
  return out
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => l.split('\t'));
}

/** initdb + start one server on a free loopback port; resolves it or why it is skipped. */
export async function startPostgres(log: (line: string) => void): Promise<PostgresServer | PostgresSkipped> {
  const ensured = await ensurePostgres(log);
  if ('skipped' in ensured) return ensured;
  const { binDir } = ensured;
  const user = process.getuid?.() === 0 ? postgresUser() : null;
  if (process.getuid?.() === 0 && !user) return { skipped: 'running as root and there is no postgres user to run the server as' };
  const version = (await run(join(binDir, 'postgres'), ['--version'])).stdout.trim();
  const dir = await mkdtemp(join(tmpdir(), 'folio-bench-pg-'));
  let child: ChildProcess | null = null;
  const killAll = () => child?.kill('SIGKILL');
  process.once('exit', killAll);
  const stop = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGINT'); // fast shutdown
      const t = setTimeout(() => child?.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(t);
    }
    process.off('exit', killAll);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    if (user) await chown(dir, user.uid, user.gid);
    const data = join(dir, 'data');
    const [initCmd, initArgs] = asServerUser(join(binDir, 'initdb'), ['-D', data, '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '-U', 'postgres']);
    await run(initCmd, initArgs, { timeout: 120_000, cwd: dir });
    const port = await freePort();
    const settings = ['listen_addresses=127.0.0.1', `port=${port}`, `unix_socket_directories=${dir}`];
    const [cmd, args] = asServerUser(join(binDir, 'postgres'), ['-D', data, ...settings.flatMap((s) => ['-c', s])]);
    const started = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
    child = started;
    let tail = '';
    started.stderr.setEncoding('utf8').on('data', (d: string) => (tail = (tail + d).slice(-2000)));
    const query = (text: string, stdin?: NodeJS.ReadableStream) => psql(binDir, port, text, stdin);
    await waitReady(
      () => query('SELECT 1'),
      started,
      () => tail,
    );
    log(`pg peer: ${version} on 127.0.0.1:${port} (${settings.join(', ')}; every other setting default)`);
    return {
      version,
      binDir,
      port,
      dir,
      pid: started.pid!,
      sql: query,
      pss: () => processTree(started.pid!).reduce((s, p) => s + pssBytes(p), 0),
      cpuMs: () => cpuMs(processTree(started.pid!)),
      stop,
    };
  } catch (err) {
    await stop();
    return { skipped: `could not start: ${(err as Error).message.split('\n').slice(0, 3).join(' | ')}` };
  }
}
