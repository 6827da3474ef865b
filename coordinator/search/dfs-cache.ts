/**
 * Global term statistics for scoring (ES `dfs_query_then_fetch`, Folio's default): gathered from
 * every shard so that BM25 idf and avgdl, and so the ranking, do not depend on how documents are
 * split over shards. Cached per (shards, query) together with the refresh generation of each
 * shard they describe; a shard that refreshed since answers `statsStale` and the stats are rebuilt.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-search.html#search-type
 */
import type { Query } from '../../protocol/query-ast.ts';
import { ownValue, setOwn } from '../../shared/own-keys.ts';
import type { ScoringStatistics } from '../../protocol/search.ts';
import { LRUCache } from 'lru-cache';
import { byteBoundedOptions, type CacheBounds } from '../../shared/bounded-cache.ts';

/** Cached statistics and the generation of each target shard (`index/shard` keys) they were read at. */
export interface DfsEntry {
  stats: ScoringStatistics;
  generations: Map<string, number>;
  /** The copy (node) each generation belongs to: a search reusing the entry reads those copies. */
  nodes: Map<string, number>;
}

/** True when the query has clauses whose score depends on term statistics (so dfs matters). */
export function queryUsesTermStatistics(q: Query): boolean {
  switch (q.kind) {
    case 'match':
    case 'match_phrase':
    case 'multi_match':
    case 'term':
    case 'match_bool_prefix':
    case 'match_phrase_prefix':
      return true;
    case 'fuzzy':
      return !['constant_score', 'constant_score_boolean', 'constant_score_blended'].includes(q.fuzzy.rewrite ?? '');
    case 'prefix':
    case 'wildcard':
      return q.rewrite !== undefined && /^(scoring_boolean|top_terms_[0-9]|top_terms_blended_freqs_)/.test(q.rewrite);
    case 'multi_field':
      return queryUsesTermStatistics(q.query);
    case 'bool':
      return [...q.must, ...q.should].some(queryUsesTermStatistics);
    case 'dis_max':
      return q.queries.some(queryUsesTermStatistics);
    default:
      return false;
  }
}

/** Sums shard statistics into global ones (docFreq, totalTermFreq, docCount, sumTotalTermFreq). */
export function mergeStatistics(parts: readonly ScoringStatistics[]): ScoringStatistics {
  const out: ScoringStatistics = { terms: {}, fields: {} };
  for (const p of parts) {
    for (const [k, t] of Object.entries(p.terms)) {
      let cur = ownValue(out.terms, k);
      if (!cur) setOwn(out.terms, k, (cur = { docFreq: 0, totalTermFreq: 0 }));
      cur.docFreq += t.docFreq;
      cur.totalTermFreq += t.totalTermFreq;
    }
    for (const [k, f] of Object.entries(p.fields)) {
      let cur = ownValue(out.fields, k); // a field may be called `constructor` or `__proto__`
      if (!cur) setOwn(out.fields, k, (cur = { docCount: 0, sumTotalTermFreq: 0 }));
      cur.docCount += f.docCount;
      cur.sumTotalTermFreq += f.sumTotalTermFreq;
    }
  }
  return out;
}

/**
 * Bounds of the dfs cache: 16 MiB in all, 1 MiB per entry (key + statistics). The key holds the
 * whole query, so a query of a 100,000-term `terms` list is simply not cached.
 */
export const DFS_CACHE_BOUNDS: CacheBounds = { maxBytes: 16 * 1024 * 1024, maxEntryBytes: 1024 * 1024 };

/** An LRU of {@link DfsEntry} keyed by target shards + query, bounded in bytes (shared/bounded-cache.ts). */
export class DfsCache extends LRUCache<string, DfsEntry> {
  constructor(bounds: CacheBounds = DFS_CACHE_BOUNDS) {
    super(byteBoundedOptions<DfsEntry>(bounds));
  }

  /** Cache key for a query over a set of shards. */
  static key(shardKeys: readonly string[], query: Query): string {
    return shardKeys.join(',') + '\u0000' + JSON.stringify(query);
  }
}
