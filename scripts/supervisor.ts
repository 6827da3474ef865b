/**
 * Keeps `npm start`'s services running as compose's restart policies do: a service that exits is
 * started again (same command, port, environment and data directory) after a delay that doubles
 * with each quick death, from {@link RESTART_INITIAL_DELAY_MS} up to {@link RESTART_MAX_DELAY_MS},
 * and starts over once a run lasted {@link RESTART_RESET_AFTER_MS} (Docker's rule: a container that
 * ran 10 s counts as successfully restarted). `restart: no` (compose's default) leaves a dead
 * service down. {@link Supervisor.stop} stops everything and cancels pending restarts, as
 * `docker compose stop` overrides `unless-stopped`.
 * @see https://docs.docker.com/reference/compose-file/services/#restart
 * @see https://docs.docker.com/engine/containers/start-containers-automatically/#restart-policy-details
 */
import type { RunningService } from './local-process.ts';
import type { LocalService } from './local-services.ts';

/** Delay before the first restart of a service that died. */
export const RESTART_INITIAL_DELAY_MS = 1_000;
/** Longest delay between restarts of a service that keeps dying. */
export const RESTART_MAX_DELAY_MS = 30_000;
/** A run at least this long resets the delay to {@link RESTART_INITIAL_DELAY_MS}. */
export const RESTART_RESET_AFTER_MS = 10_000;
/** Lines of a dead service's output repeated in the log. */
const DEATH_TAIL_LINES = 20;

/** The delay before restart number `n` (1-based) of a run of quick deaths: 1 s, 2 s, 4 s, … capped at 30 s. */
export function restartDelayMs(n: number, initialMs = RESTART_INITIAL_DELAY_MS, maxMs = RESTART_MAX_DELAY_MS): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, Math.min(n - 1, 30)));
}

/** Whether a compose `restart` policy restarts a service that exited with `how` (exit code or signal name). */
export function restartsAfter(policy: LocalService['restart'], how: number | string): boolean {
  if (policy === 'always' || policy === 'unless-stopped') return true;
  if (policy === 'on-failure') return how !== 0;
  return false;
}

/** How a process ended, for a log line: `exit code 1` or `signal SIGKILL`. */
export function describeExit(how: number | string): string {
  return typeof how === 'number' ? `exit code ${how}` : how.startsWith('SIG') ? `signal ${how}` : how;
}

/** What a {@link Supervisor} needs from its surroundings. */
export interface SupervisorOptions {
  /** Starts a process for the service (the same function as the first start). */
  start: (service: LocalService) => RunningService;
  /** Resolves once a (re)started process is healthy; rejects when it dies first or is not healthy in time. */
  waitHealthy: (running: RunningService) => Promise<void>;
  /** Receives each log line. */
  log: (line: string) => void;
  /** Called after each restart with the new process (e.g. to record its pid). */
  onRestarted?: (running: RunningService) => void;
  /** Delay schedule overrides (tests). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  resetAfterMs?: number;
  now?: () => number;
}

interface Member {
  running: RunningService;
  startedAt: number;
  /** Restarts since the last run that lasted {@link RESTART_RESET_AFTER_MS}. */
  quickDeaths: number;
  timer: NodeJS.Timeout | null;
  restarts: number;
}

/** Supervises running services: restarts them when they die, until {@link Supervisor.stop}. */
export class Supervisor {
  private readonly members = new Map<string, Member>();
  private readonly opts: SupervisorOptions;
  private readonly now: () => number;
  private stopping = false;

  constructor(opts: SupervisorOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
  }

  /** Starts watching a process that is already running (and healthy). */
  add(running: RunningService): void {
    const member: Member = { running, startedAt: this.now(), quickDeaths: 0, timer: null, restarts: 0 };
    this.members.set(running.service.name, member);
    this.watch(member, running);
  }

  /** The current process of every service (the latest incarnation). */
  current(): RunningService[] {
    return [...this.members.values()].map((m) => m.running);
  }

  /** How many times a service was restarted. */
  restarts(name: string): number {
    return this.members.get(name)?.restarts ?? 0;
  }

  private watch(member: Member, running: RunningService): void {
    void running.exited.then((how) => {
      if (this.stopping || member.running !== running) return;
      const name = running.service.name;
      const ranMs = this.now() - member.startedAt;
      const tail = running.logs().split('\n').filter(Boolean).slice(-DEATH_TAIL_LINES).join('\n');
      const at = new Date(this.now()).toISOString();
      const died = `[folio] service [${name}] (pid ${running.child.pid ?? '?'}) died at ${at} (${describeExit(how)}) after ${(ranMs / 1000).toFixed(1)} s`;
      const policy = running.service.restart;
      if (!restartsAfter(policy, how)) {
        this.opts.log(`${died}; not restarted (restart: ${policy}); its last output:\n${tail}`);
        return;
      }
      member.quickDeaths = ranMs >= (this.opts.resetAfterMs ?? RESTART_RESET_AFTER_MS) ? 1 : member.quickDeaths + 1;
      const delay = restartDelayMs(member.quickDeaths, this.opts.initialDelayMs, this.opts.maxDelayMs);
      this.opts.log(`${died}; restarting it in ${delay / 1000} s (restart: ${policy}); its last output:\n${tail}`);
      member.timer = setTimeout(() => this.restart(member, running.service), delay);
    });
  }

  private restart(member: Member, service: LocalService): void {
    member.timer = null;
    if (this.stopping) return;
    const running = this.opts.start(service);
    member.running = running;
    member.startedAt = this.now();
    member.restarts++;
    this.opts.onRestarted?.(running);
    this.opts.log(`[folio] restarted ${service.name} (${service.url}, pid ${running.child.pid ?? '?'}), restart ${member.restarts}`);
    this.watch(member, running);
    this.opts.waitHealthy(running).then(
      () => {
        if (!this.stopping && member.running === running) this.opts.log(`[folio] service [${service.name}] is healthy again`);
      },
      (err: Error) => {
        // Died before it was healthy: the exit watch restarts it. Alive but not healthy: say so.
        if (!this.stopping && !running.hasExited())
          this.opts.log(`[folio] service [${service.name}] restarted but is not healthy: ${err.message.split('\n')[0]}`);
      },
    );
  }

  /** Stops supervising: cancels pending restarts, then stops every current process with `stopOne`. */
  async stop(stopOne: (running: RunningService) => Promise<void>): Promise<void> {
    this.stopping = true;
    for (const m of this.members.values()) {
      if (m.timer) clearTimeout(m.timer);
      m.timer = null;
    }
    await Promise.all(this.current().map((r) => stopOne(r)));
  }
}
