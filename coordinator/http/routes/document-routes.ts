/**
 * Routes of the document APIs: `_bulk`, `PUT|POST /{index}/_doc/{id}`, `POST /{index}/_doc`,
 * `PUT|POST /{index}/_create/{id}`, `POST /{index}/_update/{id}`, `GET|HEAD|DELETE /{index}/_doc/{id}`.
 * Single-document writes run as one-item bulks so both paths share routing, auto-create and mapping.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs.html
 */
import type { Context, Hono } from 'hono';
import { EsError, illegalArgument, validationFailed } from '../../../protocol/errors.ts';
import { parseJsonBody } from '../../rest/json-body.ts';
import { parseBulkBytesToColumns, trimJsonWhitespace, type BulkAction, type BulkItem } from '../../rest/bulk-parse.ts';
import { readTarget, writeIndexName } from '../../cluster/aliases/alias-targets.ts';
import { executeBulk, executeBulkOutcome, type BulkOptions, type WriteDeps } from '../../write/documents.ts';
import { commaList } from '../../rest/field-and-format.ts';
import { resolvedPreference } from '../../cluster/copy-preference.ts';
import { getDocument, getSourceFilter, readOptionsFromQuery, sourceFilterFromParams, sourceParams } from '../../write/get-document.ts';
import { fetchSourceFromQuery, parseUpdateBody, writeParamsFromQuery } from '../../write/write-request.ts';
import { checkParams, readBodyBytes, readBodyText, refreshParam, sendJson, sendJsonItemsSliced } from '../http.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import { parseBooleanParam } from '../../rest/params.ts';

/** The request's `require_alias` (ES `RestRequest.paramAsBoolean`), or undefined when absent. */
const requireAliasParam = (c: Context): boolean | undefined => {
  const v = c.req.query('require_alias');
  return v === undefined ? undefined : parseBooleanParam(v);
};

/** A HEAD request answers a missing index with a bare 404 (any other error, e.g. a closed index, as usual); other methods rethrow. */
const headMiss =
  (c: Context) =>
  (err: unknown): null => {
    if (c.req.method === 'HEAD' && !(err instanceof EsError && err.type === 'index_closed_exception')) return null;
    throw err;
  };

/** Registers the document routes on `app`: `_bulk`, the single-document writes, the gets. */
export function registerDocumentRoutes(app: Hono, deps: WriteDeps, maxBodyBytes: number): void {
  registerBulkRoutes(app, deps, maxBodyBytes);
  registerWriteRoutes(app, deps, maxBodyBytes);
  registerGetRoutes(app, deps);
}

/** `POST|PUT /_bulk` and `/{index}/_bulk`. */
function registerBulkRoutes(app: Hono, deps: WriteDeps, maxBodyBytes: number): void {
  const bulk = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.bulk);
    // Parsed and answered in slices that yield to the event loop: a large bulk must not hold the
    // coordinator (docs/reliability.md, the abuse suite).
    const items = await parseBulkBytesToColumns(await readBodyBytes(c, maxBodyBytes), c.req.param('index'));
    const opts: BulkOptions = {};
    const pipeline = c.req.query('pipeline');
    if (pipeline !== undefined) opts.pipeline = pipeline;
    const fetchSource = fetchSourceFromQuery((name) => c.req.query(name));
    if (fetchSource !== undefined) opts.fetchSource = fetchSource;
    // The URL's `require_alias` is the default of every item that does not set its own (ES `BulkRequest.requireAlias`).
    if (requireAliasParam(c) === true) items.requireAliasByDefault();
    const outcome = await executeBulkOutcome(items, refreshParam(c), deps, opts);
    // Each reply item is built as it is serialized: never 100,000 objects at once (docs/reliability.md).
    return sendJsonItemsSliced(c, 200, { errors: outcome.errors, took: outcome.took }, 'items', outcome.length, (i) => outcome.item(i));
  };
  app.on(['POST', 'PUT'], '/_bulk', bulk);
  app.on(['POST', 'PUT'], '/:index/_bulk', bulk);
}

/**
 * Runs one write as a bulk item and answers in the single-document shape with its status. Its
 * write parameters (`if_seq_no`, `version`, `pipeline`, …) come from the URL, and so does an
 * update's `_source` for its `get` (over the body's).
 */
async function single(c: Context, deps: WriteDeps, action: BulkAction, id: string | undefined, body: DocBody | undefined) {
  const index = c.req.param('index')!;
  const query = (name: string) => c.req.query(name);
  const item: BulkItem = {
    action,
    index,
    id,
    routing: query('routing'),
    source: body?.source,
    params: writeParamsFromQuery(query),
    ...(action === 'update' ? { update: parseUpdateBody(body?.source ?? {}) } : { sourceText: body?.text }),
    requireAlias: requireAliasParam(c),
  };
  const fetchSource = action === 'update' ? fetchSourceFromQuery(query) : undefined;
  const res = await executeBulk([item], refreshParam(c), deps, { rawSources: true, ...(fetchSource !== undefined ? { fetchSource } : {}) });
  const out = res.items[0][action] as Record<string, unknown> & { status: number; error?: Record<string, unknown> };
  if (out.error) {
    const { type, reason, ...meta } = out.error as { type: string; reason: string };
    throw new EsError(out.status, type, reason, { metadata: meta });
  }
  const { status, ...rest } = out;
  // ES's update action answers a noop itself, without replicating: its `_shards` count no copy.
  if (rest.result === 'noop') rest._shards = { total: 0, successful: 0, failed: 0 };
  return sendJson(c, status, rest);
}

