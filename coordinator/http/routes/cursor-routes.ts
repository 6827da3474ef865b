/**
 * Routes of the cursor APIs: point in time (`POST /{index}/_pit`, `DELETE /_pit`), scroll
 * (`GET|POST /_search/scroll[/{scroll_id}]`, `DELETE /_search/scroll[/{scroll_id}|/_all]`) and the
 * cluster settings that bound them (`PUT|GET /_cluster/settings`: `search.max_open_scroll_context`,
 * `search.max_open_pit_context`, broadcast to every shard node, not persisted).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/point-in-time-api.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/scroll-api.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/clear-scroll-api.html
 */
import type { Context, Hono } from 'hono';
import { EsError, illegalArgument, parsingException, validationFailed } from '../../../protocol/errors.ts';
import { isObject, parseTimeValue, tokenName } from '../../rest/params.ts';
import { checkParams, queryParams, readJsonBody, sendJson } from '../http.ts';
import { resolveSearchScope } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS as RESOLVE_DEFAULTS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { closeAllPits, closeAllScrolls, closeContexts, labelPitContexts, listPits, openContexts } from '../../search/contexts.ts';
import { checkKeepAlive, DEFAULT_MAX_KEEP_ALIVE_MS } from '../../search/keep-alive.ts';
import { decodePitId, decodeScrollId, encodePitId, type CursorShard } from '../../search/cursor-ids.ts';
import { routedShards } from '../../search/plan.ts';
import { searchPreference, withoutUnavailable } from '../../search/preference-plan.ts';
import { allFailedError } from '../../search/shard-failures.ts';
import { phaseContext } from '../../search/phase-context.ts';
import { searchWithSnapshot, type SearchDeps } from '../../search/search.ts';

/** Header naming the snapshot a search read; sent back, it pins the next search to it. */
export const SNAPSHOT_HEADER = 'Folio-Snapshot';

const INDICES_OPTIONS = ['expand_wildcards', 'ignore_unavailable', 'allow_no_indices', 'ignore_throttled'];

/** Reads `key` of a cursor body: a string, or (when `many`) a list of strings. */
function bodyIds(body: unknown, key: string, many: boolean): string[] {
  if (body === undefined) return [];
  if (!isObject(body)) throw parsingException(`Expected [START_OBJECT] but found [${tokenName(body)}]`);
  const out: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    if (k !== key) {
      if (k === 'scroll' && key === 'scroll_id') continue;
      throw illegalArgument(`Unknown parameter [${k}] in request body or parameter is of the wrong type[${tokenName(v)}] `);
    }
    const list = Array.isArray(v) && many ? v : [v];
    for (const x of list) {
      if (typeof x !== 'string') throw illegalArgument(`Unknown parameter [${k}] in request body or parameter is of the wrong type[${tokenName(x)}] `);
      out.push(x);
    }
  }
  return out;
}

/** How long closing or labelling contexts on the shard nodes may take, in ms. */
const CLOSE_TIMEOUT_MS = 10_000;

/** Registers the PIT and scroll routes (before the index routes, whose `/:index` would match). */
export function registerCursorRoutes(app: Hono, deps: SearchDeps, maxBodyBytes: number): void {
  registerPitRoutes(app, deps, maxBodyBytes);
  registerOpenSearchPitRoutes(app, deps, maxBodyBytes);
  registerScrollRoutes(app, deps, maxBodyBytes);
}

