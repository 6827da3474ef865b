/**
 * Walks every hit of an index with a point in time and `search_after`: open a PIT, page with the
 * requested sort (default `_shard_doc`, the cheapest total order inside a PIT; with another
 * sort the PIT's implicit `_shard_doc` tiebreaker keeps the walk exact), close the PIT.
 * With `slices` > 1 the PIT is walked by that many sliced walks at once (`slice: {id, max}`), which
 * together return every hit exactly once; their pages are yielded as they arrive, so the hits come
 * in no overall order (each slice's own hits keep the sort).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/paginate-search-results.html#search-after
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/point-in-time-api.html#search-slicing
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
  /** Sliced walks run in parallel (default 1: one walk). */
  slices?: number;
}

/** A search response page as the walk reads it. */
interface Page {
  pit_id?: string;
  hits: { total?: { value: number }; hits: Hit[] };
}

/** Parses `--sort`: `field`, `field:desc`, comma-separated, into ES sort clauses. */
export function parseSortFlag(flag: string): unknown[] {
  return flag
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
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
    throw new Error(`--query is not JSON: ${(err as Error).message}`, { cause: err });
  }
  if (typeof q !== 'object' || q === null || Array.isArray(q)) throw new Error('--query must be a JSON object');
  return 'query' in q ? q.query : q;
}

/**
 * Yields every hit of `opts.index` (in sort order, or with `slices` in each slice's order); the PIT
 * is closed however the walk ends.
 */
export async function* walkIndex(dispatcher: Agent, base: string, opts: WalkOptions): AsyncGenerator<Hit> {
  const keepAlive = opts.keepAlive ?? '5m';
  const opened = await callOk<{ id: string }>(dispatcher, 'POST', base, `/${encodeURIComponent(opts.index)}/_pit?keep_alive=${keepAlive}`);
  const pit = { id: opened.id };
  try {
    const slices = opts.slices ?? 1;
    if (slices <= 1) {
      for await (const page of walkPages(dispatcher, base, pit, opts, keepAlive, undefined, opts.onTotal)) yield* page;
      return;
    }
    if (opts.onTotal) {
      const counted = await callOk<Page>(dispatcher, 'POST', base, '/_search', {
        size: 0,
        query: opts.query ?? { match_all: {} },
        pit: { id: pit.id },
        track_total_hits: true,
      });
      if (counted.hits.total) opts.onTotal(counted.hits.total.value);
    }
    const walks = Array.from({ length: slices }, (_, id) => walkPages(dispatcher, base, pit, opts, keepAlive, { id, max: slices }));
    yield* mergeWalks(walks);
  } finally {
    await callOk(dispatcher, 'DELETE', base, '/_pit', { id: pit.id }).catch(() => undefined);
  }
}

/** One walk of the PIT (one slice of it, with `slice`), page after page. */
async function* walkPages(
  dispatcher: Agent,
  base: string,
  pit: { id: string },
  opts: WalkOptions,
  keepAlive: string,
  slice: { id: number; max: number } | undefined,
  onTotal?: (total: number) => void,
): AsyncGenerator<Hit[]> {
  let after: unknown[] | undefined;
  for (let page = 0; ; page++) {
    const body: Record<string, unknown> = {
      size: opts.pageSize ?? 1000,
      query: opts.query ?? { match_all: {} },
      sort: opts.sort ?? ['_shard_doc'],
      pit: { id: pit.id, keep_alive: keepAlive },
      track_total_hits: page === 0 && onTotal !== undefined,
    };
    if (slice) body.slice = slice;
    if (after) body.search_after = after;
    const res = await callOk<Page>(dispatcher, 'POST', base, '/_search', body);
    if (res.pit_id) pit.id = res.pit_id;
    if (page === 0 && res.hits.total) onTotal?.(res.hits.total.value);
    const hits = res.hits.hits;
    if (hits.length === 0) return;
    yield hits;
    after = hits[hits.length - 1].sort;
    if (!after) throw new Error('the search returned hits without sort values; cannot continue with search_after');
  }
}

/**
 * The hits of several walks as their pages arrive: each walk has at most one page request in
 * flight, so memory stays at one page per walk. When a walk fails, the others are stopped.
 */
async function* mergeWalks(walks: AsyncGenerator<Hit[]>[]): AsyncGenerator<Hit> {
  const pending = new Map<number, Promise<{ i: number; r: IteratorResult<Hit[]> }>>();
  const next = (i: number) => {
    const p = walks[i].next().then((r) => ({ i, r }));
    p.catch(() => undefined); // raced below; a page still in flight when the merge stops must not go unhandled
    pending.set(i, p);
  };
  walks.forEach((_, i) => next(i));
  try {
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values());
      if (r.done) {
        pending.delete(i);
        continue;
      }
      next(i);
      yield* r.value;
    }
  } finally {
    await Promise.allSettled(walks.map((w) => w.return(undefined)));
  }
}
