/**
 * The `_bulk` reply's items, built one at a time from what the write gathered ({@link BulkRun}):
 * ES's `BulkItemResponse` of each item, in request order, either its write's outcome (`_index`,
 * `_id`, `_version`, `result`, `_shards`, `_seq_no`, `_primary_term`, an update's `get`, `status`)
 * or its failure (`status`, `error`). A reply of 100,000 items is never held as 100,000 objects:
 * `sendJsonItemsSliced` (coordinator/http/http.ts) serializes each item as it builds it, so the
 * objects die young instead of waiting, promoted, for a major GC (docs/reliability.md, issue 11).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-bulk.html#bulk-api-response-body
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/bulk/BulkItemResponse.java
 */
import { EsError, toEsError } from '../../protocol/errors.ts';
import { EventLoopSlices } from '../../shared/event-loop-slices.ts';
import type { SourceFilter } from '../../protocol/search.ts';
import type { WriteResult } from '../../protocol/write.ts';
import { filterSourceText, RawJson } from '../../shared/raw-json.ts';
import type { BulkItem } from '../rest/bulk-parse.ts';
import type { BulkItems } from '../rest/bulk-items.ts';
import type { IndexView } from '../cluster/index-view.ts';
import type { ShardInfo } from './replication.ts';
import { parseUpdateBody, type UpdateBody } from './write-request.ts';

/** One item of the `_bulk` response: `{<action>: {...}}`. */
export type BulkResponseItem = Record<string, Record<string, unknown>>;

/** The `_bulk` response body. */
export interface BulkResponse {
  errors: boolean;
  took: number;
  items: BulkResponseItem[];
}

/**
 * Request-level defaults and options of a bulk (ES `BulkRequest`'s global parameters): the URL's
 * `pipeline` for `index`/`create` items without their own, and its `_source*` for `update` items'
 * `get` (an item's action line `_source` wins over it, and it over the update body's).
 */
export interface BulkOptions {
  pipeline?: string;
  fetchSource?: SourceFilter;
  /** Give each update item's `get._source` as the stored text ({@link RawJson}, for replies sent whole by `sendJson`), not parsed. */
  rawSources?: boolean;
}

/** What the shards answered for each of a bulk's items, by position in the request. */
export interface ShardWrites {
  /** The item's write result (a new object on each call), or null when it was not written. */
  result(p: number): WriteResult | null;
  /** The shard info of the item's shard write, or null when it was not written. */
  shardInfo(p: number): ShardInfo | null;
  /** Whether the item's shard refreshed because of the write (ES `forced_refresh`). */
  forcedRefresh(p: number): boolean;
}

/** Everything a bulk's reply items are built from, by the items' positions in the request. */
export interface BulkRun {
  /** The items, each with its `_id` (its own, or the one generated for it). */
  items: BulkItems;
  /** Each target index's view, or the error that fails its items. */
  views: ReadonlyMap<string, IndexView | EsError>;
  /** The items that failed before or at their shard's write, with their errors. */
  failed: ReadonlyMap<number, unknown>;
  /** The failed positions whose error names no index (ES reports it as thrown: `{type, reason}`). */
  bare: ReadonlySet<number>;
  writes: ShardWrites;
  opts: BulkOptions;
}

/** A bulk's reply, its items built on demand ({@link bulkResponseItem}). */
export interface BulkOutcome {
  errors: boolean;
  /** ms from the request's start to the end of its writes. */
  took: number;
  /** The number of items. */
  length: number;
  /** The reply item at position `i`, a new object on each call. */
  item(i: number): BulkResponseItem;
}

/** An update item's body, parsed (items built by the parser carry it; others are parsed here). */
export function updateBodyOf(item: BulkItem): UpdateBody {
  return item.update ?? parseUpdateBody(item.source ?? {});
}

/** The `_source` an update item answers with in its `get` (action line, then the request's, then the body's), or undefined. */
export function fetchSourceOf(item: BulkItem, opts: BulkOptions): SourceFilter | undefined {
  if (item.action !== 'update') return undefined;
  const filter = item.params?.fetchSource ?? opts.fetchSource ?? updateBodyOf(item).fetchSource;
  return filter === false ? undefined : filter; // ES `UpdateHelper.extractGetResult`: `_source: false` is no `get` at all
}

function errorOf(err: unknown): { type: string; reason: string; [k: string]: unknown } {
  const es = toEsError(err);
  return { type: es.type, reason: es.message, ...es.metadata, ...(es.causedBy ? { caused_by: es.causedBy } : {}) };
}

/**
 * ES `UpdateResponse`'s `get` (`GetResult.toXContentEmbedded`): `_seq_no`, `_primary_term`,
 * `found`, and the document's `_source` after the update, filtered as asked (absent when filtered out).
 */
function updateGet(r: WriteResult, filter: SourceFilter, raw: boolean): Record<string, unknown> {
  const get: Record<string, unknown> = { _seq_no: r._seq_no, _primary_term: r._primary_term, found: true };
  const text = filterSourceText(r.source!, filter);
  if (text !== undefined) get._source = raw ? new RawJson(text) : JSON.parse(text);
  return get;
}

/** Whether the item at `i`, written with result `r`, failed (its reply item has an `error`, and the reply `errors: true`). */
function itemFailed(run: BulkRun, i: number, r: WriteResult | null): boolean {
  return run.failed.has(i) || !r || Boolean(r.error);
}

/** The reply's `errors`: whether any item failed (in slices that yield to the event loop). */
export async function anyItemFailed(run: BulkRun): Promise<boolean> {
  if (run.failed.size > 0) return true;
  const slices = new EventLoopSlices();
  for (let i = 0; i < run.items.length; i++) {
    const pause = slices.tick();
    if (pause) await pause;
    if (itemFailed(run, i, run.writes.result(i))) return true;
  }
  return false;
}

/** The reply item of the item at position `i` of `run` (ES `BulkItemResponse.toXContent`). */
export function bulkResponseItem(run: BulkRun, i: number): BulkResponseItem {
  const { items, views, failed, bare, writes, opts } = run;
  const action = items.action(i);
  const index = items.index(i) ?? null;
  const view = index ? views.get(index) : undefined;
  // a closed index's error names its uuid (ES IndexClosedException); a missing index has none
  const uuid =
    view instanceof EsError ? (typeof view.metadata.index_uuid === 'string' ? view.metadata.index_uuid : '_na_') : view ? view.metadata.uuid : '_na_';
  const r = writes.result(i);
  if (itemFailed(run, i, r)) {
    const es = failed.has(i) ? toEsError(failed.get(i)) : null;
    const status = es?.status ?? r?.status ?? 500;
    const error = es ? errorOf(es) : r!.error!;
    return { [action]: { _index: index, _id: items.id(i), status, error: bare.has(i) ? error : { ...error, index_uuid: uuid, index } } };
  }
  const replicas = view && !(view instanceof EsError) ? view.metadata.numberOfReplicas : 0;
  const shards = writes.shardInfo(i) ?? { total: 1 + replicas, successful: 1, failed: 0 };
  const fetchSource = r!.source !== undefined ? fetchSourceOf(items.get(i), opts) : undefined;
  return {
    [action]: {
      _index: index,
      _id: r!._id,
      _version: r!._version,
      result: r!.result,
      ...(writes.forcedRefresh(i) ? { forced_refresh: true } : {}),
      _shards: shards,
      _seq_no: r!._seq_no,
      _primary_term: r!._primary_term,
      ...(fetchSource !== undefined ? { get: updateGet(r!, fetchSource, opts.rawSources === true) } : {}),
      status: r!.status,
    },
  };
}
