/**
 * Routes of the alias APIs: `POST /_aliases` (add, remove, remove_index, all applied in one
 * compare-and-swap of the cluster state), `PUT|POST|DELETE /{index}/_alias/{name}` (and
 * `_aliases`), and `GET|HEAD /_alias[/{name}]`, `/{index}/_alias[/{name}]`, `GET /_aliases`.
 * (`_cat/aliases`: cat-routes.ts; `aliases` of `PUT /{index}` and `GET /{index}`: index-routes.ts.)
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-aliases.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-add-alias.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-get-alias.html
 */
import type { Context, Hono } from 'hono';
import type { IndexMetadata } from '../../../protocol/metadata.ts';
import { aliasesNotFound, applyAliasActions, matchAliases, type AliasActionResult, type ResolvedAliasAction } from '../../cluster/aliases/alias-actions.ts';
import { deleteAliasAction, parseAliasesBody, parsePutAliasBody, type AliasActionSpec } from '../../cluster/aliases/alias-requests.ts';
import { getAliasesAnswer } from '../../cluster/aliases/alias-responses.ts';
import type { ClusterView } from '../../cluster/cluster-view.ts';
import { checkParams, queryParams, readJsonBody, sendJson } from '../http.ts';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';

/** Services the alias routes use. */
export interface AliasRouteDeps {
  view: ClusterView;
}

/** ES's answer to an alias change (`IndicesAliasesResponse`, 8.14+): `errors`, and each action's result when one failed. */
export interface AliasesChangeResponse {
  acknowledged: true;
  errors: boolean;
  action_results?: AliasActionResult[];
}

/**
 * Applies alias actions as one cluster state change: each action's index expressions resolved
 * (indices only, every one must exist), then {@link applyAliasActions} on the stored metadata of
 * those indices and of every index the aliases involved name, stored in one compare-and-swap.
 * @throws EsError 404 `aliases_not_found_exception` when every action is a `remove` that found
 *   nothing (ES: no alias action left); the errors of {@link applyAliasActions} and of the resolution
 */
export async function changeAliases(view: ClusterView, specs: readonly AliasActionSpec[]): Promise<AliasesChangeResponse> {
  const actions: ResolvedAliasAction[] = [];
  for (const spec of specs) actions.push({ ...spec, concrete: await resolveIndices(spec.indices.join(','), view, INDICES_OPTIONS.aliasActions) });
  // Every index an alias involved names now: the checks after the change (one write index, one is_hidden) need them all.
  const lookup = view.aliasLookup();
  const names = new Set<string>();
  for (const a of actions) {
    for (const i of a.concrete) {
      names.add(i);
      const m = view.peek(i)?.metadata;
      const involved = a.type === 'add' ? a.aliases : matchAliases(a.aliases, Object.keys(m?.aliases ?? {}));
      for (const alias of involved) for (const t of lookup.targets(alias) ?? []) names.add(t.index.name);
    }
  }
  let results: AliasActionResult[] = [];
  await view.changeIndices([...names].sort(), (current) => {
    const outcome = applyAliasActions(actions, current, (n) => view.peek(n) !== undefined);
    results = outcome.results;
    return { put: outcome.put, delete: outcome.delete };
  });
  if (actions.every((a) => a.type === 'remove') && results.every((r) => r.status !== 200)) {
    throw aliasesNotFound([...new Set(actions.flatMap((a) => a.aliases))]);
  }
  const errors = results.some((r) => r.status !== 200);
  return { acknowledged: true, errors, ...(errors ? { action_results: results } : {}) };
}

/** Registers the alias routes on `app` (before the index routes, whose `/:index` would match `/_alias`). */
export function registerAliasRoutes(app: Hono, deps: AliasRouteDeps, maxBodyBytes: number): void {
  const { view } = deps;

  app.post('/_aliases', async (c) => {
    checkParams(c, ROUTE_PARAMS.changeAliases);
    const specs = parseAliasesBody(await readJsonBody(c, maxBodyBytes));
    return sendJson(c, 200, await changeAliases(view, specs));
  });

  const putAlias = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.changeAliases);
    const spec = parsePutAliasBody(c.req.param('index')!, c.req.param('name')!, await readJsonBody(c, maxBodyBytes));
    return sendJson(c, 200, await changeAliases(view, [spec]));
  };
  app.on(['PUT', 'POST'], '/:index/_alias/:name', putAlias);
  app.on(['PUT', 'POST'], '/:index/_aliases/:name', putAlias);

  const deleteAlias = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.changeAliases);
    return sendJson(c, 200, await changeAliases(view, [deleteAliasAction(c.req.param('index')!, c.req.param('name')!)]));
  };
  app.delete('/:index/_alias/:name', deleteAlias);
  app.delete('/:index/_aliases/:name', deleteAlias);

  /** `GET|HEAD` of the alias forms: the indices under `GetAliasesRequest`'s options, the names as a comma list. */
  const getAliases = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.getAliases);
    const options = indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.getAliases);
    const name = c.req.param('name');
    const names = name === undefined ? null : name.split(',').filter((s) => s !== '');
    const indices: IndexMetadata[] = [];
    for (const i of await resolveIndices(c.req.param('index'), view, options)) indices.push((await view.get(i)).metadata);
    const { status, body } = getAliasesAnswer(indices, names);
    if (c.req.method === 'HEAD') return c.body(null, status as 200);
    return sendJson(c, status, body);
  };
  for (const path of ['/_alias', '/_aliases', '/_alias/:name', '/:index/_alias', '/:index/_alias/:name']) app.on(['GET', 'HEAD'], path, getAliases);
}
