/**
 * Explicitly opened search contexts of a shard node: point-in-time readers (`POST /{index}/_pit`)
 * and scroll readers (`?scroll=`). Each context pins one refresh {@link Generation} of one shard
 * until it is closed or its keep-alive runs out; every use may renew the keep-alive. Unlike the
 * shard's own retention of generations (the 60 s search keep-alive of multi-phase searches), a
 * context lives as long as its owner asks and is counted against a per-node limit:
 * - scroll: `search.max_open_scroll_context` (ES default 500, per node, one per shard context),
 *   exceeding it is ES's 429 `too_many_scroll_contexts_exception`;
 * - PIT: `search.max_open_pit_context` (OpenSearch default 300; ES has no limit), exceeding it is
 *   OpenSearch's 429 `rejected_execution_exception`.
 * A scroll context also keeps the scroll's position: the full sort values of the last hit the
 * scroll returned, which the coordinator records after each batch ({@link SearchContexts.advance})
 * and every later batch starts after, so a scroll id names a context that moves forward whichever
 * coordinator serves it and whichever of its ids is sent (ES keeps `lastEmittedDoc` in its
 * `ScrollContext` and returns the same scroll id for every batch).
 * Expired contexts are dropped lazily, on every call into the registry.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/SearchService.java
 * @see https://github.com/opensearch-project/OpenSearch/blob/main/server/src/main/java/org/opensearch/search/SearchService.java
 */
import { EsError, searchContextMissing } from '../protocol/errors.ts';
import type { ListedPit } from '../protocol/search-contexts.ts';
import type { SortValue } from '../protocol/sort.ts';
import type { Generation } from './engine/generation.ts';

/** What a context is for (they are limited separately). */
export type ContextKind = 'pit' | 'scroll';

/** ES `search.max_open_scroll_context` default. */
export const DEFAULT_MAX_OPEN_SCROLL_CONTEXT = 500;
/** OpenSearch `search.max_open_pit_context` default. */
export const DEFAULT_MAX_OPEN_PIT_CONTEXT = 300;
/**
 * Folio `search.max_open_snapshot_context` default: past refresh generations a node retains for
 * `Folio-Snapshot` tokens and multi-phase searches (a normal load retains about one per shard per
 * refresh within the 60 s search keep-alive).
 */
export const DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT = 1000;

/** Per-node limits on open contexts (counted per shard context, as ES does). */
export interface ContextLimits {
  maxOpenScrollContext: number;
  maxOpenPitContext: number;
  /** Past generations retained on the node beyond which pinning one more answers 429 (default {@link DEFAULT_MAX_OPEN_SNAPSHOT_CONTEXT}). */
  maxOpenSnapshotContext?: number;
}

/**
 * The 429 for pinning a past generation while the node retains more than `limit` of them, shaped
 * as ES's scroll-context limit error (Folio setting `search.max_open_snapshot_context`).
 */
export function tooManySnapshotContexts(limit: number): EsError {
  return new EsError(
    429,
    'rejected_execution_exception',
    `Trying to create too many snapshot contexts. Must be less than or equal to: [${limit}]. ` +
      'This limit can be set by changing the [search.max_open_snapshot_context] setting.',
  );
}

interface OpenContext {
  id: number;
  kind: ContextKind;
  index: string;
  shard: number;
  gen: Generation;
  keepAliveMs: number;
  expiresAt: number;
  /** Scroll position: sort values of the last hit returned (null before the first batch). */
  after: SortValue[] | null;
  /** Batches recorded so far; an advance names the one it read, so a stale advance is ignored. */
  seq: number;
  /** A PIT context: the PIT it belongs to, once the coordinator named it ({@link SearchContexts.labelPit}). */
  pit?: ListedPit;
}

/** A scroll context's position: start after `after` (null: from the start); `seq` numbers it. */
export interface ScrollPosition {
  after: SortValue[] | null;
  seq: number;
}

/** The registry of open contexts of one shard node. */
export class SearchContexts {
  private readonly contexts = new Map<number, OpenContext>();
  private nextId = 1;
  private readonly now: () => number;
  limits: ContextLimits;

  constructor(limits: ContextLimits, now: () => number = Date.now) {
    this.limits = { ...limits };
    this.now = now;
  }

  /** Scroll contexts closed or expired so far, per `index\0shard` (ES `scroll_total`). */
  private readonly scrollsDone = new Map<string, number>();

  private sweep(): void {
    const t = this.now();
    for (const [id, c] of this.contexts) if (c.expiresAt <= t) this.drop(id, c);
  }

  private drop(id: number, c: OpenContext): void {
    this.contexts.delete(id);
    if (c.kind !== 'scroll') return;
    const key = `${c.index}\u0000${c.shard}`;
    this.scrollsDone.set(key, (this.scrollsDone.get(key) ?? 0) + 1);
  }

  /**
   * A shard's search context figures for `GET /_stats`: its open contexts (PIT and scroll, ES
   * `open_contexts`) and the scroll contexts it closed or let expire (ES `scroll_total`).
   */
  shardStats(index: string, shard: number): { openContexts: number; scrollTotal: number } {
    this.sweep();
    let open = 0;
    for (const c of this.contexts.values()) if (c.index === index && c.shard === shard) open++;
    return { openContexts: open, scrollTotal: this.scrollsDone.get(`${index}\u0000${shard}`) ?? 0 };
  }

