/**
 * Runs one translated compose service ({@link LocalService}) as a child process: spawn, log
 * capture, waiting for its health check, and bounded shutdown (SIGTERM, then SIGKILL).
 * Used by `npm start` and by the end-to-end tests' cluster helper.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { REPO_ROOT } from './local-services.ts';
import type { LocalService } from './local-services.ts';

/** Bytes of output kept per service (the tail); older output is dropped. */
const MAX_LOG_BYTES = 2 * 1024 * 1024;
/** Local health checks poll at most this often, whatever the compose interval. */
const MAX_HEALTH_POLL_INTERVAL_MS = 250;
/** Default grace period between SIGTERM and SIGKILL. */
export const STOP_GRACE_MS = 5000;

/** A running service. */
export interface RunningService {
  service: LocalService;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr (its tail beyond 2 MiB). */
  logs(): string;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
  /** True once the process has ended. */
  hasExited(): boolean;
}

/** Options of {@link startProcess}. */
export interface StartProcessOptions {
  /** Called with each complete output line (e.g. to forward pino lines to the terminal). */
  onLine?: (line: string) => void;
  /** Base environment (default `process.env`); the service's environment is applied on top. */
  baseEnv?: NodeJS.ProcessEnv;
  /**
   * Run the child in its own process group, so a terminal's Ctrl-C reaches only the parent, which
   * then stops the children in order (used by `npm start`). Default false.
   */
  detached?: boolean;
}

/** Replaces a leading `node` with the running Node binary, so children use the repo's pinned Node. */
export function resolveArgv(argv: string[]): string[] {
  return argv[0] === 'node' ? [process.execPath, ...argv.slice(1)] : argv;
}

/** The child environment: base + service env, with the running Node's directory first on PATH. */
function childEnv(service: LocalService, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const path = [dirname(process.execPath), base.PATH ?? ''].filter(Boolean).join(delimiter);
  return { ...base, ...service.env, PATH: path };
}

/** Spawns the service (cwd = repo root) and captures its output. Spawn errors end `exited`. */
export function startProcess(service: LocalService, opts: StartProcessOptions = {}): RunningService {
  const [cmd, ...args] = resolveArgv(service.argv);
  const child = spawn(cmd, args, {
    cwd: REPO_ROOT,
    env: childEnv(service, opts.baseEnv ?? process.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached ?? false,
  });
  let log = '';
  let done = false;
  const append = (text: string) => {
    log += text;
    if (log.length > MAX_LOG_BYTES) log = log.slice(log.length - MAX_LOG_BYTES);
  };
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      append(chunk);
      if (!opts.onLine) return;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) opts.onLine(line);
    });
    stream?.on('end', () => {
      if (partial && opts.onLine) opts.onLine(partial);
      partial = '';
    });
  }
  const exited = new Promise<number | string>((resolveExit) => {
    child.once('error', (err) => {
      append(`\n[folio] could not start [${service.argv.join(' ')}]: ${err.message}\n`);
      done = true;
      resolveExit('spawn-error');
    });
    child.once('exit', (code, signal) => {
      done = true;
      resolveExit(code ?? signal ?? 'unknown');
    });
  });
  return { service, child, logs: () => log, exited, hasExited: () => done };
}

/** Runs the service's health-check command once; true on exit code 0 within its timeout. */
function runHealthcheck(service: LocalService, baseEnv: NodeJS.ProcessEnv): Promise<boolean> {
  const hc = service.healthcheck;
  if (!hc) return Promise.resolve(true);
  const [cmd, ...args] = resolveArgv(hc.argv);
  return new Promise((resolveCheck) => {
    execFile(cmd, args, { cwd: REPO_ROOT, env: childEnv(service, baseEnv), timeout: hc.timeoutMs }, (err) => resolveCheck(!err));
  });
}

/** Formats the error for a service that did not become healthy, with the tail of its output. */
export function serviceError(running: RunningService, reason: string): Error {
  const tail = running.logs().split('\n').slice(-80).join('\n');
  return new Error(
    `service [${running.service.name}] ${reason}\n--- ${running.service.name} output ---\n${tail}\n--- end of ${running.service.name} output ---`,
  );
}

/**
 * Waits until the service's own health check passes (compose `service_healthy`). Rejects, with the
 * service's output, when the process exits first or `deadlineMs` passes. A service without a
 * health check counts as healthy once started.
 */
export async function waitHealthy(running: RunningService, deadlineMs: number, baseEnv: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { service } = running;
  const started = Date.now();
  const pollMs = Math.min(service.healthcheck?.intervalMs ?? MAX_HEALTH_POLL_INTERVAL_MS, MAX_HEALTH_POLL_INTERVAL_MS);
  for (;;) {
    if (running.hasExited()) throw serviceError(running, `exited (${await running.exited}) before it was healthy`);
    if (await runHealthcheck(service, baseEnv)) {
      if (running.hasExited()) throw serviceError(running, `exited (${await running.exited}) before it was healthy`);
      return;
    }
    if (Date.now() - started > deadlineMs) {
      throw serviceError(running, `was not healthy after ${deadlineMs} ms (health check: ${service.healthcheck?.argv.join(' ')})`);
    }
    await Promise.race([new Promise((r) => setTimeout(r, pollMs)), running.exited]);
  }
}

/** Sends SIGTERM, waits up to `graceMs`, then SIGKILL. Resolves when the process has ended. */
export async function stopProcess(running: RunningService, graceMs: number = STOP_GRACE_MS): Promise<void> {
  if (running.hasExited()) return;
  running.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), graceMs);
  });
  const outcome = await Promise.race([running.exited, graceOver]);
  clearTimeout(timer);
  if (outcome === 'timeout' && !running.hasExited()) {
    running.child.kill('SIGKILL');
    await running.exited;
  }
}
