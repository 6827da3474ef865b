/**
 * The search console's files, read once when the coordinator starts: the page and its modules and
 * stylesheet from `coordinator/console/assets/`, and the browser builds of its runtime dependencies
 * (`preact`, `preact/hooks`, `htm`), resolved from node_modules through their package `exports` as
 * Node resolves them (so a version bump needs no path change), each with its source map.
 *
 * The page names those dependencies by their npm specifiers and an import map (inserted here)
 * points the specifiers at the served files, so no build step, bundler or CDN is involved and
 * the console works without internet access. A Content-Security-Policy allows only this origin,
 * plus the import map's hash because the map is an inline script.
 * @see https://html.spec.whatwg.org/multipage/webappapis.html#import-maps
 * @see https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Content-Security-Policy
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** URL path of the console page; its assets live below it. */
export const CONSOLE_PATH = '/_console';

/** The npm specifiers the browser code imports; each becomes one import-map entry. */
export const VENDOR_SPECIFIERS = ['preact', 'preact/hooks', 'htm'] as const;

/** One file the console serves: its URL path, bytes, media type and strong ETag (content hash). */
export interface ConsoleAsset {
  path: string;
  body: Uint8Array<ArrayBuffer>;
  contentType: string;
  etag: string;
}

/** Everything {@link loadConsoleAssets} read: the page, the files below it, the page's CSP. */
export interface ConsoleAssets {
  /** `GET /_console`: index.html with the import map filled in. */
  page: ConsoleAsset;
  /** The modules, the stylesheet, the vendor modules and their source maps. */
  files: ConsoleAsset[];
  /** The import map as the page carries it (`{ imports: { specifier: url } }`). */
  importMap: { imports: Record<string, string> };
  /** The `Content-Security-Policy` header value of the page. */
  contentSecurityPolicy: string;
}

/** Media types by file extension; a file with another extension in assets/ is an error. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Where index.html says the import map goes. */
const IMPORT_MAP_MARKER = '<!-- import map -->';

const ASSETS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'assets');

let loaded: ConsoleAssets | undefined;

/**
 * Reads and prepares every console file (once per process; later calls return the same object).
 * @throws Error when a vendor package cannot be resolved (a broken `npm ci`), when index.html has
 *   no import-map marker, or when assets/ holds a file type without a media type.
 */
export function loadConsoleAssets(): ConsoleAssets {
  loaded ??= readConsoleAssets();
  return loaded;
}

function readConsoleAssets(): ConsoleAssets {
  const files: ConsoleAsset[] = [];
  const imports: Record<string, string> = {};
  for (const specifier of VENDOR_SPECIFIERS) {
    const file = fileURLToPath(import.meta.resolve(specifier));
    const urlDir = `${CONSOLE_PATH}/vendor/${specifier}`;
    imports[specifier] = `${urlDir}/${basename(file)}`;
    files.push(asset(imports[specifier], readFileSync(file)));
    // The module's `//# sourceMappingURL=x.map` is relative to the module: serve it beside it.
    const map = sourceMapOf(readFileSync(file, 'utf8'));
    if (map !== undefined && existsSync(join(dirname(file), map))) files.push(asset(`${urlDir}/${map}`, readFileSync(join(dirname(file), map))));
  }
  for (const file of listFiles(ASSETS_DIR)) {
    const rel = relative(ASSETS_DIR, file).split(sep).join('/');
    if (rel !== 'index.html') files.push(asset(`${CONSOLE_PATH}/${rel}`, readFileSync(file)));
  }
  const importMap = { imports };
  const importMapScript = JSON.stringify(importMap);
  const template = readFileSync(join(ASSETS_DIR, 'index.html'), 'utf8');
  if (!template.includes(IMPORT_MAP_MARKER)) throw new Error(`console: ${join(ASSETS_DIR, 'index.html')} has no ${IMPORT_MAP_MARKER}`);
  const html = template.replace(IMPORT_MAP_MARKER, `<script type="importmap">${importMapScript}</script>`);
  const scriptHash = createHash('sha256').update(importMapScript).digest('base64');
  return { page: asset(CONSOLE_PATH, Buffer.from(html), '.html'), files, importMap, contentSecurityPolicy: contentSecurityPolicy(scriptHash) };
}

/**
 * The page's CSP: scripts, styles and API calls from this origin only; the one inline script is
 * the import map, allowed by its SHA-256.
 */
function contentSecurityPolicy(importMapSha256: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'sha256-${importMapSha256}'`,
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The file named by a module's trailing `//# sourceMappingURL=` comment, if it is a plain file name. */
function sourceMapOf(source: string): string | undefined {
  const m = /\/\/# sourceMappingURL=([\w.-]+\.map)\s*$/.exec(source);
  return m?.[1];
}

function asset(path: string, body: Uint8Array<ArrayBuffer>, ext = extname(path)): ConsoleAsset {
  const contentType = CONTENT_TYPES[ext];
  if (contentType === undefined) throw new Error(`console: no media type for [${path}]`);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { path, body, contentType, etag };
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}
