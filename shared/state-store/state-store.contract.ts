/**
 * The contract every {@link StateStore} implementation passes: one suite, run against the
 * embedded store (embedded-store.test.ts) and a real etcd (etcd-store.test.ts), so the two cannot
 * drift apart. Each test works under its own key prefix, so one store can serve the whole suite.
 *
 * The properties are etcd's documented guarantees: linearizable compare-and-swap transactions
 * that apply all-or-nothing at one revision, strictly increasing revisions, leases whose keys go
 * when they end, watches that are ordered, gapless and resumable, compaction reported as such, and
 * the election recipe built on them. Its helpers are contract-support.ts.
 * @see https://etcd.io/docs/v3.4/learning/api_guarantees/
 * @see https://jepsen.io/analyses/etcd-3.4.3
 */
import { describe, expect, it } from 'vitest';
import { Election } from './election.ts';
import type { Leadership } from './election.ts';
import { isStateStoreError, StateStoreError } from './errors.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import type { KeyValue, StateStore } from './types.ts';
import { collect, put, sleep, waitUntil, withStore } from './contract-support.ts';

/** How the suite gets a store: a fresh client on the same backing store for each test. */
export interface StateStoreFactory {
  /** Opens a client; the suite closes it at the end of the test. */
  open(): Promise<StateStore>;
}

/** Registers the contract suite for one implementation. */
export function describeStateStoreContract(name: string, factory: StateStoreFactory): void {
  describe(`StateStore contract: ${name}`, () => {
    kvContract(factory);
    txnAtomicityContract(factory);
    txnRefusalContract(factory);
    leaseContract(factory);
    watchContract(factory);
    electionContract(factory);
  });
}

/** Reads, ranges and compare-and-swap on single keys. */
function kvContract(factory: StateStoreFactory): void {
  it('reads back what it wrote, with create/mod revisions and versions, and ranges a prefix in key order', () =>
    withStore(factory, async (store, p) => {
      const r1 = await put(store, `${p}b`, 'one');
      const r2 = await put(store, `${p}b`, 'two');
      const r3 = await put(store, `${p}a`, 'x');
      await put(store, `${p.slice(0, -1)}-other`, 'outside the prefix');
      expect(r2).toBe(r1 + 1);
      expect(r3).toBe(r2 + 1);
      const b = await store.get(`${p}b`);
      expect(b).toEqual({ key: `${p}b`, value: 'two', createRevision: r1, modRevision: r2, version: 2 });
      expect(await store.get(`${p}missing`)).toBeUndefined();
      const { kvs, revision } = await store.range(p);
      expect(kvs.map((kv) => [kv.key, kv.value])).toEqual([
        [`${p}a`, 'x'],
        [`${p}b`, 'two'],
      ]);
      expect(revision).toBeGreaterThanOrEqual(r3 + 1);
      // UTF-8 keys and values round-trip; order is by bytes.
      await put(store, `${p}é`, 'ünïcödé ✓');
      expect((await store.get(`${p}é`))?.value).toBe('ünïcödé ✓');
      expect((await store.range(p)).kvs.map((kv) => kv.key).at(-1)).toBe(`${p}é`);
    }));

  it('compare-and-swap succeeds on the revision read and fails, writing nothing, on a stale one', () =>
    withStore(factory, async (store, p) => {
      const key = `${p}k`;
      const created = await store.txn({ compare: [{ key, modRevision: 0 }], ops: [{ op: 'put', key, value: 'v1' }] });
      expect(created.succeeded).toBe(true);
      const again = await store.txn({ compare: [{ key, createRevision: 0 }], ops: [{ op: 'put', key, value: 'clobber' }] });
      expect(again.succeeded).toBe(false);
      const read = (await store.get(key))!;
      const ok = await store.txn({ compare: [{ key, modRevision: read.modRevision }], ops: [{ op: 'put', key, value: 'v2' }] });
      expect(ok).toEqual({ succeeded: true, revision: read.modRevision + 1 });
      const stale = await store.txn({ compare: [{ key, modRevision: read.modRevision }], ops: [{ op: 'put', key, value: 'lost' }] });
      expect(stale.succeeded).toBe(false);
      if (stale.succeeded) return;
      // The loser gets the current value in the same answer.
      expect(stale.current.get(key)).toMatchObject({ value: 'v2', modRevision: ok.revision, version: 2 });
      expect(stale.revision).toBeGreaterThanOrEqual(ok.revision);
      expect((await store.get(key))?.value).toBe('v2');
      // A compare on an absent key reports it as absent.
      const absent = await store.txn({ compare: [{ key: `${p}none`, modRevision: 5 }], ops: [] });
      expect(absent.succeeded).toBe(false);
      if (!absent.succeeded) expect(absent.current.get(`${p}none`)).toBeUndefined();
    }));
}

