/**
 * Routes of the index APIs: create, get, exists, delete, `_mapping`, `_refresh` (`_settings`:
 * settings-routes.ts; `_close`, `_open`: index-state-routes.ts), each resolving its `{index}`
 * under ES's default indices options for that API and the request's own.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices.html
 */
import { broadcastToCopies } from '../../cluster/shard-broadcast.ts';
import type { Context, Hono } from 'hono';
import { rpc } from '../../../protocol/rpc.ts';
import { parseBooleanParam } from '../../rest/params.ts';
import type { Mapping } from '../../../protocol/mapping.ts';
import { checkFieldAliases } from '../../rest/field-alias-check.ts';
import { parseMapping } from '../../rest/mapping-parse.ts';
import { fieldMappings, mappingResponse } from '../../rest/mapping-response.ts';
import { checkMappingUpdate } from '../../rest/mapping-update-check.ts';
import { mergeMappings } from '../../../shared/dynamic-mapping.ts';
import { wildcardMatch } from '../../../shared/wildcard.ts';
import { illegalArgument } from '../../../protocol/errors.ts';
import type { ClusterView } from '../../cluster/cluster-view.ts';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { parseCreateIndexBody, validateIndexName } from '../../cluster/index-settings.ts';
import { getSettingsEntry } from '../../cluster/index-settings-response.ts';
import { checkParams, queryParams, readJsonBody, sendJson } from '../http.ts';
import { failDestructive, mayBeDestructive } from '../../cluster/destructive-operations.ts';
import { createIndex } from '../../write/documents.ts';
import { checkNewIndexAliases } from '../../cluster/aliases/alias-actions.ts';
import { parseCreateIndexAliases } from '../../cluster/aliases/alias-requests.ts';
import { aliasesOf } from '../../cluster/aliases/alias-responses.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import type { ShardClient } from '../../transport/shard-client.ts';

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

/**
 * A mapping as `GET /{index}/_mapping` prints it (coordinator/rest/mapping-parse.ts `mappingResponse`): an
 * index without any mapping prints `{}`, as ES does for an index created without mappings;
 * properties sorted by name, objects with properties without `"type": "object"`.
 */
export function mappingsBody(mappings: Mapping): Record<string, unknown> {
  return mappingResponse(mappings);
}

/** A boolean URL flag (`?flat_settings`), false when absent. */
function parseFlag(c: Context, name: string): boolean {
  const v = queryParams(c).get(name);
  return v !== null && parseBooleanParam(v);
}

/** Registers the index routes on `app`: the mapping APIs and `_refresh` first (`/:index` would match their index-less paths), then the index's own. */
export function registerIndexRoutes(app: Hono, deps: IndexDeps, maxBodyBytes: number): void {
  registerMappingRoutes(app, deps, maxBodyBytes);
  registerRefreshRoutes(app, deps);
  registerIndexLifecycleRoutes(app, deps, maxBodyBytes);
}

/** `GET /[{index}/]_mapping`, `GET /[{index}/]_mapping/field/{fields}` and `PUT|POST /{index}/_mapping`. */
function registerMappingRoutes(app: Hono, deps: IndexDeps, maxBodyBytes: number): void {
  const { view } = deps;

  const getMapping = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.getMapping);
    const out: Record<string, unknown> = {};
    const options = indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.strictOpen);
    for (const name of await resolveIndices(c.req.param('index'), view, options))
      out[name] = { mappings: mappingsBody((await view.get(name)).metadata.mappings) };
    return sendJson(c, 200, out);
  };
  app.get('/_mapping', getMapping); // before `/:index`, which would match it
  app.get('/:index/_mapping', getMapping);

  const getFieldMapping = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.getFieldMapping);
    const patterns = c.req.param('fields')!.split(',');
    const out: Record<string, unknown> = {};
    const options = indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.strictOpen);
    for (const name of await resolveIndices(c.req.param('index'), view, options)) {
      out[name] = { mappings: fieldMappings((await view.get(name)).metadata.mappings, patterns, wildcardMatch) };
    }
    return sendJson(c, 200, out);
  };
  app.get('/_mapping/field/:fields', getFieldMapping);
  app.get('/:index/_mapping/field/:fields', getFieldMapping);

  app.on(['PUT', 'POST'], '/:index/_mapping', async (c) => {
    checkParams(c, ROUTE_PARAMS.putMapping);
    const body = await readJsonBody(c, maxBodyBytes);
    if (body !== null && typeof body === 'object' && Object.keys(body).length === 1 && Object.hasOwn(body, '_doc')) {
      throw illegalArgument('Types cannot be provided in put mapping requests'); // RestPutMappingAction
    }
    const update = parseMapping(body);
    const options = indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.strictOpenClosed);
    for (const name of await resolveIndices(c.req.param('index'), view, options)) {
      const current = (await view.get(name)).metadata.mappings;
      checkMappingUpdate(current, update);
      checkFieldAliases(mergeMappings(current, update));
      await view.putMapping(name, update);
    }
    return sendJson(c, 200, { acknowledged: true });
  });
}

