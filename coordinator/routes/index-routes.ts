/**
 * Routes of the index APIs: create, get, exists, delete, `_settings`, `_mapping`, `_refresh`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices.html
 */
import { inSyncCopiesByNode } from '../index-view.ts';
import type { Context, Hono } from 'hono';
import type { IndexMetadata } from '../../shared/protocol.ts';
import { INTERNAL_PREFIX } from '../../shared/protocol.ts';
import type { Mapping } from '../../shared/mapping.ts';
import type { ClusterView } from '../cluster-view.ts';
import { resolveIndices } from '../index-expression.ts';
import { parseCreateIndexBody, parseSettingsUpdate, validateIndexName } from '../index-settings.ts';
import { checkParams, readJsonBody, sendJson } from '../http.ts';
import { failDestructive, mayBeDestructive } from '../destructive-operations.ts';
import { createIndex } from '../documents.ts';
import { checkShardLimit, DEFAULT_MAX_SHARDS_PER_NODE, replicaIncrease, totalShards } from '../shard-limit.ts';
import { ROUTE_PARAMS } from '../route-params.ts';
import type { ShardClient } from '../shard-client.ts';

/** Services the index routes use. */
export interface IndexDeps {
  view: ClusterView;
  client: ShardClient;
  timeoutMs: number;
  /** The cluster's `cluster.max_shards_per_node` (absent: ES's default, 1000). */
  maxShardsPerNode?: () => number;
  /** The cluster's `action.destructive_requires_name`, read fresh (absent: ES 8's default, true). */
  destructiveRequiresName?: () => Promise<boolean>;
}

/** `GET /{index}/_settings` shape of one index's settings (ES prints them as strings). */
export function settingsBody(m: IndexMetadata): Record<string, unknown> {
  return {
    index: {
      number_of_shards: String(m.numberOfShards),
      number_of_replicas: String(m.numberOfReplicas),
      max_result_window: String(m.maxResultWindow),
      refresh_interval: m.refreshIntervalMs < 0 ? '-1' : `${m.refreshIntervalMs}ms`,
      uuid: m.uuid,
      creation_date: String(m.creationDate),
      provided_name: m.name,
      ...(m.translogDurability ? { translog: { durability: m.translogDurability.toUpperCase() } } : {}),
      ...(m.gcDeletesMs !== undefined ? { gc_deletes: m.gcDeletesMs < 0 ? '-1' : `${m.gcDeletesMs}ms` } : {}),
      ...(m.maxRegexLength !== undefined ? { max_regex_length: String(m.maxRegexLength) } : {}),
      ...(m.maxRescoreWindow !== undefined ? { max_rescore_window: String(m.maxRescoreWindow) } : {}),
      ...(m.maxScriptFields !== undefined ? { max_script_fields: String(m.maxScriptFields) } : {}),
      ...(m.maxTermsCount !== undefined ? { max_terms_count: String(m.maxTermsCount) } : {}),
      version: { created: '8500000' },
    },
  };
}

