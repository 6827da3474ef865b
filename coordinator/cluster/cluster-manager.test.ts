// Issue 10, scenario 4 (dueling recoveries): of several coordinators exactly one acts as cluster
// manager at a time; it hands over at once when it stops, and within its lease's TTL when it dies
// (its lease ends without a resignation); a deposed manager's guard no longer holds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLUSTER_MANAGER_ELECTION_PREFIX } from '../../shared/cluster-state/keys.ts';
import { EmbeddedStore } from '../../shared/state-store/embedded-store.ts';
import type { Compare } from '../../shared/state-store/types.ts';
import { ClusterManagerRole } from './cluster-manager.ts';

/** Records what a role hands its duties: the guard it leads with, or null. */
class Duties {
  guard: Compare | null = null;
  lead(guard: Compare | null): void {
    this.guard = guard;
  }
}

let dir: string;
let store: EmbeddedStore;
const roles: ClusterManagerRole[] = [];
afterEach(async () => {
  for (const r of roles.splice(0)) await r.stop();
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function cluster(n: number, ttlSeconds: number): Promise<{ roles: ClusterManagerRole[]; duties: Duties[] }> {
  dir = await mkdtemp(join(tmpdir(), 'folio-manager-'));
  store = await EmbeddedStore.open({ dir });
  const duties = Array.from({ length: n }, () => new Duties());
  const rs = duties.map((d, i) => new ClusterManagerRole(store, d, `c${i}`, undefined, ttlSeconds));
  roles.push(...rs);
  for (const r of rs) r.start();
  return { roles: rs, duties };
}

const leaders = (rs: ClusterManagerRole[]) => rs.flatMap((r, i) => (r.leading ? [i] : []));

describe('the cluster manager role', () => {
  it('exactly one of three coordinators leads; a stopping leader hands over at once', async () => {
    const { roles: rs, duties } = await cluster(3, 5);
    await expect.poll(() => leaders(rs).length).toBe(1);
    const first = leaders(rs)[0];
    expect(duties.filter((d) => d.guard !== null)).toHaveLength(1);
    const t0 = performance.now();
    await rs[first].stop();
    await expect.poll(() => leaders(rs).length, { timeout: 3_000 }).toBe(1);
    expect(performance.now() - t0).toBeLessThan(3_000); // far below the 5 s lease: a resignation, not an expiry
    expect(leaders(rs)[0]).not.toBe(first);
    expect(duties[first].guard).toBeNull();
  });

  it('a leader whose lease ends (it died or was cut off) loses the role, and its guard no longer holds', async () => {
    const { roles: rs, duties } = await cluster(2, 1);
    await expect.poll(() => leaders(rs).length).toBe(1);
    const first = leaders(rs)[0];
    const oldGuard = duties[first].guard!;
    // What a dead leader leaves behind: its lease ends without a resignation.
    const key = (await store.range(CLUSTER_MANAGER_ELECTION_PREFIX)).kvs.find(
      (kv) => 'createRevision' in oldGuard && kv.createRevision === oldGuard.createRevision,
    )!;
    await store.revokeLease(key.lease!);
    await expect.poll(() => leaders(rs), { timeout: 5_000 }).toEqual([1 - first]);
    const r = await store.txn({ compare: [oldGuard], ops: [{ op: 'put', key: 'folio/probe', value: 'x' }] });
    expect(r.succeeded).toBe(false);
    // The old leader campaigns again and waits behind the new one.
    await expect.poll(() => duties[first].guard, { timeout: 3_000 }).toBeNull();
    expect(leaders(rs)).toEqual([1 - first]);
  });
});
