/**
 * One index's refresh scheduling on a shard node (ES `index.refresh_interval` and
 * `refresh=wait_for`): a timer that starts a sliced refresh of every shard copy with pending writes
 * each interval (an idle copy prunes a slice of old tombstones instead, `index.gc_deletes`), explicit
 * refreshes, and the `wait_for` waiters each refresh releases. The shard copies are the registry's
 * (shard-node/index-registry.ts), read when each tick runs.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules.html#index-refresh-interval-setting
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-refresh.html
 */
import type { Logger } from '../shared/logger.ts';
import { setLongInterval, type LongTimer } from '../shared/long-timer.ts';
import type { Shard } from './engine/shard.ts';
import { PRUNE_SLICE_MS } from './engine/tombstone-gc.ts';

/** Receives each refresh's duration in seconds (shard-node/metrics.ts). */
export type RefreshTiming = (index: string, seconds: number) => void;

/** See the module comment. */
export class IndexRefresher {
  private readonly index: string;
  private readonly shards: ReadonlyMap<number, Shard>;
  private readonly timing: RefreshTiming;
  private readonly log: Logger | undefined;
  private timer: LongTimer | null = null;
  /** Resolvers waiting for the next refresh of a shard (`?refresh=wait_for`). */
  private readonly waiters = new Map<number, (() => void)[]>();

  /** `shards`: the index's hosted copies by shard number (the registry's live map); `timing`: called after each refresh. */
  constructor(index: string, shards: ReadonlyMap<number, Shard>, timing: RefreshTiming, log?: Logger) {
    this.index = index;
    this.shards = shards;
    this.timing = timing;
    this.log = log;
  }

  /**
   * (Re)starts the periodic refresh every `intervalMs` (at least 50 ms; none when negative or when no
   * copy is hosted). Any length works (`refresh_interval: 25d`): Node's own timers would turn it
   * into 1 ms (shared/long-timer.ts). A tick starts a sliced refresh of every copy with pending
   * writes (one still sealing from the last tick is awaited first, `Shard.refreshSliced`).
   */
  schedule(intervalMs: number): void {
    this.timer?.clear();
    this.timer = null;
    if (intervalMs < 0 || this.shards.size === 0) return;
    this.timer = setLongInterval(
      () => {
        for (const [id, shard] of this.shards) {
          if (!shard.hasPendingWrites && !shard.refreshRunning) shard.maybePruneTombstones(PRUNE_SLICE_MS); // an idle shard collects its old tombstones too, a slice per tick
          this.refreshAndRelease(id, shard).catch((err: unknown) => this.log?.error({ err, index: this.index, shard: id }, 'periodic refresh failed'));
        }
      },
      Math.max(intervalMs, 50),
    ).unref();
  }

  /**
   * Refreshes `shard` (a no-op without pending writes) and then releases the `wait_for` waiters
   * registered before the refresh started: a waiter that arrives while it seals may have written
   * after its start, so it waits for the next one. Waiters are released even when the refresh
   * fails, rather than left hanging.
   */
  async refreshAndRelease(id: number, shard: Shard): Promise<void> {
    const waiters = this.waiters.get(id) ?? [];
    this.waiters.delete(id);
    try {
      if (shard.hasPendingWrites || shard.refreshRunning) {
        const started = performance.now();
        await shard.refreshSliced();
        this.timing(this.index, (performance.now() - started) / 1000);
      }
    } finally {
      for (const w of waiters) w();
    }
  }

  /** Resolves after the next refresh of shard `id` (ES `refresh=wait_for`). */
  waitForNext(id: number): Promise<void> {
    return new Promise((resolve) => {
      const list = this.waiters.get(id) ?? [];
      list.push(resolve);
      this.waiters.set(id, list);
    });
  }

  /** Releases the waiters of shard `id` (its copy is dropped here). */
  releaseShard(id: number): void {
    for (const w of this.waiters.get(id) ?? []) w();
    this.waiters.delete(id);
  }

  /** Stops the timer and releases every waiter (the index is no longer hosted here, or the node stops). */
  stop(): void {
    this.timer?.clear();
    this.timer = null;
    for (const waiters of this.waiters.values()) for (const w of waiters) w();
    this.waiters.clear();
  }
}
