/**
 * The machinery ES shares between `_reindex`, `_delete_by_query` and `_update_by_query`
 * (`AbstractAsyncBulkByScrollAction`): read the matching documents batch after batch from one
 * consistent snapshot, turn each batch into bulk items, write them through the ordinary write path,
 * and count what happened (`BulkByScrollTask.Status`: bulk-by-scroll-status.ts).
 *
 * The snapshot is a point in time over the source shards, walked in `_shard_doc` order with
 * `search_after` (constant memory; ES uses a scroll). With `slices` the walk is split into that
 * many sliced walks of the same PIT (protocol/slice.ts) run in parallel, each with its share of
 * `max_docs` and `requests_per_second`, their counters summed in the response and listed in
 * `slices` (ES's `BulkByScrollParallelizationHelper`). Between batches a walk waits as
 * `requests_per_second` asks (ES's throttle: the next batch starts `batch size / rps` seconds
 * after the previous one started) and stops when its task is cancelled.
 * See docs/sliced-walks-and-by-query.md.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-delete-by-query.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/reindex/BulkByScrollTask.java
 */
import { illegalArgument, type ErrorCause } from '../../protocol/errors.ts';
import { rpc } from '../../protocol/rpc.ts';
import type { SliceSpec } from '../../protocol/slice.ts';
import type { SortValue } from '../../protocol/sort.ts';
import type { BulkItem } from '../rest/bulk-parse.ts';
import { executeBulk, type WriteDeps } from './documents.ts';
import { writeIndexName } from '../cluster/aliases/alias-targets.ts';
import { resolveSearchScope } from '../cluster/index-expression.ts';
import { INDICES_OPTIONS } from '../cluster/indices-options.ts';
import { inSyncCopiesByNode } from '../cluster/index-view.ts';
import { closeContexts, openContexts } from '../search/contexts.ts';
import { encodePitId } from '../search/cursor-ids.ts';
import { phaseContext } from '../search/phase-context.ts';
import type { SearchHitBody } from '../search/respond.ts';
import { searchWithSnapshot, type SearchDeps } from '../search/search.ts';
import { allFailedError } from '../search/shard-failures.ts';
import { emptyCounters, type BulkByScrollCounters, type BulkByScrollProgress } from './bulk-by-scroll-status.ts';

/** ES's default batch size (`scroll_size`, reindex `source.size`). */
export const DEFAULT_SCROLL_SIZE = 1000;
/** ES's `AUTO_SLICE_CEILING`: `slices=auto` uses one slice per shard, at most this many. */
export const AUTO_SLICE_CEILING = 20;
/** Keep-alive of the walk's point in time, renewed by every batch. */
const PIT_KEEP_ALIVE = '5m';

/** What to read: the source indices, query and batch size, and an explicit `slice` of the body. */
export interface ScrollSource {
  /** Index expression (comma list, wildcards). */
  index: string;
  /** The query, in the ES query DSL (undefined: the one `searchParams` give, `q=`, or `match_all`). */
  query: unknown;
  /** Search URL parameters of the walk's searches (`q`, `df`, `default_operator`, …). */
  searchParams?: Record<string, string>;
  batchSize: number;
  /** Read `_source` (reindex, update_by_query) or not (delete_by_query). */
  withSource: boolean;
  /** Manual slicing (`slice` in the body): this walk reads only that slice. */
  slice?: SliceSpec;
  /** Hits carry `_seq_no` and `_primary_term` (for writes conditional on them, as ES's by-query writes). */
  seqNoPrimaryTerm?: boolean;
}

/** A bulk-by-scroll request as the engine runs it. */
export interface BulkByScrollSpec {
  source: ScrollSource;
  /** At most this many documents (null = all). */
  maxDocs: number | null;
  /** `conflicts: proceed`: count version conflicts and go on (default: abort after the batch). */
  proceedOnConflicts: boolean;
  /** Parallel sliced walks: a number ≥ 1, or `auto` (one per source shard, at most {@link AUTO_SLICE_CEILING}). */
  slices: number | 'auto';
  /** Batches per second × batch size, i.e. documents per second; Infinity = unthrottled. */
  requestsPerSecond: number;
  /** Refresh the written indices when done (`?refresh`). */
  refresh: boolean;
}

/** A bulk item failure, ES's `BulkItemResponse.Failure` in a response (`{index, id, cause, status}`). */
export interface BulkFailure {
  index: string | undefined;
  id: string | undefined;
  cause: unknown;
  status: number;
}

/** The response body of a bulk-by-scroll action (`BulkByScrollResponse`), before its status fields are rendered. */
export interface BulkByScrollResult {
  took: number;
  timedOut: boolean;
  failures: BulkFailure[];
}

/**
 * The routing a hit was indexed with, which its write must use again (ES: the scroll hit's
 * `_routing` becomes the request's routing; reindex's `dest.routing` defaults to `keep`).
 */
