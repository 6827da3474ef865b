import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcdCluster } from '../../test/support/etcd-process.ts';
import type { EtcdCluster } from '../../test/support/etcd-process.ts';
import { isStateStoreError } from './errors.ts';
import { EtcdStore } from './etcd-store.ts';
import type { WatchBatch } from './types.ts';

// Three real etcd members; the member that leads Raft (and serves this client's calls and watch)
// is SIGKILLed while a writer does compare-and-swap increments. The store must go on through the
// other two, and the watch must resume elsewhere without losing or repeating a revision.
let cluster: EtcdCluster | undefined;
beforeAll(async () => {
  cluster = await startEtcdCluster(3);
}, 30_000);
afterAll(async () => {
  await cluster?.stop();
});

/** Index of the member that is the Raft leader (`/v3/maintenance/status`: header.member_id == leader). */
async function leaderIndex(endpoints: string[]): Promise<number> {
  for (let i = 0; i < endpoints.length; i++) {
    const res = await fetch(`${endpoints[i]}/v3/maintenance/status`, { method: 'POST', body: '{}' });
    const status = (await res.json()) as { header: { member_id: string }; leader: string };
    if (status.header.member_id === status.leader) return i;
  }
  throw new Error('no etcd member reports itself as leader');
}

describe('EtcdStore on a 3-member etcd cluster', () => {
  it('leaves a paused (SIGSTOP) member for the others: calls fail over and the watch moves on', async () => {
    const endpoints = cluster!.endpoints;
    const leader = await leaderIndex(endpoints);
    const paused = (leader + 1) % endpoints.length; // a follower, so the other two keep a quorum
    const store = new EtcdStore({
      endpoints: [endpoints[paused], ...endpoints.filter((_, i) => i !== paused)],
      attemptTimeoutMs: 1_000,
      watchProbeIntervalMs: 500,
    });
    const child = cluster!.members[paused].child!;
    try {
      const first = await store.txn({ compare: [], ops: [{ op: 'put', key: 'pause-test/a', value: 'before' }] });
      const watching = new AbortController();
      const seen: WatchBatch[] = [];
      const watch = (async () => {
        for await (const batch of store.watch('pause-test/', { fromRevision: first.revision, signal: watching.signal })) seen.push(batch);
      })();
      while (seen.length < 1) await new Promise((r) => setTimeout(r, 10));
      child.kill('SIGSTOP');
      const pausedAt = performance.now();
      // The put may be ambiguous if it reached the paused member first: retry until it is there.
      let written: number | undefined;
      while (written === undefined && performance.now() - pausedAt < 10_000) {
        try {
          written = (await store.txn({ compare: [], ops: [{ op: 'put', key: 'pause-test/a', value: 'while paused' }] })).revision;
        } catch (err) {
          if (!isStateStoreError(err, 'unavailable')) throw err;
        }
      }
      const writeMs = performance.now() - pausedAt;
      expect(written, 'a write through the other members').toBeDefined();
      while (seen.at(-1)?.revision !== written && performance.now() - pausedAt < 10_000) await new Promise((r) => setTimeout(r, 20));
      const watchMs = performance.now() - pausedAt;
      watching.abort();
      await watch;
      expect(seen.at(-1)).toMatchObject({ revision: written, events: [{ kv: { value: 'while paused' } }] });
      console.log(`etcd member paused: write acknowledged after ${writeMs.toFixed(0)} ms, watch delivered it after ${watchMs.toFixed(0)} ms`);
    } finally {
      child.kill('SIGCONT');
      await store.close();
    }
  });

  it('keeps serving compare-and-swap and a gapless watch when the leader member is killed', async () => {
    const endpoints = cluster!.endpoints;
    const leader = await leaderIndex(endpoints);
    // The client prefers the first endpoint, so its calls and its watch run on the leader.
    const store = new EtcdStore({ endpoints: [endpoints[leader], ...endpoints.filter((_, i) => i !== leader)], watchProbeIntervalMs: 500 });
    const key = 'cluster-test/counter';
    try {
      const start = (await store.range('cluster-test/')).revision + 1;
      const watching = new AbortController();
      const seen: WatchBatch[] = [];
      const watch = (async () => {
        for await (const batch of store.watch('cluster-test/', { fromRevision: start, signal: watching.signal })) seen.push(batch);
      })();

      // A writer: read-modify-write increments up to `target`; a failed or ambiguous attempt re-reads
      // and retries (an ambiguous one may have applied: the re-read shows it, and nothing is counted twice).
      const target = 60;
      const acked: Array<{ value: number; revision: number }> = [];
      let retries = 0;
      let killedAt = 0;
      let firstAckAfterKillMs = -1;
      const writer = (async () => {
        let kv = await store.get(key);
        for (;;) {
          const n = kv ? Number(kv.value) : 0;
          if (n >= target) return;
          const startedAfterKill = killedAt > 0;
          try {
            const r = await store.txn({ compare: [{ key, modRevision: kv?.modRevision ?? 0 }], ops: [{ op: 'put', key, value: String(n + 1) }] });
            if (r.succeeded) {
              acked.push({ value: n + 1, revision: r.revision });
              // Only a txn sent after the kill counts: one in flight may have been answered before it.
              if (startedAfterKill && firstAckAfterKillMs < 0) firstAckAfterKillMs = performance.now() - killedAt;
              kv = { key, value: String(n + 1), modRevision: r.revision, createRevision: 0, version: 0 };
            } else {
              kv = r.current.get(key);
            }
          } catch (err) {
            if (!isStateStoreError(err, 'unavailable')) throw err;
            retries++;
            kv = await store.get(key);
          }
        }
      })();

      while (acked.length < target / 3) await new Promise((r) => setTimeout(r, 10));
      killedAt = performance.now();
      await cluster!.kill(leader, 'SIGKILL');
      await writer;
      const final = (await store.get(key))!;
      expect(Number(final.value)).toBe(target);
      expect(firstAckAfterKillMs, 'a CAS acknowledged after the kill').toBeGreaterThanOrEqual(0);
      expect(firstAckAfterKillMs).toBeLessThan(8_000);

      // The watch moved to another member and saw every increment once, in order.
      const deadline = performance.now() + 8_000;
      while (seen.at(-1)?.revision !== final.modRevision && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      watching.abort();
      await watch;
      const values = seen.flatMap((b) => b.events.map((e) => Number(e.kv.value)));
      expect(values).toEqual(Array.from({ length: target }, (_, i) => i + 1));
      const revisions = seen.map((b) => b.revision);
      for (let i = 1; i < revisions.length; i++) expect(revisions[i]).toBeGreaterThan(revisions[i - 1]);
      for (const a of acked) expect(revisions).toContain(a.revision);
      expect(acked.length).toBeGreaterThanOrEqual(target - retries);
      console.log(`etcd leader killed: first CAS acknowledged ${firstAckAfterKillMs.toFixed(0)} ms later; ${retries} attempts failed or were ambiguous`);
    } finally {
      await store.close();
    }
  });
});
