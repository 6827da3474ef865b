/**
 * CPU time of server processes from /proc, for CPU per query: `utime + stime` of each process plus
 * `cutime + cstime`, the time of its children that have exited and been waited for (PostgreSQL's
 * backends end with their connection, and the postmaster reaps them). Reading before and after a
 * run and dividing by the requests gives the servers' CPU per query, which other work on a shared
 * machine inflates far less than it inflates latency.
 * @see https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of the stat fields (`getconf CLK_TCK`; 100 on Linux). */
const CLOCK_TICKS_PER_S = 100;

/** utime + stime + cutime + cstime of one `/proc/<pid>/stat` line, in ticks. */
export function statTicks(stat: string): number {
  // Fields after the parenthesised command: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17).
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
}

/** Summed CPU time of `pids` (and their reaped children), ms; a process that is gone counts 0. */
export function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      ticks += statTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      // gone
    }
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_S;
}

/**
 * Resolves once `pids` together used at most `maxMsPerS` of CPU per second over two consecutive
 * windows of `windowMs`, or after `deadlineMs`; returns the time waited in ms and whether they went
 * quiet. After a bulk load the shard nodes keep merging segments in the background for minutes
 * (1 M docs: 0.2–0.36 s of CPU per second on a node, about 2.5 min on the 2-core dev machine), and
 * a search measured meanwhile pays for that CPU and reads generations that each finished merge
 * replaces: that made the exact-count task of issue 17 swing between identical runs. Rally's tracks
 * force-merge and wait for merges for the same reason.
 */
export async function waitForQuiet(
  pids: number[],
  opts: { maxMsPerS?: number; windowMs?: number; deadlineMs?: number } = {},
): Promise<{ waitedMs: number; quiet: boolean }> {
  const maxMsPerS = opts.maxMsPerS ?? 60;
  const windowMs = opts.windowMs ?? 2000;
  const started = performance.now();
  const deadline = started + (opts.deadlineMs ?? 600_000);
  let calm = 0;
  while (performance.now() < deadline) {
    const before = cpuMs(pids);
    await new Promise((r) => setTimeout(r, windowMs));
    calm = ((cpuMs(pids) - before) * 1000) / windowMs <= maxMsPerS ? calm + 1 : 0;
    if (calm === 2) return { waitedMs: performance.now() - started, quiet: true };
  }
  return { waitedMs: performance.now() - started, quiet: false };
}