/** Opens a PIT context on every shard of the path's indices. @throws EsError 429 over the limit (OpenSearch's error) */
async function openPit(c: Context, keepAliveMs: number, deps: SearchDeps): Promise<{ id: string; total: number; creationTime: number }> {
  const creationTime = Date.now();
  checkKeepAlive(keepAliveMs, deps.maxKeepAliveMs?.() ?? DEFAULT_MAX_KEEP_ALIVE_MS);
  const scope = await resolveSearchScope(
    c.req.param('index'),
    deps.view,
    indicesOptionsFrom(queryParams(c), RESOLVE_DEFAULTS.search),
    c.req.query('routing') ?? null,
  );
  const { indices } = scope;
  const preference = searchPreference(c.req.query('preference') ?? null, indices, deps.view);
  const targets = (
    await Promise.all(
      indices.map(async (i) => {
        const v = await deps.view.get(i);
        return routedShards(deps.view.targets(v, undefined, preference), v.metadata, scope.routing?.get(i));
      }),
    )
  ).flat();
  // ES opens a PIT without partial results by default: a shard `_only_local` leaves without a copy refuses it.
  if (preference) withoutUnavailable(targets, [], false, 'open_pit');
  const ctx = phaseContext(deps.client, { timeoutMs: deps.defaultTimeoutMs, signal: c.req.raw.signal });
  const opened = await openContexts(targets, 'pit', keepAliveMs, ctx);
  if (opened.failures.length > 0) {
    const limit = opened.failures.find((f) => f.status === 429);
    if (limit) throw new EsError(429, limit.reason.type, String(limit.reason.reason));
    throw allFailedError('open_pit', opened.failures);
  }
  const id = encodePitId({ indices, shards: opened.shards, filters: Object.fromEntries(scope.filters) });
  await labelPitContexts(opened.shards, { pitId: id, creationTime, keepAliveMs }, deps.client, CLOSE_TIMEOUT_MS);
  return { id, total: targets.length, creationTime };
}

/** ES's point in time API: `POST /{index}/_pit`, `DELETE /_pit`. */
function registerPitRoutes(app: Hono, deps: SearchDeps, maxBodyBytes: number): void {
  // POST /{index}/_pit?keep_alive=1m → {id, _shards}
  app.post('/:index/_pit', async (c) => {
    checkParams(c, ['keep_alive', 'routing', 'preference', 'allow_partial_search_results', 'max_concurrent_shard_requests', ...INDICES_OPTIONS]);
    const raw = c.req.query('keep_alive');
    if (raw === undefined) throw validationFailed(['[keep_alive] is not specified']);
    const keepAliveMs = parseTimeValue(raw, 'keep_alive');
    const { id, total } = await openPit(c, keepAliveMs, deps);
    return sendJson(c, 200, { id, _shards: { total, successful: total, skipped: 0, failed: 0 } });
  });

  // DELETE /_pit {"id": "…"} → {succeeded, num_freed}
  app.delete('/_pit', async (c) => {
    checkParams(c, []);
    const ids = bodyIds(await readJsonBody(c, maxBodyBytes), 'id', false);
    if (ids.length === 0) throw validationFailed(['point in time id is not specified']);
    const shards: CursorShard[] = ids.flatMap((id) => decodePitId(id).shards);
    const freed = await closeContexts(shards, deps.client, CLOSE_TIMEOUT_MS);
    return sendJson(c, 200, { succeeded: true, num_freed: freed });
  });
}

/** OpenSearch's PIT API (its client calls these): `POST /{index}/_search/point_in_time`, `GET|DELETE /_search/point_in_time/_all`, `DELETE /_search/point_in_time`. */
function registerOpenSearchPitRoutes(app: Hono, deps: SearchDeps, maxBodyBytes: number): void {
  app.post('/:index/_search/point_in_time', async (c) => {
    checkParams(c, ['keep_alive', 'routing', 'preference', 'allow_partial_pit_creation', 'expand_wildcards']);
    const keepAliveMs = parseTimeValue(c.req.query('keep_alive') ?? '', 'keep_alive');
    const { id, total, creationTime } = await openPit(c, keepAliveMs, deps);
    return sendJson(c, 200, { pit_id: id, _shards: { total, successful: total, skipped: 0, failed: 0 }, creation_time: creationTime });
  });
  // GET /_search/point_in_time/_all → {pits: [{pit_id, creation_time, keep_alive}]}: every open PIT (also ES-opened ones), oldest first.
  app.get('/_search/point_in_time/_all', async (c) => {
    checkParams(c, []);
    const pits = await listPits(deps.client, CLOSE_TIMEOUT_MS);
    return sendJson(c, 200, { pits: pits.map((p) => ({ pit_id: p.pitId, creation_time: p.creationTime, keep_alive: p.keepAliveMs })) });
  });
  // DELETE /_search/point_in_time/_all → {pits: [{successful, pit_id}]}: closes every PIT context.
  app.delete('/_search/point_in_time/_all', async (c) => {
    checkParams(c, []);
    const pits = await listPits(deps.client, CLOSE_TIMEOUT_MS);
    await closeAllPits(deps.client, CLOSE_TIMEOUT_MS);
    return sendJson(c, 200, { pits: pits.map((p) => ({ successful: true, pit_id: p.pitId })) });
  });
  app.delete('/_search/point_in_time', async (c) => {
    checkParams(c, []);
    const ids = bodyIds(await readJsonBody(c, maxBodyBytes), 'pit_id', true);
    const pits = await Promise.all(
      ids.map(async (id) => ({ successful: (await closeContexts(decodePitId(id).shards, deps.client, CLOSE_TIMEOUT_MS)) > 0, pit_id: id })),
    );
    return sendJson(c, 200, { pits });
  });
}

