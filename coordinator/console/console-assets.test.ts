/**
 * The console's files as the coordinator serves them (in process, `app.request`): starting from
 * `GET /_console`, every stylesheet, script, module import (relative or through the import map)
 * and source map the page references is served with its media type, every served file is
 * reached that way (no stale assets), nothing references another host, the CSP admits the
 * inline import map, and ETag/HEAD/redirect behave.
 */
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { registerConsoleRoutes } from '../http/routes/console-routes.ts';
import { CONSOLE_PATH, loadConsoleAssets, VENDOR_SPECIFIERS } from './console-assets.ts';

/**
 * XML namespace names inside preact (`createElementNS`): identifiers, never fetched. They are
 * the only `http(s)://` strings allowed in served HTML, JS and CSS.
 */
const NAMESPACE_URIS = ['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xhtml', 'http://www.w3.org/1998/Math/MathML', 'http://www.w3.org/1999/xlink'];

const ORIGIN = 'http://folio.test';

function consoleApp(): Hono {
  const app = new Hono();
  registerConsoleRoutes(app);
  return app;
}

/** `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")` specifiers of a module. */
function importSpecifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/\b(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)/g))
    out.push(m[1] ?? m[2]);
  return out;
}

/** Every URL path the page references, followed transitively, with each one's media type. */
async function crawl(app: Hono): Promise<Map<string, string>> {
  const page = await app.request(CONSOLE_PATH);
  expect(page.status).toBe(200);
  const html = await page.text();
  const importMap = JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(html)?.[1] ?? 'null') as { imports: Record<string, string> };
  expect(Object.keys(importMap.imports).sort()).toEqual([...VENDOR_SPECIFIERS].sort());

  const seen = new Map<string, string>([[CONSOLE_PATH, page.headers.get('content-type') ?? '']]);
  const queue: { path: string; kind: 'css' | 'module' | 'map' }[] = [];
  for (const m of html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)) queue.push({ path: m[1], kind: 'css' });
  for (const m of html.matchAll(/<script type="module" src="([^"]+)"/g)) queue.push({ path: m[1], kind: 'module' });
  expect(queue.length).toBeGreaterThanOrEqual(2);
  while (queue.length > 0) {
    const { path, kind } = queue.shift()!;
    if (seen.has(path)) continue;
    const res = await app.request(path);
    expect(res.status, path).toBe(200);
    const type = res.headers.get('content-type') ?? '';
    seen.set(path, type);
    const expected = { css: 'text/css; charset=utf-8', module: 'text/javascript; charset=utf-8', map: 'application/json; charset=utf-8' }[kind];
    expect(type, path).toBe(expected);
    if (kind !== 'module') continue;
    const source = await res.text();
    for (const spec of importSpecifiers(source)) {
      const target = spec.startsWith('.') || spec.startsWith('/') ? new URL(spec, ORIGIN + path).pathname : importMap.imports[spec];
      expect(target, `${path} imports [${spec}], which the import map does not name`).toBeDefined();
      queue.push({ path: target, kind: 'module' });
    }
    const map = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(source)?.[1];
    if (map !== undefined) queue.push({ path: new URL(map, ORIGIN + path).pathname, kind: 'map' });
  }
  return seen;
}

describe('console assets', () => {
  it('serves every asset the page references, with its media type, and nothing unreferenced', async () => {
    const app = consoleApp();
    const reached = await crawl(app);
    const served = [CONSOLE_PATH, ...loadConsoleAssets().files.map((f) => f.path)].sort();
    expect([...reached.keys()].sort()).toEqual(served);
    expect(reached.get(CONSOLE_PATH)).toBe('text/html; charset=utf-8');
    // The page, its own modules and every vendor module are there.
    for (const path of [
      '/_console/main.js',
      '/_console/app.js',
      '/_console/console.css',
      '/_console/vendor/preact/preact.mjs',
      '/_console/vendor/preact/hooks/hooks.mjs',
      '/_console/vendor/htm/htm.mjs',
    ]) {
      expect(reached.has(path), path).toBe(true);
    }
  });

  it('references nothing off-host: no http(s) URL in served HTML, JS or CSS but XML namespace names', async () => {
    const app = consoleApp();
    const { page, files } = loadConsoleAssets();
    for (const asset of [page, ...files.filter((f) => !f.path.endsWith('.map'))]) {
      const text = await (await app.request(asset.path)).text();
      const urls = [...text.matchAll(/https?:\/\/[^\s"'`)<>]*/g)].map((m) => m[0]);
      expect(
        urls.filter((u) => !NAMESPACE_URIS.includes(u)),
        asset.path,
      ).toEqual([]);
      expect(text, asset.path).not.toMatch(/(src|href)\s*=\s*["']?\/\//); // protocol-relative
    }
  });

  it('answers the page with a CSP that admits exactly its inline import map, and nosniff', async () => {
    const res = await consoleApp().request(CONSOLE_PATH);
    const csp = res.headers.get('content-security-policy') ?? '';
    const inline = /<script type="importmap">(.*?)<\/script>/s.exec(await res.text())?.[1] ?? '';
    const hash = createHash('sha256').update(inline).digest('base64');
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('revalidates with ETag (304), answers HEAD without a body, and redirects /_console/', async () => {
    const app = consoleApp();
    const first = await app.request('/_console/app.js');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await app.request('/_console/app.js', { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const changed = await app.request('/_console/app.js', { headers: { 'If-None-Match': '"other"' } });
    expect(changed.status).toBe(200);

    const head = await app.request(CONSOLE_PATH, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await head.text()).toBe('');

    const slash = await app.request('/_console/');
    expect(slash.status).toBe(301);
    expect(slash.headers.get('location')).toBe(CONSOLE_PATH);
  });
});