/** Multi-key transactions: all-or-nothing at one revision, and no lost update under contention. */
function txnAtomicityContract(factory: StateStoreFactory): void {
  it('applies multi-key puts and deletes all at one revision, or none of them', () =>
    withStore(factory, async (store, p) => {
      await put(store, `${p}idx/a/1`, 'old');
      await put(store, `${p}idx/a/2`, 'old');
      const guard = (await store.get(`${p}idx/a/1`))!;
      const r = await store.txn({
        compare: [{ key: guard.key, modRevision: guard.modRevision }],
        ops: [
          { op: 'deletePrefix', prefix: `${p}idx/a/` },
          { op: 'put', key: `${p}idx/b/1`, value: 'new' },
          { op: 'put', key: `${p}meta`, value: 'v' },
        ],
      });
      expect(r.succeeded).toBe(true);
      const after = await store.range(p);
      expect(after.kvs.map((kv) => kv.key)).toEqual([`${p}idx/b/1`, `${p}meta`]);
      expect(after.kvs.every((kv) => kv.modRevision === r.revision)).toBe(true);
      // One compare fails: nothing of the txn is written.
      const before = await store.range(p);
      const failed = await store.txn({
        compare: [
          { key: `${p}meta`, modRevision: r.revision },
          { key: `${p}idx/b/1`, modRevision: r.revision - 1 },
        ],
        ops: [
          { op: 'put', key: `${p}x`, value: '1' },
          { op: 'delete', key: `${p}meta` },
        ],
      });
      expect(failed.succeeded).toBe(false);
      expect((await store.range(p)).kvs).toEqual(before.kvs);
      // Ops that change nothing do not raise the revision.
      const noop = await store.txn({ compare: [], ops: [{ op: 'delete', key: `${p}never-there` }] });
      expect(noop).toEqual({ succeeded: true, revision: (await store.range(p)).revision });
    }));

  it('loses no update under concurrent read-modify-write clients (every loser re-reads and retries)', () =>
    withStore(factory, async (store, p) => {
      const key = `${p}counter`;
      const clients = 4;
      const incrementsEach = 10;
      const commitRevisions: number[] = [];
      const increment = async () => {
        let kv = await store.get(key);
        for (;;) {
          const n = kv ? Number(kv.value) : 0;
          const r = await store.txn({ compare: [{ key, modRevision: kv?.modRevision ?? 0 }], ops: [{ op: 'put', key, value: String(n + 1) }] });
          if (r.succeeded) return commitRevisions.push(r.revision);
          kv = r.current.get(key);
        }
      };
      await Promise.all(
        Array.from({ length: clients }, async () => {
          for (let i = 0; i < incrementsEach; i++) await increment();
        }),
      );
      const final = (await store.get(key))!;
      expect(final.value).toBe(String(clients * incrementsEach));
      expect(final.version).toBe(clients * incrementsEach);
      // Every commit got its own revision.
      expect(new Set(commitRevisions).size).toBe(clients * incrementsEach);
    }));
}