export function hitRouting(hit: SearchHitBody): string | undefined {
  return hit._routing;
}

/** Turns one hit into the bulk item to write (null: nothing to write for it). */
export type HitToItem = (hit: SearchHitBody) => BulkItem | null;

/** Services the engine uses. */
export interface BulkByScrollDeps {
  search: SearchDeps;
  write: WriteDeps;
}

/**
 * `slices=auto`: one slice per shard of the source, the fewest shards of its indices, at most
 * {@link AUTO_SLICE_CEILING} (ES `BulkByScrollParallelizationHelper.countSlicesBasedOnShards`).
 */
function autoSlices(shardCounts: readonly number[]): number {
  return Math.max(1, Math.min(AUTO_SLICE_CEILING, ...shardCounts));
}

/**
 * Runs a bulk-by-scroll action to the end, updating `progress` after every batch.
 * Bulk failures other than version conflicts (and conflicts unless `proceedOnConflicts`) stop the
 * walk after their batch and are reported in `failures`, as ES.
 * @throws EsError for a missing source index (404), a bad query, or a search that fails on a shard
 *   (ES fails the action when its scroll fails).
 */
export async function runBulkByScroll(
  spec: BulkByScrollSpec,
  deps: BulkByScrollDeps,
  toItem: HitToItem,
  progress: BulkByScrollProgress,
): Promise<BulkByScrollResult> {
  const startedAt = Date.now();
  const { search } = deps;
  // The source may be an alias: the PIT keeps its filters, so every walk reads through them (ES).
  const { indices, filters } = await resolveSearchScope(spec.source.index, search.view, INDICES_OPTIONS.search);
  const views = await Promise.all(indices.map((i) => search.view.get(i)));
  const targets = views.flatMap((v) => search.view.targets(v));
  const slices = spec.source.slice ? 1 : spec.slices === 'auto' ? autoSlices(views.map((v) => v.metadata.numberOfShards)) : spec.slices;
  const ctx = phaseContext(search.client, { timeoutMs: search.defaultTimeoutMs });
  const opened = await openContexts(targets, 'pit', 5 * 60_000, ctx);
  if (opened.failures.length > 0) throw allFailedError('query', opened.failures);
  const pitId = encodePitId({ indices, shards: opened.shards, filters: Object.fromEntries(filters) });
  const failures: BulkFailure[] = [];
  const written = new Set<string>();
  progress.workers = Array.from({ length: slices }, () => emptyCounters());
  progress.sliced = slices > 1;
  // When one walk throws, the others stop before their next batch; the first error is the run's.
  const halt = { stopped: false };
  try {
    const outcomes = await Promise.allSettled(
      progress.workers.map((counters, id) => {
        const slice = spec.source.slice ?? (slices > 1 ? { id, max: slices } : undefined);
        const maxDocs = spec.maxDocs === null ? null : slices > 1 ? Math.floor(spec.maxDocs / slices) : spec.maxDocs;
        const rps = spec.requestsPerSecond / slices;
        counters.requests_per_second = Number.isFinite(rps) ? rps : -1;
        const sliceSpec = { ...spec, maxDocs, requestsPerSecond: rps };
        return walk(sliceSpec, pitId, slice, deps, toItem, counters, progress, failures, written, halt).catch((err: unknown) => {
          halt.stopped = true;
          throw err;
        });
      }),
    );
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    await closeContexts(opened.shards, search.client, 10_000);
  }
  if (spec.refresh) await refreshIndices([...written], deps.search);
  if (spec.proceedOnConflicts) {
    const kept = failures.filter((f) => f.status !== 409);
    failures.length = 0;
    failures.push(...kept);
  }
  return { took: Date.now() - startedAt, timedOut: false, failures };
}

