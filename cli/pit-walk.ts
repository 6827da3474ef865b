/**
 * Walks every hit of an index with a point in time and `search_after`: open a PIT, page with the
 * requested sort (default `_shard_doc`, the cheapest total order inside a PIT; with another
 * sort the PIT's implicit `_shard_doc` tiebreaker keeps the walk exact), close the PIT.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/paginate-search-results.html#search-after
 */
import type { Agent } from 'undici';
import { callOk } from './http.ts';

/** A search hit as the walk yields it. */
export interface Hit {
  _id: string;
  _index?: string;
  _source?: unknown;
  sort?: unknown[];
}

/** Options of {@link walkIndex}. */
export interface WalkOptions {
  index: string;
  /** A query clause (default `match_all`). */
  query?: unknown;
  /** ES sort clauses (default `["_shard_doc"]`). */
  sort?: unknown[];
  /** Hits per page (default 1000). */
  pageSize?: number;
  /** PIT keep-alive between pages (default `5m`). */
  keepAlive?: string;
  /** Called once with the total hit count (from the first page). */
  onTotal?: (total: number) => void;
}

/** Parses `--sort`: `field`, `field:desc`, comma-separated, into ES sort clauses. */
export function parseSortFlag(flag: string): unknown[] {
  return flag.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const [field, order] = s.split(':');
    if (order !== undefined && order !== 'asc' && order !== 'desc') throw new Error(`--sort [${s}]: the order must be asc or desc`);
    return order ? { [field]: order } : field;
  });
}

/** Parses `--query`: a JSON query clause, or a search body whose `query` is used. */
export function parseQueryFlag(flag: string): unknown {
  let q: unknown;
  try {
    q = JSON.parse(flag);
  } catch (err) {
    throw new Error(`--query is not JSON: ${(err as Error).message}`);
  }
  if (typeof q !== 'object' || q === null || Array.isArray(q)) throw new Error('--query must be a JSON object');
  return 'query' in q ? (q as { query: unknown }).query : q;
}

/** Yields every hit of `opts.index` in sort order; the PIT is closed however the walk ends. */
export async function* walkIndex(dispatcher: Agent, base: string, opts: WalkOptions): AsyncGenerator<Hit> {
  const keepAlive = opts.keepAlive ?? '5m';
  const opened = await callOk<{ id: string }>(dispatcher, 'POST', base, `/${encodeURIComponent(opts.index)}/_pit?keep_alive=${keepAlive}`);
  let pitId = opened.id;
  try {
    let after: unknown[] | undefined;
    for (let page = 0; ; page++) {
      const body: Record<string, unknown> = {
        size: opts.pageSize ?? 1000,
        query: opts.query ?? { match_all: {} },
        sort: opts.sort ?? ['_shard_doc'],
        pit: { id: pitId, keep_alive: keepAlive },
        track_total_hits: page === 0,
      };
      if (after) body.search_after = after;
      const res = await callOk<{ pit_id?: string; hits: { total?: { value: number }; hits: Hit[] } }>(dispatcher, 'POST', base, '/_search', body);
      if (res.pit_id) pitId = res.pit_id;
      if (page === 0 && res.hits.total) opts.onTotal?.(res.hits.total.value);
      const hits = res.hits.hits;
      if (hits.length === 0) return;
      yield* hits;
      after = hits[hits.length - 1].sort;
      if (!after) throw new Error('the search returned hits without sort values; cannot continue with search_after');
    }
  } finally {
    await callOk(dispatcher, 'DELETE', base, '/_pit', { id: pitId }).catch(() => undefined);
  }
}