/** The txns etcd refuses: a key put twice, a put inside a prefix the same txn deletes, a put on an ended lease. */
function txnRefusalContract(factory: StateStoreFactory): void {
  it('refuses a txn that puts a key twice or inside a prefix it deletes, and a put on an ended lease', () =>
    withStore(factory, async (store, p) => {
      const dup = store.txn({
        compare: [],
        ops: [
          { op: 'put', key: `${p}a`, value: '1' },
          { op: 'put', key: `${p}a`, value: '2' },
        ],
      });
      await expect(dup).rejects.toMatchObject({ code: 'invalid_argument', message: 'duplicate key given in txn request' });
      const inside = store.txn({
        compare: [],
        ops: [
          { op: 'deletePrefix', prefix: p },
          { op: 'put', key: `${p}a`, value: '2' },
        ],
      });
      await expect(inside).rejects.toMatchObject({ code: 'invalid_argument' });
      const lease = await store.grantLease(5);
      await store.revokeLease(lease.id);
      await expect(put(store, `${p}b`, 'x', lease.id)).rejects.toMatchObject({ code: 'lease_not_found' });
      expect((await store.range(p)).kvs).toEqual([]);
    }));
}

/** Leases: expiry deletes their keys, renewal keeps them, revocation deletes them at once. */
function leaseContract(factory: StateStoreFactory): void {
  it('deletes the keys of an expired lease, all in one revision', () =>
    withStore(factory, async (store, p) => {
      const grantSentAt = performance.now();
      const lease = await store.grantLease(1);
      expect(lease.ttlSeconds).toBeGreaterThanOrEqual(1);
      await put(store, `${p}node/1`, 'alive', lease.id);
      await put(store, `${p}node/2`, 'alive', lease.id);
      await put(store, `${p}keep`, 'no lease');
      const from = (await store.range(p)).revision + 1;
      expect((await store.get(`${p}node/1`))?.lease).toBe(lease.id);
      const controller = new AbortController();
      const deletes = collect(
        store.watch(p, { fromRevision: from, signal: controller.signal }),
        controller,
        (b) => b.length >= 1,
        lease.ttlSeconds * 1000 + 4_000,
      );
      await waitUntil('lease keys deleted', lease.ttlSeconds * 1000 + 4_000, async () => (await store.range(`${p}node/`)).kvs.length === 0);
      // Not before the TTL has run out (it starts when the server grants, after the request was sent).
      expect(performance.now() - grantSentAt).toBeGreaterThanOrEqual(lease.ttlSeconds * 1000 - 20);
      const [batch] = await deletes;
      expect(batch.events.map((e) => [e.type, e.kv.key]).sort()).toEqual([
        ['delete', `${p}node/1`],
        ['delete', `${p}node/2`],
      ]);
      expect((await store.get(`${p}keep`))?.value).toBe('no lease');
      await expect(store.keepAliveLease(lease.id)).rejects.toMatchObject({ code: 'lease_not_found' });
    }));

  it('keeps a lease alive while it is renewed, and lets it expire once renewal stops', () =>
    withStore(factory, async (store, p) => {
      // TTL 2 s, renewed every ~667 ms: a busy machine may delay one renewal without losing the lease.
      const lease = await store.grantLease(2);
      const keeper = new LeaseKeeper(store, lease);
      let lost: StateStoreError | undefined;
      void keeper.lost.then((err) => (lost = err));
      await put(store, `${p}member`, 'me', lease.id);
      await sleep(lease.ttlSeconds * 1000 * 2.5);
      expect((await store.get(`${p}member`))?.value).toBe('me');
      expect(lost).toBeUndefined();
      expect(await store.keepAliveLease(lease.id)).toBe(lease.ttlSeconds);
      keeper.stop();
      await waitUntil('key of the unrenewed lease deleted', lease.ttlSeconds * 1000 + 4_000, async () => (await store.get(`${p}member`)) === undefined);
      expect(lost).toBeUndefined(); // stop() never reports a loss
    }));

  it('revoking a lease deletes its keys at once, and a keeper reports the loss', () =>
    withStore(factory, async (store, p) => {
      const lease = await store.grantLease(30);
      const keeper = new LeaseKeeper(store, { ...lease, ttlSeconds: 1 }); // renew every ~333 ms
      await put(store, `${p}a`, '1', lease.id);
      await store.revokeLease(lease.id);
      expect(await store.get(`${p}a`)).toBeUndefined();
      const why = await Promise.race([keeper.lost, sleep(3_000).then(() => undefined)]);
      expect(why?.code).toBe('lease_not_found');
      await expect(store.revokeLease(lease.id)).rejects.toMatchObject({ code: 'lease_not_found' });
    }));
}

