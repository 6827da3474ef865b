/**
 * When to flush: ES flushes a shard once its translog passes `index.translog.flush_threshold_size`
 * (512mb) or, in 8.x, when it is older than `index.translog.flush_threshold_age`. Folio checks every
 * shard store once a second against a smaller size threshold (flushes are cheap incremental folds
 * here, and a smaller translog keeps the disk footprint and the replay of superseded versions small)
 * and flushes a non-empty translog after an age limit.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-translog.html#translog-flush-threshold
 */
import type { Logger } from '../../shared/logger.ts';
import type { ShardStore } from './shard-store.ts';

/** Folio's default flush threshold: 64 MiB of translog per shard (ES: 512mb). */
export const DEFAULT_FLUSH_THRESHOLD_BYTES = 64 * 1024 * 1024;
/** Folio's default flush age: a non-empty translog is flushed after 5 minutes. */
export const DEFAULT_FLUSH_INTERVAL_MS = 5 * 60_000;
/** How often the policy looks at the stores. */
const CHECK_INTERVAL_MS = 1000;

/** Thresholds of {@link FlushPolicy}. */
export interface FlushPolicyOptions {
  /** Flush a shard once its translog holds this many bytes (default 64 MiB). */
  flushThresholdBytes?: number;
  /** Flush a non-empty translog this long after the last flush (default 5 min). */
  flushIntervalMs?: number;
}

/** True when a store with these counters should be flushed now. */
export function shouldFlush(stats: { translogOps: number; translogBytes: number; lastFlushAt: number }, opts: FlushPolicyOptions, now: number): boolean {
  if (stats.translogOps === 0) return false;
  if (stats.translogBytes >= (opts.flushThresholdBytes ?? DEFAULT_FLUSH_THRESHOLD_BYTES)) return true;
  return now - stats.lastFlushAt >= (opts.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
}

/** A timer that flushes the stores that pass a threshold, one flush per store at a time. */
export class FlushPolicy {
  private readonly opts: FlushPolicyOptions;
  private readonly stores: () => ShardStore[];
  private readonly log: Logger | undefined;
  private timer: NodeJS.Timeout | null = null;
  private readonly running = new Set<ShardStore>();
  private readonly onFlushed: ((store: ShardStore, seconds: number) => void) | undefined;

  /** `onFlushed` receives each automatic flush's duration (the `folio_flush_duration_seconds` histogram). */
  constructor(opts: FlushPolicyOptions, stores: () => ShardStore[], log?: Logger, onFlushed?: (store: ShardStore, seconds: number) => void) {
    this.opts = opts;
    this.stores = stores;
    this.log = log;
    this.onFlushed = onFlushed;
  }

  /** Starts checking (idempotent; the timer does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops checking; flushes in progress finish. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One pass over the stores. */
  check(now: number = Date.now()): void {
    for (const store of this.stores()) {
      if (this.running.has(store) || !shouldFlush(store.stats(), this.opts, now)) continue;
      this.running.add(store);
      const started = performance.now();
      store
        .flush()
        .then((ops) => {
          const ms = performance.now() - started;
          this.onFlushed?.(store, ms / 1000);
          this.log?.info({ path: store.path, ops, tookMs: Math.round(ms) }, 'flushed');
        })
        .catch((err: Error) => this.log?.error({ err, path: store.path }, 'flush failed'))
        .finally(() => this.running.delete(store));
    }
  }
}
