/**
 * Real-time get of one document, shared by `GET /{index}/_doc/{id}` and `_mget`: route the id (or
 * the custom `routing`) with ES's formula to its shard, ask the node of its primary (then, when that
 * node does not answer, its in-sync replicas: every in-sync copy holds every acknowledged write),
 * and shape the reply as ES's `GetResult`: `_routing` when the document has a custom routing,
 * `_source` filtered as requested, `fields` with the `stored_fields` asked for (fields mapped with
 * `store: true`, read from `_source`), and a 409 when a `version` is given that is not the document's.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-get.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/get/GetResult.java
 */
import { METADATA_FIELDS } from '../shared/field-and-format.ts';
import { compileFieldFetch } from '../shared/field-fetcher.ts';
import { INTERNAL_PREFIX, type GetRequest, type GetResponse, type SourceFilter } from '../shared/protocol.ts';
import { shardForRouting } from '../shared/routing.ts';
import { filterSourceText, RawJson } from '../shared/raw-json.ts';
import type { IndexView } from './index-view.ts';
import { readVersionConflict, type ReadVersion } from './read-version.ts';
import { ShardCallError, type ShardClient } from './shard-client.ts';

/** ES's get reply for a found document, keys in ES's order (`_source` absent when not fetched). */
export interface FoundDocument {
  _index: string;
  _id: string;
  _version: number;
  _seq_no: number;
  _primary_term: number;
  /** The custom routing the document was indexed with. */
  _routing?: string;
  found: true;
  /** The stored text (filtered when asked), written verbatim by the reply. */
  _source?: RawJson;
  /** The `stored_fields` asked for that have values. */
  fields?: Record<string, unknown[]>;
}

/** ES's get reply for a missing document. */
export interface MissingDocument {
  _index: string;
  _id: string;
  found: false;
}

/**
 * The `_source` a get returns (ES `ShardGetService.normalizeFetchSourceContent`): the one asked
 * for; without one, all of it unless `stored_fields` is given without `_source` among its names.
 * @param source the `_source` parameters as a filter, null when none was given
 */
export function getSourceFilter(source: SourceFilter | null, storedFields: readonly string[] | undefined): SourceFilter {
  if (source !== null) return source;
  return storedFields === undefined || storedFields.includes('_source');
}

/**
 * The `_source`, `_source_includes`, `_source_excludes` URL parameters as a source filter
 * (ES `FetchSourceContext.parseFromRestRequest`): `_source=false` drops it, `_source=a,b` or
 * `_source_includes` keep fields, `_source_excludes` drops fields.
 */
export function sourceFilterFromParams(source?: string, includes?: string, excludes?: string): SourceFilter {
  const list = (s?: string): string[] => (s ?? '').split(',').map((x) => x.trim()).filter((x) => x !== '');
  if (source === 'false') return false;
  const inc = source !== undefined && source !== 'true' && source !== '' ? list(source) : list(includes);
  const exc = list(excludes);
  return inc.length === 0 && exc.length === 0 ? true : { includes: inc, excludes: exc };
}

/**
 * The `_source*` URL parameters read through `param` as {@link sourceFilterFromParams} reads them,
 * or null when none of them is given (ES `parseFromRestRequest` returns null: the default applies).
 */
export function sourceParams(param: (name: string) => string | undefined): SourceFilter | null {
  const [source, includes, excludes] = [param('_source'), param('_source_includes'), param('_source_excludes')];
  if (source === undefined && includes === undefined && excludes === undefined) return null;
  return sourceFilterFromParams(source, includes, excludes);
}

/**
 * Gets `id` from `view`'s index, from the shard that `routing ?? id` routes to.
 * @param timeoutMs deadline of the shard call.
 * @throws ShardCallError when no copy's node answers, or a node answers with an error.
 */
export async function getDocument(
  client: ShardClient,
  view: IndexView,
  id: string,
  opts: { routing?: string; source: SourceFilter; storedFields?: readonly string[]; version?: ReadVersion; timeoutMs: number },
): Promise<FoundDocument | MissingDocument> {
  const m = view.metadata;
  const shard = shardForRouting(opts.routing ?? id, m.numberOfShards, m.routingNumShards);
  const body: GetRequest = { index: m.name, shard, _id: id };
  const copies = [view.placement[shard], ...view.copies[shard].filter((c) => !c.primary && c.inSync).map((c) => c.node)];
  let res: GetResponse | undefined;
  for (const [i, node] of copies.entries()) {
    try {
      res = await client.call<GetResponse>(node, `${INTERNAL_PREFIX}/get`, body, { timeoutMs: opts.timeoutMs });
      break;
    } catch (err) {
      const unreachable = err instanceof ShardCallError && (err.kind === 'connection' || err.kind === 'timeout' || err.status >= 500);
      if (!unreachable || i === copies.length - 1) throw err;
    }
  }
  if (!res) throw new Error(`no copy of [${m.name}][${shard}] to read`);
  if (!res.found) return { _index: m.name, _id: id, found: false };
  const conflict = readVersionConflict(opts.version, res._version!, id, m.name, shard, m.uuid);
  if (conflict) throw conflict;
  // Keys are added in ES's order: `_routing` between `_primary_term` and `found`.
  const doc = { _index: m.name, _id: id, _version: res._version!, _seq_no: res._seq_no!, _primary_term: res._primary_term! } as FoundDocument;
  if (res._routing !== undefined) doc._routing = res._routing;
  doc.found = true;
  const source = filterSourceText(res._source ?? '{}', opts.source);
  if (source !== undefined) doc._source = new RawJson(source);
  const stored = opts.storedFields?.filter((n) => !METADATA_FIELDS.has(n));
  if (stored && stored.length > 0) {
    const fields = compileFieldFetch(m.mappings, { storedFields: stored }, m.name).fields(JSON.parse(res._source ?? '{}') as Record<string, unknown>);
    if (fields) doc.fields = fields;
  }
  return doc;
}
