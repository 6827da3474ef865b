import { describe, expect, it } from 'vitest';
import { startProcess, stopProcess } from './local-process.ts';
import type { LocalService, RestartPolicy } from './local-services.ts';
import { describeExit, restartDelayMs, restartsAfter, Supervisor } from './supervisor.ts';

/** A service running `node -e <script>`. */
function service(name: string, script: string, restart: RestartPolicy = 'unless-stopped'): LocalService {
  return {
    name,
    argv: ['node', '-e', script],
    env: {},
    port: 0,
    url: 'http://127.0.0.1:0',
    containerPort: 0,
    published: false,
    dependsOn: [],
    healthcheck: null,
    restart,
    stopGraceMs: 1000,
  };
}

const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('restart policy and backoff (compose restart, Docker delays)', () => {
  it('doubles from 1 s to at most 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 100].map((n) => restartDelayMs(n))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });
  it('restarts per policy: unless-stopped and always on any exit, on-failure on non-zero only, no never', () => {
    expect([
      restartsAfter('unless-stopped', 0),
      restartsAfter('always', 'SIGKILL'),
      restartsAfter('on-failure', 0),
      restartsAfter('on-failure', 1),
      restartsAfter('no', 1),
    ]).toEqual([true, true, false, true, false]);
  });
  it('describes exits', () => {
    expect([describeExit(1), describeExit('SIGKILL')]).toEqual(['exit code 1', 'signal SIGKILL']);
  });
});

describe('Supervisor', () => {
  it('restarts a killed service with a log line, backs off on quick deaths, and stop() ends it for good', async () => {
    const lines: string[] = [];
    const sup = new Supervisor({
      start: (s) => startProcess(s),
      waitHealthy: async () => {},
      log: (l) => lines.push(l),
      initialDelayMs: 50,
      maxDelayMs: 400,
      resetAfterMs: 60_000,
    });
    const first = startProcess(service('svc', 'setInterval(() => {}, 1000)'));
    sup.add(first);
    first.child.kill('SIGKILL');
    await until(() => sup.restarts('svc') === 1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^\\[folio\\] service \\[svc\\] \\(pid ${first.child.pid}\\) died at \\S+ \\(signal SIGKILL\\) after [0-9.]+ s; restarting it in 0.05 s \\(restart: unless-stopped\\)`,
      ),
    );
    const second = sup.current()[0];
    expect(second.child.pid).not.toBe(first.child.pid);
    second.child.kill('SIGKILL');
    await until(() => sup.restarts('svc') === 2);
    expect(lines.some((l) => l.includes('restarting it in 0.1 s'))).toBe(true); // doubled: a quick death
    const third = sup.current()[0];
    await sup.stop((r) => stopProcess(r, 2000));
    expect(third.hasExited()).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(sup.restarts('svc')).toBe(2); // no restart after stop
  });

  it('cancels a pending restart on stop, and leaves a `restart: no` service down', async () => {
    const lines: string[] = [];
    const sup = new Supervisor({ start: (s) => startProcess(s), waitHealthy: async () => {}, log: (l) => lines.push(l), initialDelayMs: 400 });
    const a = startProcess(service('a', 'process.exit(3)'));
    const b = startProcess(service('b', 'process.exit(4)', 'no'));
    sup.add(a);
    sup.add(b);
    await until(() => lines.length === 2);
    expect(lines.find((l) => l.includes('[a]'))).toMatch(/\(exit code 3\).*restarting it in 0.4 s/);
    expect(lines.find((l) => l.includes('[b]'))).toMatch(/\(exit code 4\).*; not restarted \(restart: no\)/);
    await sup.stop((r) => stopProcess(r, 1000));
    await new Promise((r) => setTimeout(r, 800)); // past the restart delay
    expect(sup.restarts('a')).toBe(0);
  });
});
