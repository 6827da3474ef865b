/**
 * The fault suite's own parts, without a cluster: the PRNG and schedules are deterministic, the
 * history model refuses what the checker must refuse, and the fault proxy's modes do what the
 * nemesis relies on (refuse resets, drop-replies lets the request through and loses the answer).
 */
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startFaultProxy } from '../support/fault-proxy.ts';
import { History } from './history.ts';
import { createPrng } from './prng.ts';
import { formatSchedule, makeSchedule } from './schedule.ts';

const shape = { shardNodes: 3, coordinators: 2, etcdMembers: 3, faultMs: 8_000, nodeLinks: 0 };

describe('seeded schedules', () => {
  it('the same seed gives the same numbers and the same schedule; another seed another one', () => {
    const [a, b] = [createPrng(42), createPrng(42)];
    expect(Array.from({ length: 5 }, () => a.int(0, 1000))).toEqual(Array.from({ length: 5 }, () => b.int(0, 1000)));
    expect(formatSchedule(makeSchedule(7, shape))).toBe(formatSchedule(makeSchedule(7, shape)));
    expect(formatSchedule(makeSchedule(7, shape))).not.toBe(formatSchedule(makeSchedule(8, shape)));
  });

  it('faults stay within the fault window, never overlap on one resource, and cut no node↔node link while none exists', () => {
    for (let seed = 0; seed < 200; seed++) {
      const s = makeSchedule(seed, shape);
      expect(s.faults.length).toBeGreaterThanOrEqual(1);
      for (const f of s.faults) {
        expect(f.atMs + f.durationMs).toBeLessThanOrEqual(shape.faultMs);
        expect(f.kind).not.toBe('partition-nodes');
      }
      const nodes = s.faults.filter((f) => f.kind === 'kill-node' || f.kind === 'pause-node') as { node: number; atMs: number; durationMs: number }[];
      for (const f of nodes)
        for (const g of nodes) if (f !== g && f.node === g.node) expect(f.atMs >= g.atMs + g.durationMs || g.atMs >= f.atMs + f.durationMs).toBe(true);
    }
    expect(makeSchedule(3, { ...shape, nodeLinks: 6 }).faults.length).toBeGreaterThan(0);
  });
});

describe('the history model', () => {
  const h = new History();
  h.sending('a', 0, { x: 1 });
  h.acknowledged({ id: 'a', shard: 0, op: 'index', version: 1, seqNo: 5, term: 1, coordinator: 0, sentMs: 0, ackedMs: 1 }, { x: 1 });
  h.sending('d', 0, null);
  h.acknowledged({ id: 'd', shard: 0, op: 'delete', version: 3, seqNo: 6, term: 1, coordinator: 0, sentMs: 0, ackedMs: 1 }, null);
  h.sending('u', 0, { y: 2 });
  h.unknown('u', { y: 2 });

  it('accepts the acknowledged state, whatever the key order', () => {
    expect(h.problemOf('a', { found: true, _version: 1, _seq_no: 5, _source: { x: 1 } })).toBeNull();
    expect(h.problemOf('d', { found: false })).toBeNull();
  });

  it('refuses a lost write, a lost delete, an older version and another seq_no', () => {
    expect(h.problemOf('a', { found: false })).toMatch(/acknowledged/);
    expect(h.problemOf('d', { found: true, _version: 2, _seq_no: 4, _source: { x: 1 } })).toMatch(/acknowledged/);
    expect(h.problemOf('a', { found: true, _version: 1, _seq_no: 9, _source: { x: 1 } })).toMatch(/acknowledged/);
    expect(h.problemOf('a', { found: true, _version: 1, _seq_no: 5, _source: { x: 2 } })).toMatch(/acknowledged/);
  });

  it('allows an unknown write applied wholly or not at all, and nothing else', () => {
    expect(h.problemOf('u', { found: false })).toBeNull();
    expect(h.problemOf('u', { found: true, _version: 1, _seq_no: 7, _source: { y: 2 } })).toBeNull();
    expect(h.problemOf('u', { found: true, _version: 2, _seq_no: 7, _source: { y: 2 } })).toMatch(/unknown/);
    expect(h.problemOf('u', { found: true, _version: 1, _seq_no: 7, _source: { y: 3 } })).toMatch(/unknown/);
  });
});

describe('fault proxy modes', () => {
  it('refuse resets connections; drop-replies delivers the request and loses the answer; forward heals', async () => {
    let received = 0;
    const server = createServer((req, res) => {
      received++;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    const proxy = await startFaultProxy(`http://127.0.0.1:${port}`);
    try {
      const get = () => fetch(proxy.url, { signal: AbortSignal.timeout(500) }).then((r) => r.text());
      expect(await get()).toBe('ok');
      proxy.setMode('refuse');
      await expect(get()).rejects.toThrow();
      proxy.setMode('drop-replies');
      const before = received;
      await expect(get()).rejects.toThrow(); // timed out: no answer
      expect(received).toBe(before + 1); // but the server got the request
      proxy.setMode('drop-requests');
      await expect(get()).rejects.toThrow();
      expect(received).toBe(before + 1);
      proxy.setMode('forward');
      expect(await get()).toBe('ok');
    } finally {
      await proxy.close();
      server.close();
    }
  });
});