/** `POST|GET /[{index}/]_refresh`: every in-sync copy of the indices' shards, one call per node. */
function registerRefreshRoutes(app: Hono, deps: IndexDeps): void {
  const { view } = deps;

  const refresh = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.refresh);
    const names = await resolveIndices(c.req.param('index'), view, indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.search));
    const send = (node: number, index: string, shards: number[]) => deps.client.rpc(node, rpc.refresh, { index, shards }, { timeoutMs: deps.timeoutMs });
    return sendJson(c, 200, { _shards: await broadcastToCopies(view, names, send) });
  };
  app.on(['POST', 'GET'], '/_refresh', refresh); // before `/:index`, which would match `GET /_refresh`
  app.on(['POST', 'GET'], '/:index/_refresh', refresh);
}

/** An index's own routes: create (`PUT /{index}`), exists (`HEAD`), get (`GET`) and delete (`DELETE`). */
function registerIndexLifecycleRoutes(app: Hono, deps: IndexDeps, maxBodyBytes: number): void {
  const { view } = deps;

  app.put('/:index', async (c) => {
    checkParams(c, ROUTE_PARAMS.createIndex);
    const name = c.req.param('index');
    validateIndexName(name);
    const body = await readJsonBody(c, maxBodyBytes);
    const spec = parseCreateIndexBody(body);
    const aliases = parseCreateIndexAliases((body as Record<string, unknown> | undefined)?.aliases);
    const lookup = view.aliasLookup();
    checkNewIndexAliases(
      name,
      aliases,
      (n) => view.peek(n) !== undefined,
      (n) => lookup.targets(n) !== undefined,
      (a) => (lookup.targets(a) ?? []).map((t) => t.index),
    );
    await createIndex(deps, name, { ...spec, aliases });
    return sendJson(c, 200, { acknowledged: true, shards_acknowledged: true, index: name });
  });

  app.on('HEAD', '/:index', async (c) => {
    checkParams(c, ROUTE_PARAMS.getIndex);
    try {
      const names = await resolveIndices(c.req.param('index'), view, indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.strictOpen));
      return c.body(null, names.length > 0 ? 200 : 404);
    } catch {
      return c.body(null, 404);
    }
  });

  app.get('/:index', async (c) => {
    checkParams(c, ROUTE_PARAMS.getIndex);
    const flat = parseFlag(c, 'flat_settings');
    const includeDefaults = parseFlag(c, 'include_defaults');
    const out: Record<string, unknown> = {};
    for (const name of await resolveIndices(c.req.param('index'), view, indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.strictOpen))) {
      const m = (await view.get(name)).metadata;
      const { settings, defaults } = getSettingsEntry(m, { flat, includeDefaults })!;
      out[name] = { aliases: aliasesOf(m), mappings: mappingsBody(m.mappings), settings, ...(defaults ? { defaults } : {}) };
    }
    return sendJson(c, 200, out);
  });

  app.delete('/:index', async (c) => {
    checkParams(c, ROUTE_PARAMS.deleteIndex);
    const expression = c.req.param('index');
    if (mayBeDestructive(expression)) failDestructive(expression, (await deps.destructiveRequiresName?.()) ?? true);
    for (const name of await resolveIndices(expression, view, indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.deleteIndex))) await view.delete(name);
    return sendJson(c, 200, { acknowledged: true });
  });
}
