/**
 * `GET|POST /_mget` and `/{index}/_mget`: many real-time gets in one request. Each item is routed
 * and fetched like `GET /{index}/_doc/{id}` (shared get-document.ts); the reply lists one entry per
 * item in request order: the document, `found: false`, or an `error` (a missing index, an
 * unreachable shard, a `version` that is not the document's) that does not fail the other items.
 * Each item may name its `stored_fields`, `_source`, `routing` and `version`; the URL's
 * `stored_fields`, `_source*` and `routing` are the defaults. Body parsing and error texts follow
 * ES `MultiGetRequest`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-multi-get.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/get/MultiGetRequest.java
 */
import type { Context, Hono } from 'hono';
import { EsError, illegalArgument, parsingException, toEsError, validationFailed, type ErrorCause } from '../../../protocol/errors.ts';
import { isObject, tokenName } from '../../rest/params.ts';
import type { SourceFilter } from '../../../protocol/search.ts';
import { readTarget } from '../../cluster/aliases/alias-targets.ts';
import type { WriteDeps } from '../../write/documents.ts';
import { commaList } from '../../rest/field-and-format.ts';
import { resolvedPreference } from '../../cluster/copy-preference.ts';
import { getDocument, getSourceFilter, readOptionsFromQuery, sourceParams } from '../../write/get-document.ts';
import { parseReadVersion, type ReadVersion } from '../../write/read-version.ts';
import { checkParams, readJsonBody, sendJson } from '../http.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import type { IndexView } from '../../cluster/index-view.ts';
import { ShardCallError } from '../../transport/shard-call-error.ts';

/** One document to get. `index`/`id` are null when the request left them out (a validation error). */
export interface MgetItem {
  index: string | null;
  id: string | null;
  routing: string | undefined;
  /** The `_source` asked for; null: none given (then `stored_fields` decides, get-document.ts `getSourceFilter`). */
  source: SourceFilter | null;
  storedFields?: string[];
  version?: ReadVersion;
}

/** Request-level defaults: the path index and the URL `routing`, `_source*` and `stored_fields` parameters. */
export interface MgetDefaults {
  index: string | null;
  routing: string | undefined;
  source: SourceFilter | null;
  storedFields?: string[];
}

const text = (v: unknown): string => (typeof v === 'string' ? v : String(v));

/** A per-document `_source`: boolean, one field, a list, or `{includes, excludes}`. */
function itemSource(v: unknown): SourceFilter {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return { includes: [v], excludes: [] };
  if (Array.isArray(v)) return { includes: v.map(text), excludes: [] };
  if (isObject(v)) {
    const out = { includes: [] as string[], excludes: [] as string[] };
    for (const [k, val] of Object.entries(v)) {
      const list = k === 'includes' || k === 'include' ? out.includes : k === 'excludes' || k === 'exclude' ? out.excludes : null;
      if (!list) throw new EsError(400, 'parse_exception', `source definition may not contain [${k}]`);
      list.push(...(Array.isArray(val) ? val : [val]).map(text));
    }
    return out;
  }
  throw new EsError(400, 'parse_exception', `illegal type for _source: [${tokenName(v)}]`);
}

/** One element of `docs`. */
function parseDoc(v: unknown, d: MgetDefaults): MgetItem {
  if (!isObject(v)) throw illegalArgument('docs array element should include an object');
  const item: MgetItem = { index: d.index, id: null, routing: d.routing, source: d.source, ...(d.storedFields ? { storedFields: d.storedFields } : {}) };
  let version: string | number | undefined;
  let versionType: string | undefined;
  for (const [k, val] of Object.entries(v)) {
    if (k === '_index') item.index = text(val);
    else if (k === '_id') item.id = text(val);
    else if (k === 'routing') item.routing = text(val);
    else if (k === '_source') item.source = itemSource(val);
    else if (k === 'fields') throw parsingException('Unsupported field [fields] used, expected [stored_fields] instead');
    else if (k === 'stored_fields') item.storedFields = (Array.isArray(val) ? val : [val]).map(text);
    else if (k === 'version') version = typeof val === 'number' || typeof val === 'string' ? val : text(val);
    else if (k === 'version_type') versionType = text(val);
    else if (k === '_type') continue;
    else throw new EsError(400, 'parse_exception', `failed to parse multi get request. unknown field [${k}]`);
  }
  const expected = parseReadVersion(version, versionType);
  if (expected) item.version = expected;
  return item;
}

