/**
 * The shard node's document actions (protocol/rpc.ts): a shard bulk on its primary copy
 * (shard-node/primary-bulk-route.ts, ES `TransportShardBulkAction`), its replication to a replica
 * (shard-node/replica-routes.ts), and the realtime get of one document (ES `TransportGetAction`:
 * from the translog's latest version unless `realtime` is false, after a refresh when asked).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-get.html#realtime
 */
import { rpc } from '../protocol/rpc.ts';
import type { ActionModule } from './action-module.ts';
import { servePrimaryBulk } from './primary-bulk-route.ts';
import { serveReplicate } from './replica-routes.ts';
import { serve } from './rpc-serve.ts';

/** See the module comment. */
export const writeActions: ActionModule = {
  name: 'write',
  bind(app, services) {
    const { registry, node } = services;
    servePrimaryBulk(app, services);
    serveReplicate(app, services);
    serve(app, rpc.get, async (req) => {
      registry.checkOpen(req.index);
      const shard = registry.shard(req.index, req.shard);
      if (req.refresh === true) await registry.refresh(req.index, [req.shard]);
      const doc = req.realtime === false ? shard.getRefreshed(req._id) : shard.get(req._id);
      return { node, index: req.index, shard: req.shard, ...doc };
    });
  },
};