/** Watches: ordered and gapless under concurrent writers, resumable from a revision, compaction reported. */
function watchContract(factory: StateStoreFactory): void {
  it('watches report every revision once, in order, with no gap, under concurrent writers', () =>
    withStore(factory, async (store, p) => {
      const writers = 4;
      const txnsEach = 25;
      const from = (await store.range(p)).revision + 1;
      const controller = new AbortController();
      const expected = writers * txnsEach;
      const seen = collect(store.watch(p, { fromRevision: from, signal: controller.signal }), controller, (b) => b.length >= expected, 15_000);
      const committed = new Map<number, string[]>();
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < txnsEach; i++) {
            // Half the txns write two keys: their events must arrive together.
            const keys = i % 2 === 0 ? [`${p}w${w}/${i}`] : [`${p}w${w}/${i}`, `${p}w${w}/${i}-pair`];
            const r = await store.txn({ compare: [], ops: keys.map((key) => ({ op: 'put' as const, key, value: `${w}:${i}` })) });
            committed.set(r.revision, keys);
          }
        }),
      );
      // A write outside the prefix is not reported.
      await put(store, `${p.slice(0, -1)}-outside`, 'x');
      const batches = await seen;
      expect(batches).toHaveLength(expected);
      const revisions = batches.map((b) => b.revision);
      for (let i = 1; i < revisions.length; i++) expect(revisions[i]).toBeGreaterThan(revisions[i - 1]);
      expect(revisions).toEqual([...committed.keys()].sort((a, b) => a - b));
      for (const b of batches) {
        expect(b.events.map((e) => e.kv.key).sort()).toEqual([...committed.get(b.revision)!].sort());
        expect(b.events.every((e) => e.type === 'put' && e.kv.modRevision === b.revision)).toBe(true);
      }
    }));

  it('resumes a watch from a given revision, replaying history and then following live writes', () =>
    withStore(factory, async (store, p) => {
      const revs: number[] = [];
      for (let i = 0; i < 5; i++) revs.push(await put(store, `${p}k${i % 2}`, String(i)));
      await store.txn({ compare: [], ops: [{ op: 'delete', key: `${p}k0` }] });
      const controller = new AbortController();
      const seen = collect(store.watch(p, { fromRevision: revs[2], signal: controller.signal }), controller, (b) => b.length >= 5, 10_000);
      await sleep(100);
      const live = await put(store, `${p}k9`, 'live');
      const batches = await seen;
      expect(batches.map((b) => b.revision)).toEqual([revs[2], revs[3], revs[4], revs[4] + 1, live]);
      expect(batches.map((b) => b.events[0].type)).toEqual(['put', 'put', 'put', 'delete', 'put']);
      expect(batches[3].events[0].kv).toMatchObject({ key: `${p}k0`, modRevision: revs[4] + 1 });
      expect(batches.map((b) => b.events[0].kv.value)).toEqual(['2', '3', '4', '', 'live']);
    }));

  it('reports compaction: a watch from a compacted revision fails with the compact revision', () =>
    withStore(factory, async (store, p) => {
      const first = await put(store, `${p}a`, '1');
      await put(store, `${p}a`, '2');
      const third = await put(store, `${p}a`, '3');
      await store.compact(third);
      const watchFromOld = async () => {
        for await (const _ of store.watch(p, { fromRevision: first })) return;
      };
      const err = await watchFromOld().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isStateStoreError(err, 'compacted')).toBe(true);
      expect((err as StateStoreError).compactRevision).toBeGreaterThanOrEqual(third);
      await expect(store.compact(third)).rejects.toMatchObject({ code: 'compacted' });
      await expect(store.compact(third + 1_000_000)).rejects.toMatchObject({ code: 'invalid_argument' });
      // The compacted revision itself is still watchable, and the data is untouched.
      const controller = new AbortController();
      const batches = await collect(store.watch(p, { fromRevision: third, signal: controller.signal }), controller, (b) => b.length >= 1, 5_000);
      expect(batches[0]).toMatchObject({ revision: third });
      expect((await store.get(`${p}a`))?.value).toBe('3');
    }));
}

