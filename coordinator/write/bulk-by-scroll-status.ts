/**
 * The status of a bulk-by-scroll run (`_reindex`, `_update_by_query`, `_delete_by_query`), ES's
 * `BulkByScrollTask.Status`: each walk's counters, their sum (and per-slice list) in ES's key order,
 * the fields each REST action shows, and the cancellation that stops the walks (bulk-by-scroll.ts)
 * and cuts short a throttle wait. `GET /_tasks/{id}` and the action's response read it.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/reindex/BulkByScrollTask.java
 */

/** ES's `reason_cancelled` of a task cancelled through `POST /_tasks/{id}/_cancel`. */
export const CANCELLED_BY_USER = 'by user request';

/** Counters of one walk, ES's `BulkByScrollTask.Status` fields. */
export interface BulkByScrollCounters {
  total: number;
  updated: number;
  created: number;
  deleted: number;
  batches: number;
  version_conflicts: number;
  noops: number;
  /** ES counts batches retried after a rejection; Folio writes each batch once (a dynamic mapping race no longer fails a batch: documents.ts), so both stay 0. */
  retries: { bulk: number; search: number };
  throttled_millis: number;
  /** -1 = unthrottled. */
  requests_per_second: number;
  throttled_until_millis: number;
}

/** A fresh set of counters (all 0, unthrottled). */
export function emptyCounters(): BulkByScrollCounters {
  return {
    total: 0,
    updated: 0,
    created: 0,
    deleted: 0,
    batches: 0,
    version_conflicts: 0,
    noops: 0,
    retries: { bulk: 0, search: 0 },
    throttled_millis: 0,
    requests_per_second: -1,
    throttled_until_millis: 0,
  };
}

/** Which counters a REST action shows (ES's `INCLUDE_CREATED`/`INCLUDE_UPDATED` response params). */
export interface StatusFields {
  created: boolean;
  updated: boolean;
}

/** What `_reindex` shows; `_update_by_query` hides `created`, `_delete_by_query` both. */
export const REINDEX_FIELDS: StatusFields = { created: true, updated: true };

/**
 * The live state of a run, shared with its task (`GET /_tasks/{id}` reads {@link status}): the
 * counters of each slice, and the cancellation.
 */
export class BulkByScrollProgress {
  /** One entry per slice (one for an unsliced walk). */
  workers: BulkByScrollCounters[] = [emptyCounters()];
  sliced = false;
  cancelled: string | null = null;
  private readonly fields: StatusFields;
  private readonly wakers = new Set<() => void>();

  constructor(fields: StatusFields) {
    this.fields = fields;
  }

  /** Cancels the run: every walk stops before its next batch (and a throttle wait ends at once). */
  cancel(reason = CANCELLED_BY_USER): void {
    this.cancelled ??= reason;
    for (const wake of this.wakers) wake();
  }

  /** Waits `ms`, or less when cancelled. */
  sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.cancelled !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  /** ES's `BulkByScrollTask.Status` as JSON, in ES's key order: the sums, then `slices` when sliced. */
  status(): Record<string, unknown> {
    const sum = emptyCounters();
    for (const w of this.workers) {
      sum.total += w.total;
      sum.updated += w.updated;
      sum.created += w.created;
      sum.deleted += w.deleted;
      sum.batches += w.batches;
      sum.version_conflicts += w.version_conflicts;
      sum.noops += w.noops;
      sum.retries.bulk += w.retries.bulk;
      sum.retries.search += w.retries.search;
      sum.throttled_millis += w.throttled_millis;
      sum.throttled_until_millis = Math.max(sum.throttled_until_millis, w.throttled_until_millis);
    }
    const rps = this.workers.map((w) => w.requests_per_second);
    sum.requests_per_second = rps.some((r) => r === -1) ? -1 : rps.reduce((a, b) => a + b, 0);
    const out = this.render(sum);
    if (this.cancelled !== null) out.canceled = this.cancelled;
    if (this.sliced) out.slices = this.workers.map((w, i) => ({ slice_id: i, ...this.render(w) }));
    return moveToEnd(out, ['canceled', 'throttled_until_millis', 'slices']);
  }

  private render(c: BulkByScrollCounters): Record<string, unknown> {
    return {
      total: c.total,
      ...(this.fields.updated ? { updated: c.updated } : {}),
      ...(this.fields.created ? { created: c.created } : {}),
      deleted: c.deleted,
      batches: c.batches,
      version_conflicts: c.version_conflicts,
      noops: c.noops,
      retries: { ...c.retries },
      throttled_millis: c.throttled_millis,
      requests_per_second: c.requests_per_second,
      throttled_until_millis: c.throttled_until_millis,
    };
  }
}

/** `obj` with `keys` (those present) moved to the end, in that order. */
function moveToEnd(obj: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!keys.includes(k)) out[k] = v;
  for (const k of keys) if (k in obj) out[k] = obj[k];
  return out;
}
