/**
 * The index settings APIs: `GET /_settings`, `/{index}/_settings`, `/{index}/_settings/{name}`,
 * `/_settings/{name}` and `PUT /_settings`, `/{index}/_settings`, with ES's parameters
 * (`flat_settings`, `include_defaults`, `preserve_existing`, `reopen`, and the indices options
 * `ignore_unavailable`, `allow_no_indices`, `expand_wildcards`) and errors. An update is checked
 * on every target before any is stored, as ES applies it in one cluster state update.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-get-settings.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-update-settings.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/MetadataUpdateSettingsService.java
 */
import type { Context, Hono } from 'hono';
import { parseBooleanParam } from '../../rest/params.ts';
import type { ClusterView } from '../../cluster/cluster-view.ts';
import { checkParams, queryParams, readJsonBody, sendJson } from '../http.ts';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { isClosed } from '../../cluster/index-state.ts';
import { getSettingsEntry, settingNames } from '../../cluster/index-settings-response.ts';
import { applySettingsChanges, checkStaticOnOpen, parseSettingsUpdate, replicasChange } from '../../cluster/index-settings.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import type { ShardClient } from '../../transport/shard-client.ts';
import { checkShardLimit, DEFAULT_MAX_SHARDS_PER_NODE, replicaIncrease, totalShards } from '../../cluster/shard-limit.ts';

/** Services the settings routes use. */
export interface SettingsRouteDeps {
  view: ClusterView;
  client: ShardClient;
  /** The cluster's `cluster.max_shards_per_node` (absent: ES's default, 1000). */
  maxShardsPerNode?: () => number;
}

/** A boolean URL flag (`?flat_settings`, `?flat_settings=true`), false when absent. */
function flag(c: Context, name: string): boolean {
  const v = queryParams(c).get(name);
  return v !== null && parseBooleanParam(v);
}

/** Registers the settings routes (before the index routes, whose `/:index` would match `/_settings`). */
export function registerSettingsRoutes(app: Hono, deps: SettingsRouteDeps, maxBodyBytes: number): void {
  const { view } = deps;

  const getSettings = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.getSettings);
    const options = indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.openClosed);
    const o = { names: settingNames(c.req.param('name')), flat: flag(c, 'flat_settings'), includeDefaults: flag(c, 'include_defaults') };
    const out: Record<string, unknown> = {};
    for (const name of await resolveIndices(c.req.param('index'), view, options)) {
      const entry = getSettingsEntry((await view.get(name)).metadata, o);
      if (entry) out[name] = entry;
    }
    return sendJson(c, 200, out);
  };
  app.get('/_settings', getSettings);
  app.get('/_settings/:name', getSettings);
  app.get('/:index/_settings', getSettings);
  app.get('/:index/_settings/:name', getSettings);

  const putSettings = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.putSettings);
    const params = queryParams(c);
    const options = indicesOptionsFrom(params, INDICES_OPTIONS.strictOpenClosed);
    const preserveExisting = flag(c, 'preserve_existing');
    const reopen = flag(c, 'reopen');
    const changes = parseSettingsUpdate(await readJsonBody(c, maxBodyBytes));
    const names = await resolveIndices(c.req.param('index'), view, options);
    const targets = await Promise.all(names.map(async (n) => (await view.get(n)).metadata));
    checkStaticOnOpen(changes, reopen ? [] : targets.filter((m) => !isClosed(m)));
    const replicas = replicasChange(changes);
    if (replicas !== undefined && !preserveExisting) {
      // ES ShardLimitValidator.validateShardLimitOnReplicaUpdate: the copies added across the targets.
      checkShardLimit({
        newShards: replicaIncrease(targets, replicas),
        currentShards: totalShards(view.names().flatMap((n) => view.peek(n)?.metadata ?? [])),
        maxShardsPerNode: deps.maxShardsPerNode?.() ?? DEFAULT_MAX_SHARDS_PER_NODE,
        dataNodes: deps.client.nodes.length,
      });
    }
    const applyTo = (m: Parameters<typeof applySettingsChanges>[0]) =>
      applySettingsChanges(m, changes, { preserveExisting, onlyDynamic: !reopen && !isClosed(m) });
    for (const m of targets) applyTo(m); // every target checked before any is stored
    for (const name of names) await view.updateMetadata(name, applyTo);
    return sendJson(c, 200, { acknowledged: true });
  };
  app.put('/_settings', putSettings);
  app.put('/:index/_settings', putSettings);
}