/**
 * Parses an `_mget` body (`{docs: [...]}` and/or `{ids: [...]}`) into items, then validates them.
 * @throws EsError 400: `parsing_exception` for a malformed body, `illegal_argument_exception` for bad
 *   array elements, `action_request_validation_exception` `Validation Failed: 1: no documents to get;`
 *   / `index is missing for doc 0` / `id is missing for doc 0`.
 */
export function parseMgetBody(body: unknown, d: MgetDefaults): MgetItem[] {
  const items: MgetItem[] = [];
  if (body !== undefined) {
    if (!isObject(body)) throw parsingException(`unexpected token [${tokenName(body)}], expected [START_OBJECT]`);
    for (const [k, v] of Object.entries(body)) {
      if (!Array.isArray(v)) throw parsingException(`unexpected token [${tokenName(v)}], expected [FIELD_NAME] or [START_ARRAY]`);
      if (k === 'docs') for (const doc of v) items.push(parseDoc(doc, d));
      else if (k === 'ids') {
        for (const id of v) {
          if (id === null || typeof id === 'object') throw illegalArgument('ids array element should only contain ids');
          items.push({ index: d.index, id: text(id), routing: d.routing, source: d.source, ...(d.storedFields ? { storedFields: d.storedFields } : {}) });
        }
      } else throw parsingException(`unknown key [${k}] for a START_ARRAY, expected [docs] or [ids]`);
    }
  }
  const errors: string[] = [];
  if (items.length === 0) errors.push('no documents to get');
  items.forEach((it, i) => {
    if (it.index === null) errors.push(`index is missing for doc ${i}`);
    if (it.id === null) errors.push(`id is missing for doc ${i}`);
  });
  if (errors.length > 0) throw validationFailed(errors);
  return items;
}

/** An item failure as ES writes it in `docs[i].error` (the full cause with `root_cause`). */
function errorOf(err: unknown): ErrorCause {
  const es = err instanceof ShardCallError ? new EsError(err.status, err.cause_.type, err.cause_.reason ?? err.message) : toEsError(err);
  return es.toBody().error;
}

/** Registers the `_mget` routes on `app`. */
export function registerMgetRoutes(app: Hono, deps: WriteDeps, maxBodyBytes: number): void {
  const mget = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.mget);
    const stored = c.req.query('stored_fields');
    const defaults: MgetDefaults = {
      index: c.req.param('index') ?? null,
      routing: c.req.query('routing'),
      source: sourceParams((k) => c.req.query(k)),
      ...(stored !== undefined ? { storedFields: commaList(stored) } : {}),
    };
    // ES `realtime` (false: what a search sees) and `refresh` (refresh each shard first) apply to every doc.
    const { realtime, refresh } = readOptionsFromQuery((k) => c.req.query(k), false);
    const read = { ...(realtime !== undefined ? { realtime } : {}), ...(refresh !== undefined ? { refresh } : {}) };
    const items = parseMgetBody(await readJsonBody(c, maxBodyBytes), defaults);
    const preference = resolvedPreference(c.req.query('preference'), deps.view);
    const views = new Map<string, Promise<IndexView>>();
    const viewOf = (name: string) => {
      let v = views.get(name);
      if (!v) views.set(name, (v = deps.view.getOpen(name)));
      return v;
    };
    const lookup = deps.view.aliasLookup();
    const docs = await Promise.all(
      items.map(async (it) => {
        try {
          // An alias reads its one index with its index routing (ES `TransportShardMultiGetAction`).
          const { view, routing } = lookup.targets(it.index!)
            ? await readTarget(deps.view, it.index!, it.routing)
            : { view: await viewOf(it.index!), routing: it.routing };
          const source = getSourceFilter(it.source, it.storedFields);
          return await getDocument(deps.client, view, it.id!, {
            routing,
            source,
            storedFields: it.storedFields,
            version: it.version,
            timeoutMs: deps.timeoutMs,
            preference,
            ...read,
          });
        } catch (err) {
          return { _index: it.index, _id: it.id, error: errorOf(err) };
        }
      }),
    );
    return sendJson(c, 200, { docs });
  };
  app.on(['GET', 'POST'], '/_mget', mget);
  app.on(['GET', 'POST'], '/:index/_mget', mget);
}
