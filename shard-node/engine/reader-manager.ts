/**
 * The generations one shard copy publishes and keeps for readers (Lucene's `ReaderManager`, ES's
 * `ElasticsearchReaderManager` with the searchers its search contexts hold): the current generation,
 * replaced at each refresh, and past ones retained by id for multi-phase searches, `Folio-Snapshot`
 * tokens and point-in-time readers until their keep-alive runs out.
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/index/ReaderManager.html
 */
import { searchContextMissing } from '../../protocol/errors.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import { Generation } from './generation.ts';
import type { SegmentView } from './segment-merge.ts';

/**
 * The id of a new shard's first generation: the start time in ms × 1,000. Generation ids name
 * snapshots across requests (fetch phase, dfs and sample caches, `Folio-Snapshot`, PIT), so a
 * restarted shard node must never reuse one: ids grow by one per refresh, and no shard refreshes
 * 1,000 times per millisecond, so ids stay above any earlier process's (and below 2^53 until 2255).
 */
export function firstGenerationId(nowMs: number): number {
  return Math.floor(nowMs) * 1000;
}

/** The current generation and the retained ones. */
export class ReaderManager {
  private current: Generation;
  private readonly retained = new Map<number, { gen: Generation; keepAliveMs: number; expiresAt: number }>();
  private readonly getMapping: () => Mapping;
  private readonly now: () => number;

  /** Starts with an empty generation of id {@link firstGenerationId}. */
  constructor(getMapping: () => Mapping, now: () => number) {
    this.getMapping = getMapping;
    this.now = now;
    this.current = new Generation(firstGenerationId(now()), [], getMapping);
  }

  /** The latest published generation. */
  get latest(): Generation {
    return this.current;
  }

  /** Publishes `views` as the new current generation (id + 1), and drops the retained ones that expired. */
  publish(views: readonly SegmentView[]): void {
    this.current = new Generation(this.current.id + 1, views, this.getMapping);
    this.expire();
  }

  private expire(): void {
    const t = this.now();
    for (const [id, r] of this.retained) if (r.expiresAt <= t) this.retained.delete(id);
  }

  /**
   * The current generation (no id), or a retained one by id. With `keepAliveMs`, the returned
   * generation is retained until `keepAliveMs` after this call (each acquire extends it).
   * @throws EsError 404 `search_context_missing_exception` for an unknown or expired id.
   */
  acquire(generation?: number, keepAliveMs?: number): Generation {
    this.expire();
    let gen: Generation;
    if (generation === undefined || generation === this.current.id) gen = this.current;
    else {
      const r = this.retained.get(generation);
      if (!r) throw searchContextMissing(generation);
      gen = r.gen;
      keepAliveMs ??= r.keepAliveMs;
    }
    if (keepAliveMs !== undefined) this.retained.set(gen.id, { gen, keepAliveMs, expiresAt: this.now() + keepAliveMs });
    return gen;
  }

  /** Retained generations other than the current one (what `Folio-Snapshot` tokens can keep alive), expired ones dropped first. */
  retainedPast(): number {
    this.expire();
    return this.retained.size - (this.retained.has(this.current.id) ? 1 : 0);
  }

  /** Stops retaining a generation (ES: close a PIT). Returns whether it was retained. */
  release(generation: number): boolean {
    return this.retained.delete(generation);
  }
}
