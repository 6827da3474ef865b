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
