/**
 * `node bench/state-store.ts`: latency of the state store's two hot paths on both implementations,
 * for docs/cluster-state.md. A CAS transaction (read-modify-write on the revision read, one
 * client, sequential) and watch delivery (time from a put's send to its event reaching a watcher).
 * The etcd side starts one real member (Debian's etcd-server) on free loopback ports. Figures are
 * printed, never asserted: the machine is shared, so read them as orders of magnitude.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStore } from '../shared/state-store/embedded-store.ts';
import { EtcdStore } from '../shared/state-store/etcd-store.ts';
import type { StateStore } from '../shared/state-store/types.ts';
import { startEtcdCluster } from '../test/support/etcd-process.ts';

/** Operations measured per path. */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);

function percentiles(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2);
  return `p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms (n=${s.length})`;
}

async function measure(name: string, store: StateStore): Promise<void> {
  const key = `bench/${Date.now()}/cas`;
  let rev = 0;
  const cas: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    const r = await store.txn({ compare: [{ key, modRevision: rev }], ops: [{ op: 'put', key, value: String(i) }] });
    cas.push(performance.now() - t);
    if (!r.succeeded) throw new Error(`${name}: CAS lost without a competitor`);
    rev = r.revision;
  }
  const prefix = `bench/${Date.now()}/watch/`;
  const controller = new AbortController();
  const delivery: number[] = [];
  let pending: { sentAt: number; arrived: () => void } | undefined;
  const watching = (async () => {
    for await (const _ of store.watch(prefix, { signal: controller.signal })) {
      if (!pending) continue;
      delivery.push(performance.now() - pending.sentAt);
      const p = pending;
      pending = undefined;
      p.arrived();
    }
  })();
  await new Promise((r) => setTimeout(r, 200));
  for (let i = 0; i < SAMPLES; i++) {
    let put: Promise<unknown> = Promise.resolve();
    await new Promise<void>((arrived) => {
      pending = { sentAt: performance.now(), arrived };
      put = store.txn({ compare: [], ops: [{ op: 'put', key: `${prefix}k`, value: String(i) }] });
    });
    await put;
  }
  controller.abort();
  await watching;
  console.log(`${name}: CAS txn ${percentiles(cas)}`);
  console.log(`${name}: watch put→event ${percentiles(delivery)}`);
}

const dir = await mkdtemp(join(tmpdir(), 'folio-bench-state-'));
const embedded = await EmbeddedStore.open({ dir });
try {
  await measure('EmbeddedStore', embedded);
} finally {
  await embedded.close();
  await rm(dir, { recursive: true, force: true });
}
const cluster = await startEtcdCluster(1);
const etcd = new EtcdStore({ endpoints: cluster.endpoints });
try {
  await measure('EtcdStore (gateway)', etcd);
} finally {
  await etcd.close();
  await cluster.stop();
}