/** A document body: parsed, and its text without surrounding whitespace (stored as `_source` as is). */
interface DocBody {
  source: Record<string, unknown>;
  text: string;
}

/** Reads a document body. @throws EsError 400 when it is missing or not a JSON object */
async function docBody(c: Context, maxBodyBytes: number): Promise<DocBody> {
  const text = await readBodyText(c, maxBodyBytes);
  const body = text === undefined ? undefined : parseJsonBody(text);
  if (body === undefined) throw new EsError(400, 'action_request_validation_exception', 'Validation Failed: 1: source is missing;2: content type is missing;');
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new EsError(400, 'mapper_parsing_exception', 'failed to parse, document is empty');
  return { source: body, text: trimJsonWhitespace(text!) };
}

/** The single-document writes: `PUT|POST /{index}/_doc[/{id}]`, `_create/{id}`, `_update/{id}`, `DELETE /{index}/_doc/{id}`. */
function registerWriteRoutes(app: Hono, deps: WriteDeps, maxBodyBytes: number): void {
  app.on(['PUT', 'POST'], '/:index/_doc/:id', async (c) => {
    checkParams(c, ROUTE_PARAMS.index);
    const opType = c.req.query('op_type');
    if (opType !== undefined && opType !== 'index' && opType !== 'create') throw illegalArgument(`opType must be 'create' or 'index', found: [${opType}]`);
    return single(c, deps, opType === 'create' ? 'create' : 'index', c.req.param('id'), await docBody(c, maxBodyBytes));
  });
  app.post('/:index/_doc', async (c) => (checkParams(c, ROUTE_PARAMS.index), single(c, deps, 'create', undefined, await docBody(c, maxBodyBytes))));
  app.on(
    ['PUT', 'POST'],
    '/:index/_create/:id',
    async (c) => (checkParams(c, ROUTE_PARAMS.index), single(c, deps, 'create', c.req.param('id'), await docBody(c, maxBodyBytes))),
  );
  app.post('/:index/_update/:id', async (c) => {
    checkParams(c, ROUTE_PARAMS.update);
    // ES `RestUpdateAction`: versions are refused outright (an update reads and writes the latest).
    if (c.req.query('version') !== undefined || c.req.query('version_type') !== undefined) {
      throw validationFailed(['internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead']);
    }
    return single(c, deps, 'update', c.req.param('id'), await docBody(c, maxBodyBytes));
  });
  app.delete('/:index/_doc/:id', async (c) => {
    checkParams(c, ROUTE_PARAMS.delete);
    // A delete never creates its index: a missing one is a 404 here (an alias: its write index).
    await deps.view.getOpen(await writeIndexName(deps.view, c.req.param('index')));
    return single(c, deps, 'delete', c.req.param('id'), undefined);
  });
}

/** The real-time gets: `GET|HEAD /{index}/_doc/{id}` and `/{index}/_source/{id}`. */
function registerGetRoutes(app: Hono, deps: WriteDeps): void {
  app.on(['GET', 'HEAD'], '/:index/_doc/:id', async (c) => {
    checkParams(c, ROUTE_PARAMS.get);
    const target = await readTarget(deps.view, c.req.param('index'), c.req.query('routing')).catch(headMiss(c));
    if (!target) return c.body(null, 404);
    const storedParam = c.req.query('stored_fields');
    const storedFields = storedParam !== undefined ? commaList(storedParam) : undefined;
    const source = getSourceFilter(
      sourceParams((k) => c.req.query(k)),
      storedFields,
    );
    // The routing is the alias's index_routing when read through an alias (readTarget), else the URL's.
    const doc = await getDocument(deps.client, target.view, c.req.param('id'), {
      source,
      storedFields,
      timeoutMs: deps.timeoutMs,
      ...readOptionsFromQuery((k) => c.req.query(k)),
      routing: target.routing,
      preference: resolvedPreference(c.req.query('preference'), deps.view),
    });
    if (c.req.method === 'HEAD') return c.body(null, doc.found ? 200 : 404);
    return sendJson(c, doc.found ? 200 : 404, doc);
  });

  // ES `RestGetSourceAction`: the `_source` alone, as stored (404 `resource_not_found_exception` when missing).
  app.on(['GET', 'HEAD'], '/:index/_source/:id', async (c) => {
    checkParams(c, ROUTE_PARAMS.getSource);
    const index = c.req.param('index');
    const id = c.req.param('id');
    const target = await readTarget(deps.view, index, c.req.query('routing')).catch(headMiss(c));
    if (!target) return c.body(null, 404);
    const { view } = target;
    const source = sourceFilterFromParams(c.req.query('_source'), c.req.query('_source_includes'), c.req.query('_source_excludes'));
    const doc = await getDocument(deps.client, view, id, {
      source,
      timeoutMs: deps.timeoutMs,
      ...readOptionsFromQuery((k) => c.req.query(k)),
      routing: target.routing,
      preference: resolvedPreference(c.req.query('preference'), deps.view),
    });
    if (c.req.method === 'HEAD') return c.body(null, doc.found ? 200 : 404);
    if (!doc.found) throw new EsError(404, 'resource_not_found_exception', `Document not found [${view.metadata.name}]/[${id}]`);
    if (doc._source === undefined) throw new EsError(404, 'resource_not_found_exception', `Source not found [${view.metadata.name}]/[${id}]`);
    return sendJson(c, 200, doc._source);
  });
}
