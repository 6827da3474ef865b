/**
 * A shard copy's operation counters since its node started, what `GET /_stats` reports per shard:
 * ES `IndexingStats` (`index_total`, `index_failed`, `delete_total`, `noop_update_total`), `GetStats`
 * (`total`, `exists_total`, `missing_total`), `SearchStats` (`query_total`, `fetch_total`; the
 * node's search contexts count `scroll_total` and `open_contexts`), `RefreshStats.total` and `FlushStats.total`. Counts only (Folio keeps no
 * per-operation times): one increment per operation, nothing per document read.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-stats.html
 */

import type { ShardCounters } from '../../protocol/metadata.ts';

/** Zeroed counters. */
export function newShardCounters(): ShardCounters {
  return {
    indexTotal: 0,
    indexFailed: 0,
    deleteTotal: 0,
    noopUpdateTotal: 0,
    getTotal: 0,
    getExists: 0,
    getMissing: 0,
    queryTotal: 0,
    fetchTotal: 0,
    refreshTotal: 0,
    flushTotal: 0,
  };
}
