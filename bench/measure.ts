/**
 * Measures one task on one engine: sequential probes (warm-up, bytes per search from the
 * coordinator's `GET /_folio/stats`), then the closed loop at 1 client and at `clients` clients.
 * The many-client run is skipped when one request already takes longer than {@link SLOW_P50_MS}
 * (it would only queue, and deep pages at 32 in flight can take gigabytes in either engine).
 */
import { Pool } from 'undici';
import { closedLoop } from './load-driver.ts';
import type { LoopResult, Operation } from './load-driver.ts';
import { SCROLL_PAGES, SCROLL_PAGE_SIZE, scrollBody, scrollSphinx } from './tasks.ts';
import type { SphinxPeer } from './peer-sphinx.ts';

/** Above this 1-client p50 the many-client run is skipped. */
export const SLOW_P50_MS = 300;
/** At most this many probes, within the shape's `probeBudgetMs`. */
const MAX_PROBES = 20;

/** Durations and concurrency of one bench run. */
export interface RunShape {
  durationMs: number;
  warmupMs: number;
  clients: number;
  /** Probes stop after this long (at least one runs). */
  probeBudgetMs: number;
}

/** Figures of one engine on one task. */
export interface EngineFigures {
  one: LoopResult;
  many: LoopResult | null;
  /** Why `many` is missing. */
  manySkipped?: string;
}

/** Folio's shard call counters (`GET /_folio/stats`). */
export interface ShardStats {
  shard_calls: number;
  shard_response_bytes: number;
}

/**
 * The search path the bench sends: `request_cache=false`, so that a figure measures the search's
 * work, as Rally's tracks turn the request cache off for their search tasks (a `size: 0` count or
 * aggregation would otherwise be answered from ES's shard request cache after its first run).
 * `BENCH_REQUEST_CACHE=1` sends ES's default (the index setting decides) instead.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/shard-request-cache.html
 */
export function benchSearchPath(index: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.BENCH_REQUEST_CACHE === '1' ? `/${index}/_search` : `/${index}/_search?request_cache=false`;
}

/** A keep-alive client of the coordinator. */
export class FolioClient {
  readonly url: string;
  readonly index: string;
  private readonly pool: Pool;
  private readonly searchPath: string;

