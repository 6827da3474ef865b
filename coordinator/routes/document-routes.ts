/**
 * Routes of the document APIs: `_bulk`, `PUT|POST /{index}/_doc/{id}`, `POST /{index}/_doc`,
 * `PUT|POST /{index}/_create/{id}`, `POST /{index}/_update/{id}`, `GET|HEAD|DELETE /{index}/_doc/{id}`.
 * Single-document writes run as one-item bulks so both paths share routing, auto-create and mapping.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs.html
 */
import type { Context, Hono } from 'hono';
import { EsError, illegalArgument } from '../../shared/errors.ts';
import { INTERNAL_PREFIX, type GetRequest, type GetResponse } from '../../shared/protocol.ts';
import { shardForRouting } from '../../shared/routing.ts';
import type { SourceFilter } from '../../shared/protocol.ts';
import { filterSource } from '../../shared/source-filter.ts';
import { parseBulkBody, type BulkAction } from '../bulk-parse.ts';
import { executeBulk, type WriteDeps } from '../documents.ts';
import { readBodyText, readJsonBody, refreshParam, sendJson } from '../http.ts';

/** The `_source`, `_source_includes`, `_source_excludes` URL parameters of GET as a filter. */
function sourceFilterFromParams(source?: string, includes?: string, excludes?: string): SourceFilter {
  const list = (s?: string): string[] => (s ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '');
  if (source === 'false') return false;
  const inc = source !== undefined && source !== 'true' && source !== '' ? list(source) : list(includes);
  const exc = list(excludes);
  return inc.length === 0 && exc.length === 0 ? true : { includes: inc, excludes: exc };
}

/** Registers the document routes on `app`. */
export function registerDocumentRoutes(app: Hono, deps: WriteDeps, maxBodyBytes: number): void {
  const bulk = async (c: Context) => {
    const text = (await readBodyText(c, maxBodyBytes)) ?? '';
    const items = parseBulkBody(text, c.req.param('index'));
    return sendJson(c, 200, await executeBulk(items, refreshParam(c), deps));
  };
  app.on(['POST', 'PUT'], '/_bulk', bulk);
  app.on(['POST', 'PUT'], '/:index/_bulk', bulk);

  /** Runs one write as a bulk item and answers in the single-document shape with its status. */
  const single = async (c: Context, action: BulkAction, id: string | undefined, source: Record<string, unknown> | undefined) => {
    const index = c.req.param('index')!;
    const res = await executeBulk([{ action, index, id, routing: c.req.query('routing'), source }], refreshParam(c), deps);
    const item = res.items[0][action] as Record<string, unknown> & { status: number; error?: Record<string, unknown> };
    if (item.error) {
      const { type, reason, ...meta } = item.error as { type: string; reason: string };
      throw new EsError(item.status, type, reason, { metadata: meta });
    }
    const { status, ...rest } = item;
    return sendJson(c, status, rest);
  };
  const docBody = async (c: Context): Promise<Record<string, unknown>> => {
    const body = await readJsonBody(c, maxBodyBytes);
    if (body === undefined) throw new EsError(400, 'action_request_validation_exception', 'Validation Failed: 1: source is missing;2: content type is missing;');
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new EsError(400, 'mapper_parsing_exception', 'failed to parse, document is empty');
    return body as Record<string, unknown>;
  };

  app.on(['PUT', 'POST'], '/:index/_doc/:id', async (c) => {
    const opType = c.req.query('op_type');
    if (opType !== undefined && opType !== 'index' && opType !== 'create') throw illegalArgument(`opType must be 'create' or 'index', found: [${opType}]`);
    return single(c, opType === 'create' ? 'create' : 'index', c.req.param('id'), await docBody(c));
  });
  app.post('/:index/_doc', async (c) => single(c, 'create', undefined, await docBody(c)));
  app.on(['PUT', 'POST'], '/:index/_create/:id', async (c) => single(c, 'create', c.req.param('id'), await docBody(c)));
  app.post('/:index/_update/:id', async (c) => single(c, 'update', c.req.param('id'), await docBody(c)));
  app.delete('/:index/_doc/:id', async (c) => {
    const index = c.req.param('index');
    await deps.view.get(index);
    return single(c, 'delete', c.req.param('id'), undefined);
  });

  app.on(['GET', 'HEAD'], '/:index/_doc/:id', async (c) => {
    const name = c.req.param('index');
    const id = c.req.param('id');
    const view = await deps.view.get(name).catch((err) => {
      if (c.req.method === 'HEAD') return null;
      throw err;
    });
    if (!view) return c.body(null, 404);
    const m = view.metadata;
    const shard = shardForRouting(c.req.query('routing') ?? id, m.numberOfShards, m.routingNumShards);
    const body: GetRequest = { index: name, shard, _id: id };
    const res = await deps.client.call<GetResponse>(view.placement[shard], `${INTERNAL_PREFIX}/get`, body, { timeoutMs: deps.timeoutMs });
    if (c.req.method === 'HEAD') return c.body(null, res.found ? 200 : 404);
    if (!res.found) return sendJson(c, 404, { _index: name, _id: id, found: false });
    const filter = sourceFilterFromParams(c.req.query('_source'), c.req.query('_source_includes'), c.req.query('_source_excludes'));
    const doc: Record<string, unknown> = { _index: name, _id: id, _version: res._version, _seq_no: res._seq_no, _primary_term: res._primary_term, found: true };
    const source = filterSource(res._source ?? {}, filter);
    if (source !== undefined) doc._source = source;
    return sendJson(c, 200, doc);
  });

}
