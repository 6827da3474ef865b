import { describe, expect, it } from 'vitest';
import { cpuMs, statTicks } from './process-cpu.ts';

describe('process CPU', () => {
  it('sums utime, stime, cutime and cstime of a stat line, with spaces and parentheses in the command', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime ...
    const stat = '4242 (postgres: a (b) c) S 1 4242 4242 0 -1 4194560 1 2 3 4 150 25 1000 40 20 0 1 0 99 1 1';
    expect(statTicks(stat)).toBe(150 + 25 + 1000 + 40);
  });

  it('reads this process, and counts a missing pid as 0', () => {
    expect(cpuMs([process.pid])).toBeGreaterThan(0);
    expect(cpuMs([2 ** 30])).toBe(0);
  });
});
