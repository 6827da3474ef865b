/**
 * Get of one document, shared by `GET /{index}/_doc/{id}` and `_mget` (real-time unless `realtime`
 * is false, then what a search sees; `refresh` refreshes the shard first): route the id (or
 * the custom `routing`) with ES's formula to its shard, ask the node of its primary (then, when that
 * node does not answer, its in-sync replicas: every in-sync copy holds every acknowledged write),
 * and shape the reply as ES's `GetResult`: `_routing` when the document has a custom routing,
 * `_source` filtered as requested, `fields` with the `stored_fields` asked for (fields mapped with
 * `store: true`, read from `_source`), and a 409 when a `version` is given that is not the document's.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-get.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/get/GetResult.java
 */
import { METADATA_FIELDS } from '../rest/field-and-format.ts';
import { compileFieldFetch } from '../../shared/field-fetcher.ts';
import { rpc } from '../../protocol/rpc.ts';
import { type SourceFilter } from '../../protocol/search.ts';
import { type GetRequest, type GetResponse } from '../../protocol/write.ts';
import { shardForRouting } from '../cluster/routing.ts';
import { filterSourceText, RawJson } from '../../shared/raw-json.ts';
import { visibleSourceText } from '../../shared/source-mapping.ts';
import { parseBooleanParam } from '../rest/params.ts';
import type { IndexView } from '../cluster/index-view.ts';
import { preferredGetCopies, type ResolvedPreference } from '../cluster/copy-preference.ts';
import { EsError } from '../../protocol/errors.ts';
import { readVersionConflict, readVersionFromQuery, type ReadVersion } from './read-version.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { ShardCallError } from '../transport/shard-call-error.ts';

/** ES's get reply for a found document, keys in ES's order (`_source` absent when not fetched). */
export interface FoundDocument {
  _index: string;
  _id: string;
  _version: number;
  _seq_no: number;
  _primary_term: number;
  /** The custom routing the document was indexed with. */
  _routing?: string;
  /** ES `_ignored`: the fields whose values were not indexed (malformed, over `ignore_above`), sorted. */
  _ignored?: string[];
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
  const list = (s?: string): string[] =>
    (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  if (source === 'false') return false;
  const inc = source !== undefined && source !== 'true' && source !== '' ? list(source) : list(includes);
  const exc = list(excludes);
  return inc.length === 0 && exc.length === 0 ? true : { includes: inc, excludes: exc };
}

/** How {@link getDocument} reads (ES `GetRequest`'s options). */
export interface GetOptions {
  /** The custom routing that picks the shard (else the `_id`). */
  routing?: string;
  /** The `_source` to return (see {@link getSourceFilter}). */
  source: SourceFilter;
  /** ES `stored_fields`: the `store: true` fields to return under `fields` (metadata names are skipped). */
  storedFields?: readonly string[];
  /** Deadline of the shard call (ms). */
  timeoutMs: number;
  /** ES `realtime` (default true): false reads what a search sees, not unrefreshed writes. */
  realtime?: boolean;
  /** ES `refresh`: refresh the shard before reading. */
  refresh?: boolean;
  /** ES `version`/`version_type`: a found document must have exactly this version, else 409. */
  version?: ReadVersion;
  /** ES `preference` (copy-preference.ts `preferredGetCopies`): the copies read, in its order; absent: the primary, then the in-sync replicas. */
  preference?: ResolvedPreference | undefined;
}

/**
 * The URL parameters of ES's `RestGetAction`, `RestGetSourceAction` and `RestMultiGetAction` that
 * change how a document is read: `realtime`, `refresh`, `routing`, and (unless `withVersion` is
 * false, as for `_mget`, whose items carry their own) `version`/`version_type`.
 * @throws EsError 400 for a value that does not parse, or a version invalid for its type
 */
export function readOptionsFromQuery(
  query: (name: string) => string | undefined,
  withVersion = true,
): Pick<GetOptions, 'routing' | 'realtime' | 'refresh' | 'version'> {
  const out: Pick<GetOptions, 'routing' | 'realtime' | 'refresh' | 'version'> = {};
  const routing = query('routing');
  if (routing !== undefined) out.routing = routing;
  const realtime = query('realtime');
  if (realtime !== undefined) out.realtime = parseBooleanParam(realtime);
  const refresh = query('refresh');
  if (refresh !== undefined) out.refresh = parseBooleanParam(refresh);
  const version = withVersion ? readVersionFromQuery(query) : undefined;
  if (version) out.version = version;
  return out;
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
 * @throws ShardCallError when no copy's node answers, or a node answers with an error; EsError 409
 *   `version_conflict_engine_exception` when the document's version is not `opts.version`; 503
 *   `no_shard_available_action_exception` when the preference allows no copy; 400 as `preferredGetCopies`.
 */
export async function getDocument(client: ShardClient, view: IndexView, id: string, opts: GetOptions): Promise<FoundDocument | MissingDocument> {
  const m = view.metadata;
  const shard = shardForRouting(opts.routing ?? id, m.numberOfShards, m.routingNumShards);
  const body: GetRequest = { index: m.name, shard, _id: id };
  if (opts.realtime === false) body.realtime = false;
  if (opts.refresh === true) body.refresh = true;
  const copies =
    opts.preference && opts.preference.copies.kind !== 'default'
      ? preferredGetCopies(opts.preference, view, shard, (n) => client.selection.avoided(n))
      : [view.placement[shard], ...view.copies[shard].filter((c) => !c.primary && c.inSync).map((c) => c.node)];
  // ES `TransportSingleShardAction.perform` with no copy left (`_only_local`: the coordinator holds none).
  if (copies.length === 0)
    throw new EsError(503, 'no_shard_available_action_exception', `No shard available for [get [${m.name}][${id}]: routing [${opts.routing ?? null}]]`);
  let res: GetResponse | undefined;
  for (const [i, node] of copies.entries()) {
    try {
      res = await client.rpc(node, rpc.get, body, { timeoutMs: opts.timeoutMs });
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
  // Keys are added in ES's order: `_routing` and `_ignored` between `_primary_term` and `found`.
  const doc = { _index: m.name, _id: id, _version: res._version!, _seq_no: res._seq_no!, _primary_term: res._primary_term! } as FoundDocument;
  if (res._routing !== undefined) doc._routing = res._routing;
  if (res._ignored !== undefined) doc._ignored = res._ignored;
  doc.found = true;
  // Only what the mapping's `_source` keeps is shown (none when disabled: ES's `_source` 404).
  const shown = visibleSourceText(res._source ?? '{}', m.mappings);
  const source = shown === undefined ? undefined : filterSourceText(shown, opts.source);
  if (source !== undefined) doc._source = new RawJson(source);
  const stored = opts.storedFields?.filter((n) => !METADATA_FIELDS.has(n));
  if (stored && stored.length > 0) {
    const fields = compileFieldFetch(m.mappings, { storedFields: stored }, m.name).fields(JSON.parse(res._source ?? '{}') as Record<string, unknown>);
    if (fields) doc.fields = fields;
  }
  return doc;
}