/** One (possibly sliced) walk of the PIT: batch after batch until done, failed or cancelled. */
async function walk(
  spec: BulkByScrollSpec,
  pitId: string,
  slice: SliceSpec | undefined,
  deps: BulkByScrollDeps,
  toItem: HitToItem,
  counters: BulkByScrollCounters,
  progress: BulkByScrollProgress,
  failures: BulkFailure[],
  written: Set<string>,
  halt: { stopped: boolean },
): Promise<void> {
  let after: SortValue[] | null = null;
  let done = 0;
  while (progress.cancelled === null && !halt.stopped) {
    const size = spec.maxDocs === null ? spec.source.batchSize : Math.min(spec.source.batchSize, spec.maxDocs - done);
    if (size <= 0) return;
    const batchStartedAt = Date.now();
    const body = {
      size,
      ...(spec.source.query !== undefined ? { query: spec.source.query } : {}),
      sort: [{ _shard_doc: 'asc' }],
      track_total_hits: counters.batches === 0,
      _source: spec.source.withSource,
      ...(spec.source.seqNoPrimaryTerm ? { seq_no_primary_term: true } : {}),
      pit: { id: pitId, keep_alive: PIT_KEEP_ALIVE },
      ...(slice ? { slice } : {}),
      ...(after ? { search_after: after } : {}),
    };
    const params = new URLSearchParams({ ...spec.source.searchParams, allow_partial_search_results: 'false' });
    const { body: res } = await searchWithSnapshot(
      { indexExpression: undefined, params, body, path: '/_search', signal: new AbortController().signal },
      deps.search,
    );
    const total = res.hits.total;
    if (counters.batches === 0 && total !== undefined) counters.total = Math.min(typeof total === 'number' ? total : total.value, spec.maxDocs ?? Infinity);
    const hits = res.hits.hits;
    if (hits.length === 0) return;
    after = (hits[hits.length - 1].sort as SortValue[] | undefined) ?? null; // `_shard_doc` values: plain numbers
    done += hits.length;
    const items: BulkItem[] = [];
    for (const h of hits) {
      // ES `AbstractAsyncBulkByScrollAction.accept`: a hit without `_source` (`_source.enabled: false`) cannot be rewritten.
      if (spec.source.withSource && h._source === undefined) throw illegalArgument(`[${h._index}][${h._id}] didn't store _source`);
      const item = toItem(h);
      if (item) items.push(item);
      else counters.noops++;
    }
    counters.batches++;
    if (items.length > 0) {
      for (const item of items) if (item.index !== undefined) written.add(item.index);
      countBulk(await executeBulk(items, 'false', deps.write), counters, spec.proceedOnConflicts, failures);
    }
    if (failures.length > 0 || hits.length < size) return;
    await throttle(spec.requestsPerSecond, batchStartedAt, hits.length, counters, progress);
  }
}

/** Counts a batch's bulk items into `counters`; failures (and conflicts when aborting) into `failures`. */
function countBulk(bulk: Awaited<ReturnType<typeof executeBulk>>, counters: BulkByScrollCounters, proceedOnConflicts: boolean, failures: BulkFailure[]): void {
  for (const item of bulk.items) {
    const r = Object.values(item)[0] as { status: number; result?: string; error?: ErrorCause; _id?: string; _index?: string };
    if (r.result === 'created') counters.created++;
    else if (r.result === 'updated') counters.updated++;
    else if (r.result === 'deleted') counters.deleted++;
    else if (r.result === 'noop' || r.result === 'not_found')
      counters.noops++; // ES counts a delete that found nothing as a noop
    else if (r.status === 409) {
      counters.version_conflicts++;
      if (!proceedOnConflicts) failures.push({ index: r._index, id: r._id, cause: r.error, status: 409 });
    } else failures.push({ index: r._index, id: r._id, cause: r.error, status: r.status });
  }
}

/**
 * ES's throttle between batches: the next batch starts `batchSize / requestsPerSecond` seconds
 * after this one started; the wait is counted in `throttled_millis` and shown meanwhile as
 * `throttled_until_millis`.
 */
async function throttle(
  requestsPerSecond: number,
  batchStartedAt: number,
  batchSize: number,
  counters: BulkByScrollCounters,
  progress: BulkByScrollProgress,
): Promise<void> {
  if (!Number.isFinite(requestsPerSecond)) return;
  const waitMs = Math.max(0, Math.round(batchStartedAt + (batchSize / requestsPerSecond) * 1000 - Date.now()));
  if (waitMs === 0) return;
  counters.throttled_until_millis = waitMs;
  const started = Date.now();
  await progress.sleep(waitMs);
  counters.throttled_millis += Date.now() - started;
  counters.throttled_until_millis = 0;
}

/** Refreshes every in-sync copy of the written indices (an alias: its write index), ES `?refresh` of a bulk-by-scroll action. */
async function refreshIndices(indices: readonly string[], search: SearchDeps): Promise<void> {
  await Promise.all(
    indices.map(async (written) => {
      const index = await writeIndexName(search.view, written)
        .then((n) => search.view.get(n))
        .catch(() => null);
      if (!index) return;
      const name = index.metadata.name;
      const byNode = inSyncCopiesByNode(index);
      await Promise.all([...byNode].map(([node, shards]) => search.client.rpc(node, rpc.refresh, { index: name, shards }, { timeoutMs: 60_000 })));
    }),
  );
}

/**
 * The HTTP status of a finished action (`BulkIndexByScrollResponseContentListener.getStatus`): 200,
 * 408 when timed out, else the highest status among its failures.
 */
export function responseStatus(result: { timedOut: boolean; failures: readonly { status: number }[] }): number {
  let status = result.timedOut ? 408 : 200;
  for (const f of result.failures) if (f.status > status) status = f.status;
  return status;
}

/**
 * The response body (`BulkByScrollResponse.toXContent`): `took`, `timed_out`, the status fields,
 * then `failures`.
 */
export function responseBody(result: BulkByScrollResult, progress: BulkByScrollProgress): Record<string, unknown> {
  return { took: result.took, timed_out: result.timedOut, ...progress.status(), failures: result.failures };
}
