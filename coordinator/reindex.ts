/**
 * `POST /_reindex`: copies the documents of `source.index` matching `source.query` into
 * `dest.index` through the ordinary write path. The source is read as ES reads it (a consistent
 * snapshot, batch after batch) with constant memory: a point in time over the source shards, walked
 * in `_shard_doc` order (shard after shard, each in index order) with `search_after`, `source.size`
 * hits per batch (default 1000), each batch one `_bulk` into the destination.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-reindex.html
 */
import { RawJson } from '../shared/raw-json.ts';
import { inSyncCopiesByNode } from './index-view.ts';
import { EsError, illegalArgument, parsingException, validationFailed } from '../shared/errors.ts';
import { INTERNAL_PREFIX } from '../shared/protocol.ts';
import { isObject, tokenName } from '../shared/params.ts';
import type { SortValue } from '../shared/sort.ts';
import type { BulkItem } from './bulk-parse.ts';
import { executeBulk, type WriteDeps } from './documents.ts';
import { resolveIndices } from './index-expression.ts';
import { closeContexts, openContexts } from './search/contexts.ts';
import { encodePitId } from './search/cursor-ids.ts';
import { searchWithSnapshot, type SearchDeps } from './search/search.ts';
import { allFailedError } from './search/shard-failures.ts';

/** ES's default `source.size` (scroll batch size) of a reindex. */
export const DEFAULT_REINDEX_BATCH = 1000;
/** Keep-alive of the reindex's point in time, renewed by every batch. */
const PIT_KEEP_ALIVE = '5m';

/** A validated reindex request. */
export interface ReindexSpec {
  sourceIndex: string;
  query: unknown;
  batchSize: number;
  destIndex: string;
  opType: 'index' | 'create';
  /** `conflicts: proceed`: count version conflicts and go on (default abort). */
  proceedOnConflicts: boolean;
  maxDocs: number | null;
  refresh: boolean;
}

/** ES `BulkByScrollTask.Status` counters (also the body of a finished reindex, with `took` etc.). */
export interface ReindexStatus {
  total: number;
  updated: number;
  created: number;
  deleted: number;
  batches: number;
  version_conflicts: number;
  noops: number;
  retries: { bulk: number; search: number };
  throttled_millis: number;
  requests_per_second: number;
  throttled_until_millis: number;
}

/** The response body of `POST /_reindex` (`BulkByScrollResponse`). */
export interface ReindexResponse extends ReindexStatus {
  took: number;
  timed_out: boolean;
  failures: unknown[];
}

/**
 * Parses the `_reindex` body (`source {index, query, size}`, `dest {index, op_type}`, `conflicts`,
 * `max_docs`).
 * @throws EsError 400 for what ES rejects (missing source or dest index, unknown keys, remote sources).
 */
export function parseReindexBody(body: unknown, params: URLSearchParams): ReindexSpec {
  if (!isObject(body)) throw parsingException(`Expected [START_OBJECT] but found [${tokenName(body)}]`);
  const errors: string[] = [];
  const source = isObject(body.source) ? body.source : {};
  const dest = isObject(body.dest) ? body.dest : {};
  for (const k of Object.keys(body)) {
    if (!['source', 'dest', 'conflicts', 'max_docs', 'size', 'script'].includes(k)) throw parsingException(`[reindex] unknown field [${k}]`);
  }
  if (body.script !== undefined) throw illegalArgument('[script] in reindex is not supported by Folio yet');
  for (const k of Object.keys(source)) {
    if (!['index', 'query', 'size', '_source', 'sort'].includes(k)) {
      throw illegalArgument(k === 'remote' ? 'reindex from [remote] is not supported by Folio yet' : `[${k}] in reindex [source] is not supported by Folio yet`);
    }
  }
  const index = Array.isArray(source.index) ? source.index.join(',') : source.index;
  if (typeof index !== 'string' || index === '') errors.push('use _all if you really want to copy from all existing indexes');
  if (typeof dest.index !== 'string' || dest.index === '') errors.push('index must be specified');
  const opType = dest.op_type ?? 'index';
  if (opType !== 'index' && opType !== 'create') throw illegalArgument(`opType must be 'create' or 'index', found: [${String(opType)}]`);
  const size = source.size ?? DEFAULT_REINDEX_BATCH;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) errors.push(`search size must be greater than 0 but was [${String(size)}]`);
  const conflicts = body.conflicts ?? params.get('conflicts') ?? 'abort';
  if (conflicts !== 'abort' && conflicts !== 'proceed') throw illegalArgument(`conflicts may only be "proceed" or "abort" but was [${String(conflicts)}]`);
  const maxDocsRaw = body.max_docs ?? body.size ?? params.get('max_docs');
  const maxDocs = maxDocsRaw === undefined || maxDocsRaw === null ? null : Number(maxDocsRaw);
  if (maxDocs !== null && (!Number.isInteger(maxDocs) || maxDocs < 1)) errors.push(`maxDocs should be greater than 0 if the request is limited to some number of documents or -1 if it isn't but it was [${String(maxDocsRaw)}]`);
  if (errors.length > 0) throw validationFailed(errors);
  return {
    sourceIndex: index as string,
    query: source.query ?? { match_all: {} },
    batchSize: size as number,
    destIndex: dest.index as string,
    opType,
    proceedOnConflicts: conflicts === 'proceed',
    maxDocs,
    refresh: params.has('refresh') && params.get('refresh') !== 'false',
  };
}

