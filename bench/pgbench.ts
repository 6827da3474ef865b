/**
 * Drives PostgreSQL with its own load generator, `pgbench`: one custom script (one statement =
 * one transaction), `-c` clients on `-j` threads for `-T` seconds, prepared statements (`-M
 * prepared`, the extended protocol an application driver uses), and per-transaction logs (`-l`)
 * from which the bench takes exact p50/p99, as bench/load-driver.ts does for Folio.
 * @see https://www.postgresql.org/docs/15/pgbench.html (Per-Transaction Logging)
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { quantile } from './load-driver.ts';
import type { LoopResult } from './load-driver.ts';

const run = promisify(execFile);

/** Threads pgbench may use (the machine has 2 cores; more only adds switching). */
export const PGBENCH_MAX_THREADS = 2;

/** Latencies in µs of the successful transactions in one per-transaction log; `failed` counts the others. */
export function parseTransactionLog(text: string): { latenciesUs: number[]; failed: number } {
  const latenciesUs: number[] = [];
  let failed = 0;
  for (const line of text.split('\n')) {
    // client_id transaction_no time script_no time_epoch time_us [schedule_lag]
    const fields = line.trim().split(' ');
    if (fields.length < 6) continue;
    const us = Number(fields[2]);
    if (Number.isFinite(us)) latenciesUs.push(us);
    else failed++; // "failed", "serialization", "deadlock", "skipped"
  }
  return { latenciesUs, failed };
}

/** pgbench's summary: transactions processed, failed, and tps without the connection time. */
export function parseSummary(stdout: string): { processed: number; failed: number; tps: number } {
  const num = (re: RegExp) => {
    const m = re.exec(stdout);
    return m ? Number(m[1]) : NaN;
  };
  return {
    processed: num(/number of transactions actually processed: (\d+)/),
    failed: num(/number of failed transactions: (\d+)/) || 0,
    tps: num(/tps = ([\d.]+) \(without initial connection time\)/),
  };
}

/** Where and how pgbench connects. */
export interface PgbenchTarget {
  binDir: string;
  port: number;
  /** Scratch directory for scripts and logs. */
  dir: string;
}

/** Options of one run. */
export interface PgbenchRun {
  clients: number;
  seconds: number;
  /** Write and read per-transaction logs (off for warm-ups). */
  log: boolean;
  /** Called once at mid-run (e.g. to sample the server's memory under load). */
  midway?: () => void;
}

let runs = 0;

/** Runs `sql` as a pgbench script; resolves the figures in the load driver's shape. */
export async function pgbench(target: PgbenchTarget, sql: string, opts: PgbenchRun): Promise<LoopResult> {
  const runDir = join(target.dir, `pgbench-${++runs}`);
  await mkdir(runDir, { recursive: true });
  const script = join(runDir, 'task.sql');
  await writeFile(script, `${sql};\n`);
  const threads = Math.min(opts.clients, PGBENCH_MAX_THREADS);
  const args = ['-n', '-M', 'prepared', '-f', script, '-c', String(opts.clients), '-j', String(threads), '-T', String(opts.seconds)];
  if (opts.log) args.push('-l', `--log-prefix=${join(runDir, 'tx')}`);
  args.push('-h', '127.0.0.1', '-p', String(target.port), '-U', 'postgres', 'postgres');
  const timer = opts.midway ? setTimeout(opts.midway, (opts.seconds * 1000) / 2) : null;
  let stdout: string;
  try {
    ({ stdout } = await run(join(target.binDir, 'pgbench'), args, { cwd: runDir, timeout: (opts.seconds + 120) * 1000, maxBuffer: 1 << 20 }));
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`pgbench failed: ${e.message.split('\n')[0]} ${(e.stderr ?? '').slice(0, 400)}`, { cause: err });
  } finally {
    if (timer) clearTimeout(timer);
  }
  const summary = parseSummary(stdout);
  const latencies: number[] = [];
  let failed = summary.failed;
  if (opts.log) {
    failed = 0;
    for (const f of (await readdir(runDir)).filter((n) => n.startsWith('tx.'))) {
      const parsed = parseTransactionLog(await readFile(join(runDir, f), 'utf8'));
      for (const us of parsed.latenciesUs) latencies.push(us / 1000);
      failed += parsed.failed;
    }
  }
  const sorted = Float64Array.from(latencies).sort();
  return {
    clients: opts.clients,
    requests: opts.log ? latencies.length : summary.processed,
    errors: failed,
    elapsedMs: opts.seconds * 1000,
    rps: summary.tps,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
  };
}
