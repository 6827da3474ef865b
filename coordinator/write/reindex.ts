/**
 * `POST /_reindex`: copies the documents of `source.index` matching `source.query` into
 * `dest.index` through the ordinary write path. The source is read as ES reads it (a consistent
 * snapshot, batch after batch) with constant memory by the bulk-by-scroll engine shared with the
 * by-query APIs (bulk-by-scroll.ts): a point in time over the source shards, walked in `_shard_doc`
 * order with `search_after`, `source.size` hits per batch (default 1000), each batch one `_bulk`
 * into the destination; `slices` walks of the PIT in parallel, `requests_per_second` throttling.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-reindex.html
 */
import { EsError, illegalArgument, parsingException, validationFailed } from '../../protocol/errors.ts';
import { isObject, tokenName } from '../rest/params.ts';
import { javaString } from '../rest/mapping-parse.ts';
import { type SliceSpec } from '../../protocol/slice.ts';
import { parseSlice } from '../rest/slice-parse.ts';
import type { BulkItem } from '../rest/bulk-parse.ts';
import { DEFAULT_SCROLL_SIZE, hitRouting, responseBody, runBulkByScroll, type BulkByScrollDeps } from './bulk-by-scroll.ts';
import { BulkByScrollProgress, REINDEX_FIELDS, type BulkByScrollCounters } from './bulk-by-scroll-status.ts';
import { parseConflicts, parseMaxDocs, parseRefresh, parseRequestsPerSecond, parseSlicesParam } from '../rest/bulk-by-scroll-params.ts';
import type { SearchHitBody } from '../search/respond.ts';

/** ES's default `source.size` (scroll batch size) of a reindex. */
export const DEFAULT_REINDEX_BATCH = DEFAULT_SCROLL_SIZE;

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
  /** `?slices`: parallel sliced walks (1 = none), or `auto`. */
  slices: number | 'auto';
  /** `source.slice`: manual slicing, this reindex copies one slice. */
  slice?: SliceSpec;
  /** `?requests_per_second` (Infinity = unthrottled). */
  requestsPerSecond: number;
}

/** The response body of `POST /_reindex` (`BulkByScrollResponse`). */
export interface ReindexResponse extends Omit<BulkByScrollCounters, 'requests_per_second'> {
  took: number;
  timed_out: boolean;
  requests_per_second: number;
  slices?: unknown[];
  failures: unknown[];
}

/**
 * Parses the `_reindex` body (`source {index, query, size, slice}`, `dest {index, op_type}`,
 * `conflicts`, `max_docs`) and the common URL parameters (`slices`, `requests_per_second`,
 * `max_docs`, `refresh`).
 * @throws EsError 400 for what ES rejects (missing source or dest index, unknown keys, remote sources,
 *   manual and automatic slicing together).
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
    if (!['index', 'query', 'size', '_source', 'sort', 'slice'].includes(k)) {
      throw illegalArgument(
        k === 'remote' ? 'reindex from [remote] is not supported by Folio yet' : `[${k}] in reindex [source] is not supported by Folio yet`,
      );
    }
  }
  const index = Array.isArray(source.index) ? source.index.join(',') : source.index;
  if (typeof index !== 'string' || index === '') errors.push('use _all if you really want to copy from all existing indexes');
  if (typeof dest.index !== 'string' || dest.index === '') errors.push('index must be specified');
  const opType = dest.op_type ?? 'index';
  if (opType !== 'index' && opType !== 'create') throw illegalArgument(`opType must be 'create' or 'index', found: [${javaString(opType)}]`);
  const size = source.size ?? DEFAULT_REINDEX_BATCH;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) errors.push(`search size must be greater than 0 but was [${javaString(size)}]`);
  const proceedOnConflicts = parseConflicts(body.conflicts ?? params.get('conflicts') ?? undefined);
  const slices = parseSlicesParam(params.get('slices'));
  const maxDocs = parseMaxDocs(params.get('max_docs'), body.max_docs ?? body.size, slices);
  const slice = isObject(source.slice) ? parseSlice(source.slice) : undefined;
  if (source.slice !== undefined && !isObject(source.slice)) throw parsingException(`Unknown key for a ${tokenName(source.slice)} in [slice].`);
  if (slice && slices !== 1) errors.push("can't specify both manual and automatic slicing at the same time");
  if (errors.length > 0) throw validationFailed(errors);
  return {
    sourceIndex: index as string,
    query: source.query ?? { match_all: {} },
    batchSize: size as number,
    destIndex: dest.index as string,
    opType,
    proceedOnConflicts,
    maxDocs,
    refresh: parseRefresh(params.get('refresh')),
    slices,
    ...(slice ? { slice } : {}),
    requestsPerSecond: parseRequestsPerSecond(params.get('requests_per_second')),
  };
}

/**
 * Runs a reindex to the end through the bulk-by-scroll engine (bulk-by-scroll.ts), updating
 * `progress` after every batch (what `GET /_tasks/{id}` shows). Each source hit becomes an
 * `index` (or `create`) of its exact `_source` text into the destination, under its own `_id`.
 * @throws EsError for a missing source index (404) or a source whose shards cannot be read.
 */
export async function runReindex(spec: ReindexSpec, deps: BulkByScrollDeps, progress = new BulkByScrollProgress(REINDEX_FIELDS)): Promise<ReindexResponse> {
  const toItem = (h: SearchHitBody): BulkItem => ({
    action: spec.opType,
    index: spec.destIndex,
    id: h._id,
    routing: hitRouting(h),
    // The destination stores each source's exact text, as ES's reindex copies the source bytes,
    // and keeps its routing (ES `dest.routing` defaults to `keep`).
    source: (h._source?.parse() ?? {}) as Record<string, unknown>,
    sourceText: h._source?.text ?? '{}',
  });
  const result = await runBulkByScroll(
    {
      source: { index: spec.sourceIndex, query: spec.query, batchSize: spec.batchSize, withSource: true, ...(spec.slice ? { slice: spec.slice } : {}) },
      maxDocs: spec.maxDocs,
      proceedOnConflicts: spec.proceedOnConflicts,
      slices: spec.slices,
      requestsPerSecond: spec.requestsPerSecond,
      refresh: spec.refresh,
    },
    deps,
    toItem,
    progress,
  );
  return responseBody(result, progress) as unknown as ReindexResponse;
}

/** Thrown when `GET /_tasks/{id}` names no task (ES's text). */
export function taskNotFound(id: string): EsError {
  return new EsError(404, 'resource_not_found_exception', `task [${id}] isn't running and hasn't stored its results`);
}
