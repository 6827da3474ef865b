/**
 * ES's answer to a known path with a wrong method: 405 with an `Allow` header and
 * `{"error":"Incorrect HTTP method for uri [/x] and method [M], allowed: [A, B]","status":405}`;
 * an unknown path stays ES's 400 `no handler found for uri [/x] and method [M]`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/RestController.java (handleUnsupportedHttpMethod, handleBadRequest)
 */

/** A registered route as hono lists it in `app.routes`. */
export interface RouteEntry {
  method: string;
  path: string;
}

/** Compiles a hono path pattern (`/:index/_doc/:id`, `/_cat/indices`) into an anchored RegExp. */
function pattern(path: string): RegExp {
  const body = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/**
 * The methods registered for `path` (sorted), ignoring middleware (`ALL`). Empty when no route
 * matches the path at all.
 */
export function allowedMethods(routes: readonly RouteEntry[], path: string): string[] {
  const out = new Set<string>();
  for (const r of routes) {
    if (r.method === 'ALL' || r.path.includes('*')) continue;
    if (pattern(r.path).test(path)) out.add(r.method);
  }
  if (out.has('GET')) out.add('HEAD');
  return [...out].sort();
}

/** The status, body and headers ES sends for an unrouted request. */
export function unroutedResponse(
  routes: readonly RouteEntry[],
  method: string,
  path: string,
): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  const allowed = allowedMethods(routes, path).filter((m) => m !== method);
  if (allowed.length > 0) {
    return {
      status: 405,
      body: { error: `Incorrect HTTP method for uri [${path}] and method [${method}], allowed: [${allowed.join(', ')}]`, status: 405 },
      headers: { Allow: allowed.join(',') },
    };
  }
  return { status: 400, body: { error: `no handler found for uri [${path}] and method [${method}]` }, headers: {} };
}
