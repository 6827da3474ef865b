/**
 * Where a search's time went: the {@link PhaseClock} laps the recipe's phases (feeding the
 * `folio_search_phase_duration_seconds` histogram and `profile`), and with `profile: true` the
 * {@link ShardProfiler} records the wall time of every shard call as the coordinator saw it.
 * {@link buildProfile} shapes both like ES's Profile API: `profile.shards[]` with
 * `id: "[node][index][shard]"`, `searches[0].query[]` (one entry per query-side round: dfs, query,
 * select/sample, select/range) and `fetch`, plus a Folio `coordinator` section (merge and phases).
 * Times are wall times measured on the coordinator, network included, in nanoseconds.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-profile.html
 */
import type { ShardTarget } from '../cluster/index-view.ts';

/** The phases of the search recipe (search.ts); `select` replaces query + merge for a deep page. */
export type SearchPhase = 'parse' | 'plan' | 'query' | 'select' | 'merge' | 'aggregate' | 'fetch' | 'respond';

/** Receives each phase's duration in seconds (the phase histogram of coordinator/metrics.ts). */
export type PhaseObserver = (phase: SearchPhase, seconds: number) => void;

/** Laps the phases of one search: each {@link PhaseClock.lap} closes the phase since the last lap. */
export class PhaseClock {
  /** Nanoseconds per phase of this search (a phase lapped twice adds up). */
  readonly nanos: Partial<Record<SearchPhase, number>> = {};
  private last = performance.now();
  private readonly observe: PhaseObserver | undefined;

  constructor(observe?: PhaseObserver) {
    this.observe = observe;
  }

  /** Ends `phase` now: records and reports the time since the previous lap (or construction). */
  lap(phase: SearchPhase): void {
    const now = performance.now();
    const ms = now - this.last;
    this.last = now;
    this.nanos[phase] = (this.nanos[phase] ?? 0) + toNanos(ms);
    this.observe?.(phase, ms / 1000);
  }
}

/** One shard call in the profile (ES's query-profile entry shape; `breakdown` is empty). */
export interface ShardCallProfile {
  /** Always `ShardCall`: the coordinator times the call, not the shard's Lucene-like internals. */
  type: 'ShardCall';
  /** The internal endpoint: `dfs`, `query`, `select/sample`, `select/range`. */
  description: string;
  time_in_nanos: number;
  breakdown: Record<string, number>;
}

/** One shard of `profile.shards` (ES's field names; `searches` has exactly one element). */
export interface ShardProfileBody {
  /** `[node][index][shard]`, as ES. */
  id: string;
  node_id: string;
  shard_id: number;
  index: string;
  searches: { query: ShardCallProfile[]; rewrite_time: number; collector: unknown[] }[];
  /** The fetch call (absent when the page had no hits of this shard or `_source: false`). */
  fetch?: { type: 'fetch'; description: string; time_in_nanos: number; breakdown: Record<string, number>; children: unknown[] };
}

/** The `profile` section of a `_search` response. */
export interface ProfileBody {
  shards: ShardProfileBody[];
  /** Folio extension: the k-way merge and every phase of the recipe, in nanoseconds. */
  coordinator: { merge_time_in_nanos: number; phases_in_nanos: Partial<Record<SearchPhase, number>> };
}

interface ShardRecord {
  target: ShardTarget;
  node: string;
  query: ShardCallProfile[];
  fetchNanos: number | null;
  /** The fetch happened inside the query call (fetch-phase.ts `fusesFetch`). */
  fused?: boolean;
}

/** `profile.shards[].fetch.description` of a fetch done inside the query call (its time is the query call's). */
export const FUSED_FETCH_DESCRIPTION = 'fused into the query call';

/** Collects the shard calls of one profiled search, by position in the plan's target list. */
export class ShardProfiler {
  private readonly shards = new Map<number, ShardRecord>();

  /**
   * Records one call of `endpoint` (`query`, `fetch`, …; the internal path's tail) to the shard at
   * plan position `shardIndex`, which took `ms` on the coordinator; `node` is the node's name.
   */
  record(shardIndex: number, target: ShardTarget, node: string, endpoint: string, ms: number): void {
    let r = this.shards.get(shardIndex);
    if (!r) this.shards.set(shardIndex, (r = { target, node, query: [], fetchNanos: null }));
    if (endpoint === 'fetch') r.fetchNanos = (r.fetchNanos ?? 0) + toNanos(ms);
    else r.query.push({ type: 'ShardCall', description: endpoint, time_in_nanos: toNanos(ms), breakdown: {} });
  }

  /** Marks the shard at `shardIndex` as fetched by its query call (a fetch entry of 0 ns, described as fused). */
  recordFusedFetch(shardIndex: number): void {
    const r = this.shards.get(shardIndex);
    if (r) r.fused = true;
  }

  /** The shards in ES's `profile.shards` shape, ordered by id (as ES sorts them). */
  shardBodies(): ShardProfileBody[] {
    const out = [...this.shards.values()].map((r): ShardProfileBody => {
      const body: ShardProfileBody = {
        id: `[${r.node}][${r.target.index}][${r.target.shard}]`,
        node_id: r.node,
        shard_id: r.target.shard,
        index: r.target.index,
        searches: [{ query: r.query, rewrite_time: 0, collector: [] }],
      };
      if (r.fetchNanos !== null) body.fetch = { type: 'fetch', description: '', time_in_nanos: r.fetchNanos, breakdown: {}, children: [] };
      else if (r.fused) body.fetch = { type: 'fetch', description: FUSED_FETCH_DESCRIPTION, time_in_nanos: 0, breakdown: {}, children: [] };
      return body;
    });
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/** The `profile` section from a search's shard calls and phase laps. */
export function buildProfile(shards: ShardProfiler, clock: PhaseClock): ProfileBody {
  return { shards: shards.shardBodies(), coordinator: { merge_time_in_nanos: clock.nanos.merge ?? 0, phases_in_nanos: { ...clock.nanos } } };
}

function toNanos(ms: number): number {
  return Math.round(ms * 1e6);
}
