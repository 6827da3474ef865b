/**
 * `POST|GET /_flush` and `/{index}/_flush`: ES flush — every shard folds its translog into its
 * durable snapshot (shard-node/storage/shard-store.ts). Answers `_shards` like `_refresh`; a shard
 * whose node fails counts as failed.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-flush.html
 */
import { broadcastToCopies } from '../../cluster/shard-broadcast.ts';
import type { Context, Hono } from 'hono';
import { rpc } from '../../../protocol/rpc.ts';
import { type RefreshRequest } from '../../../protocol/metadata.ts';
import type { ClusterView } from '../../cluster/cluster-view.ts';
import { checkParams, queryParams, sendJson } from '../http.ts';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import type { ShardClient } from '../../transport/shard-client.ts';

/** Services the flush routes use. */
export interface FlushDeps {
  view: ClusterView;
  client: ShardClient;
  timeoutMs: number;
}

/** `RestFlushAction` parameters: the indices options plus `force` and `wait_if_ongoing` (accepted, no effect). */
const FLUSH_PARAMS = [...ROUTE_PARAMS.refresh, 'force', 'wait_if_ongoing'];

/** Registers the flush routes on `app` (before the index routes, whose `/:index` would match `/_flush`). */
export function registerFlushRoutes(app: Hono, deps: FlushDeps): void {
  const flush = async (c: Context) => {
    checkParams(c, FLUSH_PARAMS);
    const names = await resolveIndices(c.req.param('index') ?? '_all', deps.view, indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.search));
    const send = (node: number, index: string, shards: number[]) => {
      const body: RefreshRequest = { index, shards };
      return deps.client.rpc(node, rpc.flush, body, { timeoutMs: deps.timeoutMs });
    };
    return sendJson(c, 200, { _shards: await broadcastToCopies(deps.view, names, send) });
  };
  app.on(['POST', 'GET'], '/_flush', flush);
  app.on(['POST', 'GET'], '/:index/_flush', flush);
}
