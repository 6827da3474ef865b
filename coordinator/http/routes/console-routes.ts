/**
 * `GET /_console`: the search console, a small page that searches this coordinator's own API (the
 * role Kibana's Discover plays for Elasticsearch, at the scale of Meilisearch's mini dashboard),
 * and `GET /_console/…`: its modules, stylesheet and vendor modules. Every response carries a
 * strong ETag and `Cache-Control: no-cache` (revalidate, then 304); HEAD is answered by hono from
 * the GET route. Register before the index routes, whose `/:index` would match `/_console`.
 * @see https://www.elastic.co/guide/en/kibana/8.15/discover.html
 */
import type { Context, Hono } from 'hono';
import { CONSOLE_PATH, loadConsoleAssets, type ConsoleAsset, type ConsoleAssets } from '../../console/console-assets.ts';

/**
 * Registers the page, a redirect from `/_console/` to it, and one GET route per asset.
 * `assets` defaults to the files read once per process.
 * @example registerConsoleRoutes(app) // in createCoordinatorApp, before registerIndexRoutes
 */
export function registerConsoleRoutes(app: Hono, assets: ConsoleAssets = loadConsoleAssets()): void {
  app.get(CONSOLE_PATH, (c) => serveAsset(c, assets.page, { 'Content-Security-Policy': assets.contentSecurityPolicy }));
  app.get(`${CONSOLE_PATH}/`, (c) => c.redirect(CONSOLE_PATH, 301));
  for (const file of assets.files) app.get(file.path, (c) => serveAsset(c, file));
}

/** 304 when `If-None-Match` names the asset's ETag, else the bytes with their media type. */
function serveAsset(c: Context, asset: ConsoleAsset, extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    ETag: asset.etag,
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    ...extraHeaders,
  };
  const ifNoneMatch = c.req.header('if-none-match');
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((t) => t.trim() === asset.etag)) return c.body(null, 304, headers);
  return c.body(asset.body, 200, { ...headers, 'Content-Type': asset.contentType });
}
