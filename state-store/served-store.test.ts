/**
 * The embedded store served as an etcd member (`node state-store/main.ts`) holds the same
 * contract as a real etcd: `EtcdStore`, unchanged, passes the whole state-store contract suite
 * against it. Then durability across the process: every write the service acknowledged survives a
 * SIGKILL of the service, and a graceful SIGTERM ends open watches (clients reopen them) and exits 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdStore } from '../shared/state-store/etcd-store.ts';
import { describeStateStoreContract } from '../shared/state-store/state-store.contract.ts';
import { startStateStoreService } from '../test/support/state-store-process.ts';
import type { StateStoreService } from '../test/support/state-store-process.ts';

const root = mkdtempSync(join(tmpdir(), 'folio-served-store-'));
let service: StateStoreService | undefined;
beforeAll(async () => {
  service = await startStateStoreService(join(root, 'contract'));
}, 30_000);
afterAll(async () => {
  await service?.stop();
  rmSync(root, { recursive: true, force: true });
});

describeStateStoreContract('EtcdStore on the served embedded store (state-store/main.ts)', {
  open: () => {
    if (!service) return Promise.reject(new Error('the state store service did not start'));
    return Promise.resolve(new EtcdStore({ endpoints: [service.url] }));
  },
});

describe('the served embedded store as a process', () => {
  it('keeps every acknowledged write when the service is SIGKILLed mid-stream, and serves them after a restart', async () => {
    const dir = join(root, 'kill');
    const first = await startStateStoreService(dir);
    const client = new EtcdStore({ endpoints: [first.url], requestTimeoutMs: 1_000 });
    const acked: number[] = [];
    let stopWriting = false;
    const writer = (async () => {
      for (let i = 0; !stopWriting; i++) {
        try {
          const r = await client.txn({ compare: [], ops: [{ op: 'put', key: `k/${String(i).padStart(6, '0')}`, value: String(i) }] });
          if (r.succeeded) acked.push(i);
        } catch {
          return; // the service is gone: this write's outcome is unknown, and it is the last one sent
        }
      }
    })();
    const started = performance.now();
    while (acked.length < 100 && performance.now() - started < 15_000) await new Promise((r) => setTimeout(r, 10));
    expect(await first.stop('SIGKILL')).toBe('SIGKILL');
    stopWriting = true;
    await writer;
    await client.close();
    expect(acked.length).toBeGreaterThanOrEqual(100);

    const second = await startStateStoreService(dir, first.port);
    const reader = new EtcdStore({ endpoints: [second.url] });
    try {
      const { kvs, revision } = await reader.range('k/');
      // Every acknowledged write is back, in order; at most the one in flight beyond them.
      expect(kvs.length).toBeGreaterThanOrEqual(acked.length);
      expect(kvs.length).toBeLessThanOrEqual(acked.length + 1);
      expect(kvs.slice(0, acked.length).map((kv) => [kv.key, kv.value])).toEqual(acked.map((i) => [`k/${String(i).padStart(6, '0')}`, String(i)]));
      expect(revision).toBe(kvs.length + 1);
      // History is not kept across a restart: a watch from the next revision works, an older one is compacted.
      const stale = reader.watch('k/', { fromRevision: 2 })[Symbol.asyncIterator]();
      await expect(stale.next()).rejects.toMatchObject({ code: 'compacted', compactRevision: revision + 1 });
    } finally {
      await reader.close();
      expect(await second.stop('SIGTERM')).toBe(0);
    }
  });

  it('ends open watch streams on SIGTERM and exits 0; the watch resumes from where it was on the next service', async () => {
    const dir = join(root, 'term');
    const first = await startStateStoreService(dir);
    const client = new EtcdStore({ endpoints: [first.url], watchProbeIntervalMs: 200 });
    try {
      const r1 = await client.txn({ compare: [], ops: [{ op: 'put', key: 'w/a', value: '1' }] });
      const watch = client.watch('w/', { fromRevision: r1.revision })[Symbol.asyncIterator]();
      expect((await watch.next()).value).toMatchObject({ revision: r1.revision, events: [{ type: 'put', kv: { key: 'w/a', value: '1' } }] });
      expect(await first.stop('SIGTERM')).toBe(0);
      const second = await startStateStoreService(dir, first.port);
      try {
        const r2 = await client.txn({ compare: [], ops: [{ op: 'put', key: 'w/b', value: '2' }] });
        // The watch reopens from r1 + 1, which the restarted store still serves (its current revision + 1).
        expect((await watch.next()).value).toMatchObject({ revision: r2.revision, events: [{ type: 'put', kv: { key: 'w/b', value: '2' } }] });
        await watch.return?.();
      } finally {
        await second.stop('SIGTERM');
      }
    } finally {
      await client.close();
    }
  });
});
