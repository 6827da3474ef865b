/**
 * `POST /{index}/_close` and `POST /{index}/_open`: ES's index state changes. Closing flushes the
 * index's in-sync copies, then stores `state: close` (and ES's `index.verified_before_close: true`)
 * in the cluster state, one compare-and-swap per index, so every coordinator and shard node refuses
 * the index's reads and writes from then on (400 `index_closed_exception`); opening stores it open
 * again. The shard copies stay where they are (ES 8 keeps closed indices replicated), so health
 * and `_cat/shards` still count them, and reopening needs no recovery. Closing by a wildcard or
 * `_all` is refused while `action.destructive_requires_name` is true, as ES.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-close.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-open-close.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/MetadataIndexStateService.java
 */
import type { Context, Hono } from 'hono';
import { rpc } from '../../../protocol/rpc.ts';
import { type RefreshRequest } from '../../../protocol/metadata.ts';
import type { ClusterView } from '../../cluster/cluster-view.ts';
import { failDestructive, mayBeDestructive } from '../../cluster/destructive-operations.ts';
import { checkParams, queryParams, sendJson } from '../http.ts';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { closedMetadata, isClosed, openedMetadata } from '../../cluster/index-state.ts';
import { inSyncCopiesByNode } from '../../cluster/index-view.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import type { ShardClient } from '../../transport/shard-client.ts';

/** Services the index state routes use. */
export interface IndexStateDeps {
  view: ClusterView;
  client: ShardClient;
  timeoutMs: number;
  /** The cluster's `action.destructive_requires_name`, read fresh (absent: ES 8's default, true). */
  destructiveRequiresName?: () => Promise<boolean>;
}

/** Registers the close and open routes (before the index routes). */
export function registerIndexStateRoutes(app: Hono, deps: IndexStateDeps): void {
  const { view } = deps;

  /** Best-effort flush of an index's in-sync copies before it closes (ES flushes each shard as it closes). */
  const flush = async (name: string): Promise<void> => {
    const v = await view.get(name);
    await Promise.allSettled(
      [...inSyncCopiesByNode(v)].map(([node, shards]) => {
        const body: RefreshRequest = { index: name, shards };
        return deps.client.rpc(node, rpc.flush, body, { timeoutMs: deps.timeoutMs });
      }),
    );
  };

  app.post('/:index/_close', async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.closeIndex);
    const expression = c.req.param('index');
    if (mayBeDestructive(expression)) failDestructive(expression, (await deps.destructiveRequiresName?.()) ?? true);
    const names = await resolveIndices(expression, view, indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.strictOpen));
    const indices: Record<string, { closed: true }> = {};
    for (const name of names) {
      if (isClosed((await view.get(name)).metadata)) continue;
      await flush(name);
      await view.updateMetadata(name, closedMetadata);
      indices[name] = { closed: true };
    }
    const any = Object.keys(indices).length > 0;
    return sendJson(c, 200, { acknowledged: true, shards_acknowledged: any, indices });
  });

  app.post('/:index/_open', async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.openIndex);
    const names = await resolveIndices(c.req.param('index'), view, indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.openIndex));
    for (const name of names) await view.updateMetadata(name, openedMetadata);
    return sendJson(c, 200, { acknowledged: true, shards_acknowledged: true });
  });
}