/** ES's scroll API: `GET|POST /_search/scroll[/{scroll_id}]` and `DELETE /_search/scroll[/{scroll_id}|/_all]`. */
function registerScrollRoutes(app: Hono, deps: SearchDeps, maxBodyBytes: number): void {
  // GET|POST /_search/scroll[/{scroll_id}] {"scroll": "1m", "scroll_id": "…"}
  const scroll = async (c: Context) => {
    checkParams(c, ['scroll', 'scroll_id', 'rest_total_hits_as_int']);
    const body = await readJsonBody(c, maxBodyBytes);
    const params = queryParams(c);
    let scrollId = c.req.param('scroll_id') ?? params.get('scroll_id') ?? undefined;
    let keep = params.get('scroll') ?? undefined;
    if (body !== undefined) {
      const fromBody = bodyIds(body, 'scroll_id', false);
      if (fromBody.length > 0) scrollId = fromBody[0];
      const k = (body as Record<string, unknown>).scroll;
      if (k !== undefined) keep = typeof k === 'string' || typeof k === 'number' ? String(k) : keep;
    }
    if (scrollId === undefined || scrollId === '') throw validationFailed(['scroll id is missing']);
    const keepAliveMs = keep !== undefined ? parseTimeValue(keep, 'scroll') : undefined;
    const state = decodeScrollId(scrollId);
    const searchParams = new URLSearchParams(state.params);
    const asInt = params.get('rest_total_hits_as_int');
    if (asInt !== null) searchParams.set('rest_total_hits_as_int', asInt);
    const { body: res, snapshot } = await searchWithSnapshot(
      {
        indexExpression: undefined,
        params: searchParams,
        body: state.body,
        path: state.path,
        signal: c.req.raw.signal,
        scroll: { id: scrollId, state, keepAliveMs },
      },
      deps,
    );
    const out = sendJson(c, 200, res);
    out.headers.set(SNAPSHOT_HEADER, snapshot);
    return out;
  };
  app.on(['GET', 'POST'], '/_search/scroll', scroll);
  app.on(['GET', 'POST'], '/_search/scroll/:scroll_id', scroll);

  // DELETE /_search/scroll[/{ids}|/_all] → {succeeded, num_freed}; 404 when nothing was freed (ES).
  const clear = async (c: Context) => {
    checkParams(c, []);
    const pathIds = c.req.param('scroll_id');
    const ids = pathIds !== undefined ? pathIds.split(',').filter((s) => s !== '') : bodyIds(await readJsonBody(c, maxBodyBytes), 'scroll_id', true);
    if (ids.length === 0) throw validationFailed(['no scroll ids specified']);
    const freed = ids.includes('_all')
      ? await closeAllScrolls(deps.client, CLOSE_TIMEOUT_MS)
      : await closeContexts(
          ids.flatMap((id) => decodeScrollId(id).shards),
          deps.client,
          CLOSE_TIMEOUT_MS,
        );
    return sendJson(c, freed > 0 ? 200 : 404, { succeeded: true, num_freed: freed });
  };
  app.delete('/_search/scroll', clear);
  app.delete('/_search/scroll/:scroll_id', clear);
}