/** Registers the index routes on `app`. */
export function registerIndexRoutes(app: Hono, deps: IndexDeps, maxBodyBytes: number): void {
  const { view } = deps;

  app.put('/:index', async (c) => {
    checkParams(c, ROUTE_PARAMS.createIndex);
    const name = c.req.param('index');
    validateIndexName(name);
    const spec = parseCreateIndexBody(await readJsonBody(c, maxBodyBytes));
    await createIndex(deps, name, spec);
    return sendJson(c, 200, { acknowledged: true, shards_acknowledged: true, index: name });
  });

  app.on('HEAD', '/:index', async (c) => {
    checkParams(c, ROUTE_PARAMS.getIndex);
    try {
      const names = await resolveIndices(c.req.param('index'), view);
      return c.body(null, names.length > 0 ? 200 : 404);
    } catch {
      return c.body(null, 404);
    }
  });

  app.get('/:index', async (c) => {
    checkParams(c, ROUTE_PARAMS.getIndex);
    const out: Record<string, unknown> = {};
    for (const name of await resolveIndices(c.req.param('index'), view)) {
      const m = (await view.get(name)).metadata;
      out[name] = { aliases: {}, mappings: m.mappings, settings: settingsBody(m) };
    }
    return sendJson(c, 200, out);
  });

  app.delete('/:index', async (c) => {
    checkParams(c, ROUTE_PARAMS.deleteIndex);
    const expression = c.req.param('index');
    if (mayBeDestructive(expression)) failDestructive(expression, (await deps.destructiveRequiresName?.()) ?? true);
    for (const name of await resolveIndices(expression, view)) await view.delete(name);
    return sendJson(c, 200, { acknowledged: true });
  });

  app.get('/:index/_settings', async (c) => {
    checkParams(c, ROUTE_PARAMS.getSettings);
    const out: Record<string, unknown> = {};
    for (const name of await resolveIndices(c.req.param('index'), view)) out[name] = { settings: settingsBody((await view.get(name)).metadata) };
    return sendJson(c, 200, out);
  });

  app.put('/:index/_settings', async (c) => {
    checkParams(c, ROUTE_PARAMS.putSettings);
    const change = parseSettingsUpdate(await readJsonBody(c, maxBodyBytes));
    const names = await resolveIndices(c.req.param('index'), view);
    if (change.numberOfReplicas !== undefined) {
      // ES ShardLimitValidator.validateShardLimitOnReplicaUpdate: the copies added across the targets.
      const targets = await Promise.all(names.map(async (n) => (await view.get(n)).metadata));
      checkShardLimit({
        newShards: replicaIncrease(targets, change.numberOfReplicas),
        currentShards: totalShards(view.names().flatMap((n) => view.peek(n)?.metadata ?? [])),
        maxShardsPerNode: deps.maxShardsPerNode?.() ?? DEFAULT_MAX_SHARDS_PER_NODE,
        dataNodes: deps.client.nodes.length,
      });
    }
    for (const name of names) await view.putMetadata(name, change);
    return sendJson(c, 200, { acknowledged: true });
  });

  app.get('/:index/_mapping', async (c) => {
    checkParams(c, ROUTE_PARAMS.getMapping);
    const out: Record<string, unknown> = {};
    for (const name of await resolveIndices(c.req.param('index'), view)) out[name] = { mappings: (await view.get(name)).metadata.mappings };
    return sendJson(c, 200, out);
  });

  app.put('/:index/_mapping', async (c) => {
    checkParams(c, ROUTE_PARAMS.putMapping);
    const body = ((await readJsonBody(c, maxBodyBytes)) ?? {}) as Mapping;
    for (const name of await resolveIndices(c.req.param('index'), view)) await view.putMapping(name, { properties: body.properties ?? {} });
    return sendJson(c, 200, { acknowledged: true });
  });

  const refresh = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.refresh);
    const names = await resolveIndices(c.req.param('index'), view);
    let total = 0;
    let addressed = 0;
    let failed = 0;
    await Promise.all(
      names.map(async (name) => {
        const v = await view.get(name);
        // ES counts every configured copy in `total`; unassigned or out-of-sync ones are not refreshed (nor failed).
        total += v.metadata.numberOfShards * (1 + v.metadata.numberOfReplicas);
        const byNode = inSyncCopiesByNode(v);
        for (const shards of byNode.values()) addressed += shards.length;
        await Promise.all(
          [...byNode].map(([node, shards]) =>
            deps.client
              .call(node, `${INTERNAL_PREFIX}/refresh`, { index: name, shards }, { timeoutMs: deps.timeoutMs })
              .catch(() => (failed += shards.length)),
          ),
        );
      }),
    );
    return sendJson(c, 200, { _shards: { total, successful: addressed - failed, failed } });
  };
  app.on(['POST', 'GET'], '/_refresh', refresh);
  app.on(['POST', 'GET'], '/:index/_refresh', refresh);
}
