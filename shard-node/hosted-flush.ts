/**
 * Flushing the durable stores of the copies this node hosts: an explicit flush of some copies of
 * an index (timed, and counted in each shard's `flush.total`), the bookkeeping of the flushes the
 * flush policy runs (shard-node/storage/flush-policy.ts), and the flush of every store on a
 * graceful close. Mirrors ES `IndexShard.flush` and the flush `IndicesService` runs on close.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-flush.html
 */
import type { Logger } from '../shared/logger.ts';
import type { HostedIndex } from './hosted-index.ts';
import type { ShardStore } from './storage/shard-store.ts';

/** Receives flush durations in seconds (shard-node/metrics.ts). */
export type FlushTimer = (index: string, seconds: number) => void;

/**
 * Flushes the stores of `targets` (copies of `h` that exist), each timed, and counts one flush on
 * each shard (without storage too, as ES counts every flush).
 */
export async function flushCopies(h: HostedIndex, targets: readonly number[], flushed: FlushTimer): Promise<void> {
  await Promise.all(targets.map((s) => timedFlush(h.metadata.name, h.stores.get(s), flushed)));
  for (const s of targets) h.shards.get(s)!.counters.flushTotal++; // counted without storage too, as ES counts every flush
}

async function timedFlush(index: string, store: ShardStore | undefined, flushed: FlushTimer): Promise<void> {
  if (!store) return;
  const started = performance.now();
  await store.flush();
  flushed(index, (performance.now() - started) / 1000);
}

/** Counts a flush the flush policy ran on `store` (`GET /_stats` `flush.total`). */
export function countPolicyFlush(indices: Iterable<HostedIndex>, store: ShardStore): void {
  for (const h of indices) {
    for (const [s, st] of h.stores) if (st === store) h.shards.get(s)!.counters.flushTotal++;
  }
}

/** The index a store belongs to ('' once it is gone). */
export function indexOfStore(indices: Iterable<HostedIndex>, store: ShardStore): string {
  for (const h of indices) for (const st of h.stores.values()) if (st === store) return h.metadata.name;
  return '';
}

/** Every store of the hosted copies. */
export function storesOf(indices: Iterable<HostedIndex>): ShardStore[] {
  return [...indices].flatMap((h) => [...h.stores.values()]);
}

/**
 * Seals every copy's unrefreshed writes into segments before the close flush, so that the commit
 * it writes holds every write and the restart replays no translog (ES's flush on close commits
 * the `IndexWriter`, whose buffered documents become segments). Failures are logged: the flush
 * then leaves those writes in the translog, which the restart replays.
 */
export async function sealBeforeClose(indices: Iterable<HostedIndex>, log: Logger | undefined): Promise<void> {
  const refreshes = [...indices].flatMap((h) =>
    [...h.shards]
      .filter(([s]) => h.stores.has(s) && !h.failed.has(s))
      .map(([s, shard]) =>
        shard.refreshSliced().catch((err: Error) => log?.error({ err, index: h.metadata.name, shard: s }, 'refresh before the close flush failed')),
      ),
  );
  await Promise.all(refreshes);
}

/** Flushes every store (ES flushes on close; a failure is logged) and then closes them all. */
export async function flushAndCloseStores(stores: readonly ShardStore[], log: Logger | undefined): Promise<void> {
  await Promise.all(stores.map((st) => st.flush().catch((err: Error) => log?.error({ err, path: st.path }, 'flush on close failed'))));
  for (const st of stores) st.close();
}
