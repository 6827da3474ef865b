/**
 * Records every change of one index's metadata in the cluster-state store during a schedule (an etcd
 * watch on its key, docs/cluster-state.md), so a failure message can show how the shard with the
 * problem moved: primary terms, which copy was primary, which copies were in sync, per revision.
 */
import { indexKey } from '../../shared/cluster-state/keys.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { EtcdStore } from '../../shared/state-store/etcd-store.ts';

/** One stored value of the index's metadata. */
export interface StateChange {
  /** Ms since the schedule started. */
  atMs: number;
  revision: number;
  /** Null: the key was deleted. */
  metadata: IndexMetadata | null;
}

/** A running recorder. */
export interface StateLog {
  changes: StateChange[];
  /** Ends the watch. */
  stop(): Promise<void>;
  /** The changes of shard `s` as lines, e.g. `+812ms rev 41 v7 term 2: shard-1 P in, shard-0 R out(resync)`. */
  format(s: number): string[];
}

/** Starts watching `index`'s key from now on; `now()` gives ms since the schedule started. */
export async function recordState(etcdEndpoints: string[], index: string, now: () => number): Promise<StateLog> {
  const store = new EtcdStore({ endpoints: etcdEndpoints });
  const controller = new AbortController();
  const changes: StateChange[] = [];
  const first = await store.get(indexKey(index));
  if (first) changes.push({ atMs: now(), revision: first.modRevision, metadata: JSON.parse(first.value) as IndexMetadata });
  const done = (async () => {
    try {
      for await (const batch of store.watch(indexKey(index), { fromRevision: (first?.modRevision ?? 0) + 1, signal: controller.signal })) {
        for (const e of batch.events) {
          if (e.kv.key !== indexKey(index)) continue;
          changes.push({ atMs: now(), revision: batch.revision, metadata: e.type === 'put' ? (JSON.parse(e.kv.value) as IndexMetadata) : null });
        }
      }
    } catch (err) {
      changes.push({ atMs: now(), revision: -1, metadata: null });
      void err;
    }
  })();
  return {
    changes,
    async stop() {
      controller.abort();
      await done;
      await store.close();
    },
    format(s) {
      const lines: string[] = [];
      let last = '';
      for (const c of changes) {
        const m = c.metadata;
        const text = m
          ? `v${m.version} term ${m.primaryTerms?.[s] ?? 1}: ${(m.shardCopies?.[s] ?? []).map((x) => `shard-${x.node} ${x.primary ? 'P' : 'R'} ${x.inSync ? 'in' : 'out'}${x.resync ? '(resync)' : ''}`).join(', ')}`
          : c.revision < 0
            ? 'watch failed'
            : 'deleted';
        if (text.replace(/^v\d+ /, '') === last) continue;
        last = text.replace(/^v\d+ /, '');
        lines.push(`+${c.atMs}ms rev ${c.revision} ${text}`);
      }
      return lines;
    },
  };
}
