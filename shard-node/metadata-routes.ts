/**
 * The shard node's metadata actions (protocol/rpc.ts): its health, the indices it knows and hosts
 * (`listIndices`, `putIndex`, `deleteIndex`: every node keeps every index's metadata, and opens the
 * shards it hosts), refresh and flush of its shards (ES `indices:admin/refresh`, `indices:admin/flush`),
 * the cluster settings every coordinator reads and writes here, per-shard statistics, and the
 * emptying of shards' request caches (ES `indices:admin/cache/clear`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-refresh.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-flush.html
 */
import type { RecoveryStates } from './recovery-states.ts';
import type { NodeStats } from '../protocol/metadata.ts';
import { rpc } from '../protocol/rpc.ts';
import type { ActionModule } from './action-module.ts';
import type { IndexRegistry } from './index-registry.ts';
import { serve } from './rpc-serve.ts';
import type { SearchContexts } from './search-contexts.ts';
import type { ShardRequestCache } from './request-cache.ts';

/**
 * Every shard copy hosted here: document counts and generation, whether it is the primary, its
 * operation counters with its open and finished search contexts (what `GET /_stats` sums), and its
 * sequence numbers and checkpoints.
 */
function nodeStats(registry: IndexRegistry, contexts: SearchContexts, node: string, states: RecoveryStates, requestCache: ShardRequestCache): NodeStats {
  const shards: NodeStats['shards'] = [];
  for (const entry of registry.list()) {
    for (const s of entry.shards) {
      const index = entry.metadata.name;
      const shard = registry.shard(index, s);
      const copy = entry.copies?.find((x) => x.shard === s);
      shards.push({
        index,
        shard: s,
        ...shard.stats(),
        ...(copy ? { primary: copy.primary } : {}),
        ops: { ...shard.counters, ...contexts.shardStats(index, s) },
        seqNo: { maxSeqNo: shard.maxSeqNo, localCheckpoint: shard.localCheckpoint, globalCheckpoint: shard.globalCheckpoint },
        recovery: states.report(index, entry.metadata.uuid, s, copy?.primary ?? false, shard.maxSeqNo >= 0, entry.metadata.creationDate),
        requestCache: requestCache.stats(shard),
      });
    }
  }
  return { node, shards };
}

/** See the module comment. */
export const metadataActions: ActionModule = {
  name: 'metadata',
  bind(app, { registry, node, log, clusterSettings, contexts, recoveryStates, requestCache }) {
    serve(app, rpc.health, () => ({ status: 'ok', node }));
    serve(app, rpc.listIndices, () => ({ node, indices: registry.list() }));
    serve(app, rpc.putIndex, (req) => {
      registry.putIndex(req.metadata, req.shards, req.node);
      log.info({ index: req.metadata.name, shards: req.shards }, 'index metadata stored');
      return { node, acknowledged: true };
    });
    serve(app, rpc.deleteIndex, (req) => {
      registry.deleteIndex(req.index);
      return { node, acknowledged: true };
    });
    serve(app, rpc.refresh, async (req) => ({ node, index: req.index, shards: await registry.refresh(req.index, req.shards) }));
    // ES flush: fold each shard's translog into its durable snapshot (same body as refresh).
    serve(app, rpc.flush, async (req) => ({ node, index: req.index, shards: await registry.flush(req.index, req.shards) }));
    serve(app, rpc.getClusterSettings, () => ({ node, state: clusterSettings.current() }));
    serve(app, rpc.putClusterSettings, (req) => ({ node, state: clusterSettings.apply(req) }));
    serve(app, rpc.stats, () => nodeStats(registry, contexts, node, recoveryStates, requestCache));
    // ES `POST /_cache/clear?request=true`: every copy here of the indices named (an index not here is skipped).
    serve(app, rpc.clearCache, (req) => {
      const wanted = new Set(Array.isArray(req?.indices) ? req.indices : []);
      const shards: { index: string; shard: number }[] = [];
      for (const entry of registry.list()) {
        if (!wanted.has(entry.metadata.name)) continue;
        for (const s of entry.shards) {
          requestCache.clear(registry.shard(entry.metadata.name, s));
          shards.push({ index: entry.metadata.name, shard: s });
        }
      }
      return { node, shards };
    });
  },
};