  constructor(url: string, index: string, connections: number) {
    this.url = url;
    this.index = index;
    this.pool = new Pool(url, { connections, keepAliveTimeout: 30_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
    this.searchPath = benchSearchPath(index);
  }

  /**
   * POSTs a search body (a JSON string) and returns the raw reply; throws on a non-200 status.
   * `params` replaces the bench's URL parameters ({@link benchSearchPath}): `''` sends none.
   */
  async searchRaw(body: string, params?: string): Promise<ArrayBuffer> {
    const path = params === undefined ? this.searchPath : `/${this.index}/_search${params === '' ? '' : `?${params}`}`;
    const res = await this.pool.request({ path, method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const buf = await res.body.arrayBuffer();
    if (res.statusCode !== 200) throw new Error(`search returned HTTP ${res.statusCode}: ${Buffer.from(buf).toString('utf8', 0, 500)}`);
    return buf;
  }

  /** POSTs a search body and returns the parsed reply. */
  async search<T = SearchReply>(body: Record<string, unknown>): Promise<T> {
    return JSON.parse(Buffer.from(await this.searchRaw(JSON.stringify(body))).toString('utf8')) as T;
  }

  /** Reads the shard call counters. */
  async stats(): Promise<ShardStats> {
    const res = await this.pool.request({ path: '/_folio/stats', method: 'GET' });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET /_folio/stats returned HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as ShardStats;
  }

  /** Closes the pool. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

/** The parts of a search reply the bench reads. */
export interface SearchReply {
  hits: { total: { value: number; relation: string }; hits: { _id: string; sort?: unknown[] }[] };
}

/** Runs `op` sequentially up to 20 times within `budgetMs`; returns how many ran. */
export async function probe(op: () => Promise<unknown>, budgetMs: number): Promise<number> {
  const end = performance.now() + budgetMs;
  let n = 0;
  while (n < MAX_PROBES && (n === 0 || performance.now() < end)) {
    await op();
    n++;
  }
  return n;
}

/** Options of {@link measureLoops} for operations that are not one search. */
export interface LoopShaping {
  /** Skip the many-client run above this 1-client p50 (default {@link SLOW_P50_MS}). */
  slowMs?: number;
  /** Bound on the many-client run's operations (e.g. one scroll per client). */
  manyMaxRequests?: number;
  /** Warm-up of the many-client run (default the shape's). */
  manyWarmupMs?: number;
}

/**
 * Shaping of the scroll task: the slow limit applies per page, and the many-client run is one
 * scroll per client with no warm-up (so it ends when the last of the concurrent scrolls ends).
 */
export function scrollShaping(clients: number): LoopShaping {
  return { slowMs: SLOW_P50_MS * SCROLL_PAGES, manyMaxRequests: clients, manyWarmupMs: 0 };
}

/** The 1-client run, then the many-client run unless the first is slower than the limit. */
export async function measureLoops(op: Operation, shape: RunShape, shaping: LoopShaping = {}): Promise<EngineFigures> {
  const slowMs = shaping.slowMs ?? SLOW_P50_MS;
  const one = await closedLoop(op, { clients: 1, durationMs: shape.durationMs, warmupMs: shape.warmupMs });
  if (one.requests === 0 || one.p50Ms > slowMs) {
    return { one, many: null, manySkipped: one.requests === 0 ? 'no successful request' : `1-client p50 > ${slowMs} ms` };
  }
  const many = await closedLoop(op, {
    clients: shape.clients,
    durationMs: shape.durationMs,
    warmupMs: shaping.manyWarmupMs ?? shape.warmupMs,
    maxRequests: shaping.manyMaxRequests,
  });
  return { one, many };
}

/** Probes a Folio search (bytes and calls per search from the counters), then measures it. */
export async function measureFolioSearch(
  client: FolioClient,
  body: Record<string, unknown>,
  shape: RunShape,
): Promise<{ figures: EngineFigures; bytesPerSearch: number; callsPerSearch: number }> {
  const text = JSON.stringify(body);
  const before = await client.stats();
  const n = await probe(() => client.searchRaw(text), shape.probeBudgetMs);
  const after = await client.stats();
  const figures = await measureLoops(() => client.searchRaw(text).then(() => {}), shape);
  return {
    figures,
    bytesPerSearch: (after.shard_response_bytes - before.shard_response_bytes) / n,
    callsPerSearch: (after.shard_calls - before.shard_calls) / n,
  };
}

/** One Folio scroll: {@link SCROLL_PAGES} pages of {@link SCROLL_PAGE_SIZE} via `search_after`. */
export async function folioScroll(client: FolioClient, tieField: string): Promise<void> {
  let after: unknown[] | null = null;
  for (let page = 0; page < SCROLL_PAGES; page++) {
    const reply: SearchReply = await client.search(scrollBody(tieField, after));
    const hits = reply.hits.hits;
    if (hits.length !== SCROLL_PAGE_SIZE) throw new Error(`scroll page ${page} has ${hits.length} hits`);
    after = hits[hits.length - 1].sort ?? null;
  }
}

/** One Sphinx scroll over connection `worker`: the same pages, keyed on (population, id). */
export async function sphinxScroll(peer: SphinxPeer, worker: number): Promise<void> {
  let after: { population: number; id: number } | null = null;
  for (let page = 0; page < SCROLL_PAGES; page++) {
    const rows = await peer.query(worker, scrollSphinx(after));
    if (rows.length !== SCROLL_PAGE_SIZE) throw new Error(`sphinx scroll page ${page} has ${rows.length} rows`);
    const last = rows[rows.length - 1];
    after = { population: Number(last.population), id: Number(last.id) };
  }
}

/** Probes and measures a SphinxQL statement (the same page as a Folio task). */
export async function measureSphinx(peer: SphinxPeer, sql: string, shape: RunShape): Promise<EngineFigures> {
  await probe(() => peer.query(0, sql), shape.probeBudgetMs);
  return measureLoops((w) => peer.query(w, sql).then(() => {}), shape);
}