  /** Number of open (unexpired) contexts of a kind. */
  count(kind: ContextKind): number {
    this.sweep();
    let n = 0;
    for (const c of this.contexts.values()) if (c.kind === kind) n++;
    return n;
  }

  /**
   * Opens a context pinning `gen` (of `index`/`shard`) for `keepAliveMs`.
   * @returns the node-local context id (positive, never reused by this process).
   * @throws EsError 429 when the kind's limit is reached (ES's / OpenSearch's exact texts).
   */
  open(kind: ContextKind, index: string, shard: number, gen: Generation, keepAliveMs: number): number {
    if (kind === 'scroll' && this.count('scroll') >= this.limits.maxOpenScrollContext) {
      throw new EsError(
        429,
        'too_many_scroll_contexts_exception',
        `Trying to create too many scroll contexts. Must be less than or equal to: [${this.limits.maxOpenScrollContext}]. ` +
          'This limit can be set by changing the [search.max_open_scroll_context] setting.',
      );
    }
    if (kind === 'pit' && this.count('pit') >= this.limits.maxOpenPitContext) {
      throw new EsError(
        429,
        'rejected_execution_exception',
        `Trying to create too many Point In Time contexts. Must be less than or equal to: [${this.limits.maxOpenPitContext}]. ` +
          'This limit can be set by changing the [search.max_open_pit_context] setting.',
      );
    }
    const id = this.nextId++;
    this.contexts.set(id, { id, kind, index, shard, gen, keepAliveMs, expiresAt: this.now() + keepAliveMs, after: null, seq: 0 });
    return id;
  }

  /**
   * The generation of context `id`, which must belong to `index`/`shard`; renews its keep-alive
   * (to `keepAliveMs` when given, else to its own).
   * @throws EsError 404 `search_context_missing_exception` for an unknown, expired or foreign id.
   */
  use(index: string, shard: number, id: number, keepAliveMs?: number): Generation {
    this.sweep();
    const c = this.contexts.get(id);
    if (!c || c.index !== index || c.shard !== shard) throw searchContextMissing(id);
    if (keepAliveMs !== undefined) c.keepAliveMs = keepAliveMs;
    c.expiresAt = this.now() + c.keepAliveMs;
    return c.gen;
  }

  /**
   * The scroll position of context `id` (of `index`/`shard`), read by a batch's query phase. Does not renew.
   * @throws EsError 404 `search_context_missing_exception` for an unknown, expired or foreign id.
   */
  position(index: string, shard: number, id: number): ScrollPosition {
    this.sweep();
    const c = this.contexts.get(id);
    if (!c || c.index !== index || c.shard !== shard) throw searchContextMissing(id);
    return { after: c.after, seq: c.seq };
  }

  /**
   * Records that the batch which read position `seq` returned hits up to `after`: the context's
   * next batch starts after it. A batch that read an older position (a concurrent batch of the
   * same scroll already advanced it) changes nothing, so the position never moves back.
   * @returns false when the context is gone or the advance was stale.
   */
  advance(index: string, shard: number, id: number, seq: number, after: SortValue[]): boolean {
    this.sweep();
    const c = this.contexts.get(id);
    if (!c || c.index !== index || c.shard !== shard || c.seq !== seq) return false;
    c.after = after;
    c.seq++;
    return true;
  }

  /** A generation of `index`/`shard` pinned by some open context, or undefined. Does not renew. */
  pinned(index: string, shard: number, generation: number): Generation | undefined {
    this.sweep();
    for (const c of this.contexts.values()) {
      if (c.index === index && c.shard === shard && c.gen.id === generation) return c.gen;
    }
    return undefined;
  }

  /** Records which PIT the listed contexts belong to (unknown ids are skipped). @returns how many were labelled. */
  labelPit(ids: readonly number[], pit: ListedPit): number {
    this.sweep();
    let n = 0;
    for (const id of ids) {
      const c = this.contexts.get(id);
      if (c?.kind !== 'pit') continue;
      c.pit = pit;
      n++;
    }
    return n;
  }

  /** The PITs of the open, labelled PIT contexts, once per PIT. */
  listPits(): ListedPit[] {
    this.sweep();
    const out = new Map<string, ListedPit>();
    for (const c of this.contexts.values()) if (c.kind === 'pit' && c.pit) out.set(c.pit.pitId, c.pit);
    return [...out.values()];
  }

  /** Closes the listed contexts. @returns how many were open. */
  close(ids: readonly number[]): number {
    this.sweep();
    let n = 0;
    for (const id of ids) {
      const c = this.contexts.get(id);
      if (!c) continue;
      this.drop(id, c);
      n++;
    }
    return n;
  }

  /** Closes every context of a kind (`DELETE /_search/scroll/_all`). @returns how many were open. */
  closeAll(kind: ContextKind): number {
    this.sweep();
    let n = 0;
    for (const [id, c] of this.contexts) {
      if (c.kind === kind) {
        this.drop(id, c);
        n++;
      }
    }
    return n;
  }
}