/** A fresh status (all counters 0). */
export function emptyStatus(): ReindexStatus {
  return {
    total: 0, updated: 0, created: 0, deleted: 0, batches: 0, version_conflicts: 0, noops: 0,
    retries: { bulk: 0, search: 0 }, throttled_millis: 0, requests_per_second: -1, throttled_until_millis: 0,
  };
}

/**
 * Runs a reindex to the end, updating `status` after every batch (what `GET /_tasks/{id}` shows).
 * Bulk failures other than version conflicts stop the copy and are reported in `failures`, as ES.
 * @throws EsError for a missing source index (404) or a source whose shards cannot be read.
 */
export async function runReindex(spec: ReindexSpec, deps: { search: SearchDeps; write: WriteDeps }, status: ReindexStatus = emptyStatus()): Promise<ReindexResponse> {
  const startedAt = Date.now();
  const { search } = deps;
  const indices = await resolveIndices(spec.sourceIndex, search.view);
  const targets = (await Promise.all(indices.map(async (i) => search.view.targets(await search.view.get(i))))).flat();
  const ctx = { client: search.client, dfsCache: search.dfsCache, signal: new AbortController().signal, deadline: Date.now() + search.defaultTimeoutMs };
  const opened = await openContexts(targets, 'pit', 5 * 60_000, ctx);
  if (opened.failures.length > 0) throw allFailedError('query', opened.failures);
  const pitId = encodePitId({ indices, shards: opened.shards });
  const failures: unknown[] = [];
  try {
    let after: SortValue[] | null = null;
    let copied = 0;
    for (;;) {
      const size = spec.maxDocs === null ? spec.batchSize : Math.min(spec.batchSize, spec.maxDocs - copied);
      if (size <= 0) break;
      const body = {
        size,
        query: spec.query,
        sort: [{ _shard_doc: 'asc' }],
        track_total_hits: true,
        pit: { id: pitId, keep_alive: PIT_KEEP_ALIVE },
        ...(after ? { search_after: after } : {}),
      };
      const { body: res } = await searchWithSnapshot(
        { indexExpression: undefined, params: new URLSearchParams({ allow_partial_search_results: 'false' }), body, path: '/_reindex', signal: ctx.signal },
        search,
      );
      const total = res.hits.total;
      if (status.batches === 0 && total !== undefined) status.total = Math.min(typeof total === 'number' ? total : total.value, spec.maxDocs ?? Infinity);
      const hits = res.hits.hits;
      if (hits.length === 0) break;
      // An exact sort text (respond.ts) goes back as the double the shards compare.
      after = hits[hits.length - 1].sort?.map((v) => (v instanceof RawJson ? Number(v.text) : v)) ?? null;
      // The destination stores each source's exact text, as ES's reindex copies the source bytes.
      const items: BulkItem[] = hits.map((h) => ({
        action: spec.opType, index: spec.destIndex, id: h._id, routing: undefined,
        source: (h._source?.parse() ?? {}) as Record<string, unknown>, sourceText: h._source?.text ?? '{}',
      }));
      const bulk = await executeBulk(items, 'false', deps.write);
      status.batches++;
      copied += hits.length;
      for (const item of bulk.items) {
        const r = Object.values(item)[0] as { status: number; result?: string; error?: unknown; _id?: string; _index?: string };
        if (r.result === 'created') status.created++;
        else if (r.result === 'updated') status.updated++;
        else if (r.result === 'noop') status.noops++;
        else if (r.status === 409) {
          status.version_conflicts++;
          if (!spec.proceedOnConflicts) failures.push({ index: r._index, id: r._id, cause: r.error, status: 409 });
        } else failures.push({ index: r._index, id: r._id, cause: r.error, status: r.status });
      }
      if (failures.length > 0 || hits.length < size) break;
    }
  } finally {
    await closeContexts(opened.shards, search.client, 10_000);
  }
  if (spec.refresh) {
    const dest = await search.view.get(spec.destIndex).catch(() => null);
    if (dest) {
      const byNode = inSyncCopiesByNode(dest);
      await Promise.all([...byNode].map(([node, shards]) => search.client.call(node, `${INTERNAL_PREFIX}/refresh`, { index: spec.destIndex, shards }, { timeoutMs: 60_000 })));
    }
  }
  if (failures.length > 0 && failures.every((f) => (f as { status: number }).status === 409) && spec.proceedOnConflicts) failures.length = 0;
  return { took: Date.now() - startedAt, timed_out: false, ...status, failures };
}

/** Thrown when `GET /_tasks/{id}` names no task (ES's text). */
export function taskNotFound(id: string): EsError {
  return new EsError(404, 'resource_not_found_exception', `task [${id}] isn't running and hasn't stored its results`);
}
