/**
 * Real-time get of one document, shared by `GET /{index}/_doc/{id}` and `_mget`: route the id (or
 * the custom `routing`) with ES's formula to its shard, ask the node of its primary (then, when that
 * node does not answer, its in-sync replicas: every in-sync copy holds every acknowledged write),
 * and shape the reply as ES's `GetResult` (`_source` filtered as requested).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-get.html
 */
import { INTERNAL_PREFIX, type GetRequest, type GetResponse, type SourceFilter } from '../shared/protocol.ts';
import { shardForRouting } from '../shared/routing.ts';
import { filterSourceText, RawJson } from '../shared/raw-json.ts';
import type { IndexView } from './index-view.ts';
import { checkReadVersion, type ReadVersion } from './write-request.ts';
import { ShardCallError, type ShardClient } from './shard-client.ts';

/** ES's get reply for a found document (`_source` absent when filtered out with `_source=false`). */
export interface FoundDocument {
  _index: string;
  _id: string;
  _version: number;
  _seq_no: number;
  _primary_term: number;
  found: true;
  /** The stored text (filtered when asked), written verbatim by the reply. */
  _source?: RawJson;
}

/** ES's get reply for a missing document. */
export interface MissingDocument {
  _index: string;
  _id: string;
  found: false;
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

/** How {@link getDocument} reads. */
export interface GetOptions {
  routing?: string;
  source: SourceFilter;
  /** Deadline of the shard call (ms). */
  timeoutMs: number;
  /** ES `realtime` (default true): false reads what a search sees, not unrefreshed writes. */
  realtime?: boolean;
  /** ES `refresh`: refresh the shard before reading. */
  refresh?: boolean;
  /** ES `version`/`version_type`: a found document must have exactly this version, else 409. */
  version?: ReadVersion;
}

/**
 * Gets `id` from `view`'s index, from the shard that `routing ?? id` routes to.
 * @throws ShardCallError when no copy's node answers, or a node answers with an error; EsError 409
 *   `version_conflict_engine_exception` when the document's version is not `opts.version`.
 */
export async function getDocument(
  client: ShardClient,
  view: IndexView,
  id: string,
  opts: GetOptions,
): Promise<FoundDocument | MissingDocument> {
  const m = view.metadata;
  const shard = shardForRouting(opts.routing ?? id, m.numberOfShards, m.routingNumShards);
  const body: GetRequest = { index: m.name, shard, _id: id };
  if (opts.realtime === false) body.realtime = false;
  if (opts.refresh === true) body.refresh = true;
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
  if (opts.version) checkReadVersion(id, opts.version, res._version!, { index_uuid: m.uuid, shard: String(shard), index: m.name });
  const doc: FoundDocument = { _index: m.name, _id: id, _version: res._version!, _seq_no: res._seq_no!, _primary_term: res._primary_term!, found: true };
  const source = filterSourceText(res._source ?? '{}', opts.source);
  if (source !== undefined) doc._source = new RawJson(source);
  return doc;
}
