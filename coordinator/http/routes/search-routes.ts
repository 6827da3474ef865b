/**
 * Routes of the search API: `GET|POST /_search`, `/{index}/_search`, and `_count` (a search that
 * only counts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-count.html
 */
import type { Context, Hono } from 'hono';
import { parsingException } from '../../../protocol/errors.ts';
import { checkParams, queryParams, readJsonBody, sendJson } from '../http.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import { search, searchWithSnapshot, type SearchDeps } from '../../search/search.ts';
import { registerCursorRoutes, SNAPSHOT_HEADER } from './cursor-routes.ts';

/** `_count` parameters Folio accepts but does not pass on to the search (no effect on a count). */
const COUNT_IGNORED_PARAMS = new Set(['analyzer', 'analyze_wildcard', 'lenient', 'min_score', 'terminate_after']);

/**
 * Registers the search routes on `app` (and the cursor routes: PIT, scroll). Every `_search` reply
 * carries the `Folio-Snapshot` header; a request sending it back reads the same generations.
 */
export function registerSearchRoutes(app: Hono, deps: SearchDeps, maxBodyBytes: number): void {
  registerCursorRoutes(app, deps, maxBodyBytes);
  const handler = (withIndex: boolean) => async (c: Context) => {
    const body = await readJsonBody(c, maxBodyBytes);
    const { body: res, snapshot } = await searchWithSnapshot(
      {
        indexExpression: withIndex ? c.req.param('index') : undefined,
        params: queryParams(c),
        body,
        path: c.req.path,
        signal: c.req.raw.signal,
        snapshot: c.req.header(SNAPSHOT_HEADER),
      },
      deps,
    );
    const out = sendJson(c, 200, res);
    out.headers.set(SNAPSHOT_HEADER, snapshot);
    return out;
  };
  app.on(['GET', 'POST'], '/_search', handler(false));
  app.on(['GET', 'POST'], '/:index/_search', handler(true));

  const count = (withIndex: boolean) => async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.count);
    const body = (await readJsonBody(c, maxBodyBytes)) as Record<string, unknown> | undefined;
    for (const key of Object.keys(body ?? {})) {
      if (key !== 'query') throw parsingException(`request does not support [${key}]`);
    }
    const params = new URLSearchParams();
    for (const [k, v] of queryParams(c)) if (!COUNT_IGNORED_PARAMS.has(k)) params.set(k, v);
    params.set('size', '0');
    params.set('track_total_hits', 'true');
    const res = await search(
      {
        indexExpression: withIndex ? c.req.param('index') : undefined,
        params,
        body: body?.query !== undefined ? { query: body.query } : undefined,
        path: c.req.path,
        signal: c.req.raw.signal,
      },
      deps,
    );
    const total = res.hits.total;
    return sendJson(c, 200, { count: typeof total === 'number' ? total : (total?.value ?? 0), _shards: res._shards });
  };
  app.on(['GET', 'POST'], '/_count', count(false));
  app.on(['GET', 'POST'], '/:index/_count', count(true));
}