/** The election recipe: one leader, a bounded handover with a growing fencing token, a campaign whose lease ends. */
function electionContract(factory: StateStoreFactory): void {
  it('elects one leader of two candidates, hands over within a bound when its lease ends, and the fencing token grows', () =>
    withStore(factory, async (store, p) => {
      const election = new Election(store, `${p}manager/`);
      const leaseA = await store.grantLease(30);
      const leaseB = await store.grantLease(30);
      const observed: Array<string | undefined> = [];
      const observer = new AbortController();
      const observing = (async () => {
        for await (const leader of election.observe(observer.signal)) observed.push(leader?.value);
      })();
      const a = await election.campaign(leaseA.id, 'A');
      let b: Leadership | undefined;
      const bElected = election.campaign(leaseB.id, 'B').then((l) => (b = l));
      await sleep(500);
      expect(b).toBeUndefined(); // only one leader
      expect(await election.leader()).toMatchObject({ value: 'A', createRevision: a.fencingToken });
      expect(await a.isCurrent()).toBe(true);
      await a.proclaim('A2');
      expect((await election.leader())?.value).toBe('A2');

      const revokedAt = performance.now();
      await store.revokeLease(leaseA.id);
      await Promise.race([bElected, sleep(5_000)]);
      const handoverMs = performance.now() - revokedAt;
      expect(b, 'B elected within 5 s of A losing its lease').toBeDefined();
      expect(handoverMs).toBeLessThan(5_000);
      expect(b!.fencingToken).toBeGreaterThan(a.fencingToken);
      expect(await election.leader()).toMatchObject({ value: 'B', createRevision: b!.fencingToken });
      // The deposed leader is fenced: its guard fails and it cannot proclaim.
      expect(await a.isCurrent()).toBe(false);
      const fenced = await store.txn({ compare: [a.guard], ops: [{ op: 'put', key: `${p}state`, value: 'from A' }] });
      expect(fenced.succeeded).toBe(false);
      await expect(a.proclaim('A3')).rejects.toMatchObject({ code: 'not_leader' });
      const guarded = await store.txn({ compare: [b!.guard], ops: [{ op: 'put', key: `${p}state`, value: 'from B' }] });
      expect(guarded.succeeded).toBe(true);

      // A comes back with a new lease: it waits behind B, and leads after B resigns, with a larger token.
      const leaseA2 = await store.grantLease(30);
      const a2 = election.campaign(leaseA2.id, 'A-again');
      await sleep(300);
      await b!.resign();
      const a2Leader = await Promise.race([a2, sleep(5_000).then(() => undefined)]);
      expect(a2Leader?.fencingToken).toBeGreaterThan(b!.fencingToken);
      await a2Leader!.resign();
      await waitUntil('observer sees no leader', 5_000, () => Promise.resolve(observed.at(-1) === undefined && observed.length > 1));
      observer.abort();
      await observing;
      expect(observed.filter((v) => v !== undefined)).toEqual(['A', 'A2', 'B', 'A-again']);
      await store.revokeLease(leaseB.id);
      await store.revokeLease(leaseA2.id);
    }));

  it('a campaign whose lease ends while it waits fails with not_leader', () =>
    withStore(factory, async (store, p) => {
      const election = new Election(store, `${p}e/`);
      const leaseA = await store.grantLease(30);
      const leaseB = await store.grantLease(30);
      const a = await election.campaign(leaseA.id, 'A');
      const waiting = election.campaign(leaseB.id, 'B').then(
        () => 'elected',
        (e: unknown) => e,
      );
      await sleep(200);
      await store.revokeLease(leaseB.id);
      const outcome = await Promise.race([waiting, sleep(5_000).then(() => 'still waiting')]);
      expect(outcome).toMatchObject({ code: 'not_leader' });
      expect(await a.isCurrent()).toBe(true);
      await store.revokeLease(leaseA.id);
    }));
}

/** Keys and values of a range, for comparing whole states. */
export function entries(kvs: KeyValue[]): Array<[string, string]> {
  return kvs.map((kv) => [kv.key, kv.value]);
}
