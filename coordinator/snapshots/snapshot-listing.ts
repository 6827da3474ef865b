/**
 * The order and window of `GET /_snapshot/{repo}/{snap}` (ES `GetSnapshotsRequest`'s `sort`,
 * `order`, `offset` and `size`): snapshots sorted by a key, ties broken by name then repository,
 * then the window taken; `total` counts every match, `remaining` those past the window.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/get-snapshot-api.html#get-snapshot-api-query-params
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/admin/cluster/snapshots/get/SnapshotSortKey.java
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { parseIntParam } from '../rest/params.ts';
import type { SnapshotInfo } from '../../shared/snapshots/repository-layout.ts';
import type { RunningSnapshot } from './snapshot-responses.ts';

/** A snapshot and its repository, as listed. */
export interface ListedSnapshot {
  repository: string;
  info: SnapshotInfo | RunningSnapshot;
}

/** ES `SnapshotSortKey` values. */
const SORT_KEYS = ['start_time', 'name', 'duration', 'index_count', 'shard_count', 'failed_shard_count', 'repository'] as const;
type SortKey = (typeof SORT_KEYS)[number];

/** The listing options of the query string. */
export interface ListingOptions {
  sort: SortKey;
  desc: boolean;
  offset: number;
  /** -1: all. */
  size: number;
}

/**
 * Parses `sort`, `order`, `offset` and `size`.
 * @throws EsError 400 `illegal_argument_exception` for an unknown sort key or order, a negative offset, or a size below -1 or 0
 */
export function listingOptions(q: (name: string) => string | undefined): ListingOptions {
  const sort = q('sort') ?? 'start_time';
  if (!(SORT_KEYS as readonly string[]).includes(sort)) throw illegalArgument(`unknown sort key [${sort}]`);
  const order = q('order') ?? 'asc';
  if (order !== 'asc' && order !== 'desc') throw illegalArgument(`unknown order [${order}]`);
  const offset = q('offset') === undefined ? 0 : parseIntParam('offset', q('offset')!);
  if (offset < 0) throw illegalArgument('offset must be >= 0');
  const size = q('size') === undefined ? -1 : parseIntParam('size', q('size')!);
  if (size === 0 || size < -1) throw illegalArgument('size must be -1 or greater than 0');
  return { sort: sort as SortKey, desc: order === 'desc', offset, size };
}

function keyOf(s: ListedSnapshot, key: SortKey): number | string {
  const i = s.info;
  const done = 'state' in i;
  switch (key) {
    case 'start_time':
      return i.start_time_in_millis;
    case 'name':
      return i.snapshot;
    case 'duration':
      return done ? i.end_time_in_millis - i.start_time_in_millis : Date.now() - i.start_time_in_millis;
    case 'index_count':
      return i.indices.length;
    case 'shard_count':
      return done ? i.shards.total : i.shards;
    case 'failed_shard_count':
      return done ? i.shards.failed : 0;
    case 'repository':
      return s.repository;
  }
}

function compare(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The snapshots in the requested order and window, with `total` and `remaining`. */
export function listSnapshots(all: readonly ListedSnapshot[], o: ListingOptions): { page: ListedSnapshot[]; total: number; remaining: number } {
  const sorted = [...all].sort((a, b) => {
    const c = compare(keyOf(a, o.sort), keyOf(b, o.sort)) || compare(a.info.snapshot, b.info.snapshot) || compare(a.repository, b.repository);
    return o.desc ? -c : c;
  });
  const from = sorted.slice(o.offset);
  const page = o.size < 0 ? from : from.slice(0, o.size);
  return { page, total: all.length, remaining: from.length - page.length };
}
