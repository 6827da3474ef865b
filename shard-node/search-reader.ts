/**
 * Which generation of a shard a search round reads on this node: an open context's (a PIT or
 * scroll, renewed), else a generation some context pins, else the shard's current or a retained
 * past one (retained for the search keep-alive, so a later round of the same search, or a
 * `Folio-Snapshot` token, reads what the earlier one read). Renewing a past generation is bounded
 * by `search.max_open_snapshot_context`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/point-in-time-api.html
 */
import type { ContextRef } from '../protocol/search.ts';
import type { Generation } from './engine/generation.ts';
import { DEFAULT_MAX_ANALYZED_OFFSET } from './engine/highlight/highlight-fetch.ts';
import type { IndexRegistry } from './index-registry.ts';
import { DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT, tooManySnapshotContexts, type SearchContexts } from './search-contexts.ts';

/** What the reader reads: the shards, the open contexts, and how long a read generation is retained (ms). */
export interface SearchReaderDeps {
  registry: IndexRegistry;
  contexts: SearchContexts;
  keepAliveMs: number;
}

/** The generation a round reads for `index`/`shard` given its pin (`generation`) or context. */
export type GenerationReader = (index: string, shard: number, generation: number | undefined, context: ContextRef | undefined) => Generation;

/**
 * The reader of the search rounds (see the module comment).
 * @throws EsError from the registry (missing or closed index or shard), the contexts (expired
 *   context: 404), or 429 {@link tooManySnapshotContexts} when renewing a past generation would pass the limit
 */
export function generationReader({ registry, contexts, keepAliveMs }: SearchReaderDeps): GenerationReader {
  return (index, shardNo, generation, context) => {
    registry.checkOpen(index);
    if (context) return contexts.use(index, shardNo, context.id, context.keepAliveMs);
    const shard = registry.shard(index, shardNo);
    if (generation !== undefined) {
      const pinned = contexts.pinned(index, shardNo, generation);
      if (pinned) return pinned;
      if (generation !== shard.generation) checkSnapshotLimit(registry, contexts);
    }
    return shard.acquire(generation, keepAliveMs);
  };
}

/**
 * Renewing a past generation (a `Folio-Snapshot` token, a later phase after a refresh) keeps its
 * segments alive for another keep-alive: refused with 429 while the node retains more past
 * generations than `search.max_open_snapshot_context`, so tokens cannot pin generations without bound.
 * @throws EsError 429 {@link tooManySnapshotContexts}
 */
function checkSnapshotLimit(registry: IndexRegistry, contexts: SearchContexts): void {
  const limit = contexts.limits.maxOpenSnapshotContext ?? DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT;
  let open = 0;
  for (const entry of registry.list()) for (const s of entry.shards) open += registry.shard(entry.metadata.name, s).retainedPastGenerations();
  if (open > limit) throw tooManySnapshotContexts(limit);
}

/** The index's `index.highlight.max_analyzed_offset` (read only when a fetch highlights). */
export function maxAnalyzedOffset(registry: IndexRegistry, index: string): number {
  const v = registry.metadataList().find((m) => m.name === index)?.settings?.['index.highlight.max_analyzed_offset'];
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number.parseInt(v, 10) : NaN;
  return Number.isFinite(n) ? n : DEFAULT_MAX_ANALYZED_OFFSET;
}
