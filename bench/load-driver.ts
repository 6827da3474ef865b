/**
 * A closed-loop load driver: `clients` workers each run one operation after the other until the
 * duration or the request budget is spent, then stop by themselves. Records every latency, so
 * percentiles are exact. A warm-up phase (not recorded) runs first.
 */

/** One operation; `worker` is the worker's index (e.g. to pick its own connection). */
export type Operation = (worker: number) => Promise<void>;

/** Options of {@link closedLoop}. */
export interface LoopOptions {
  clients: number;
  /** Measured phase length, ms (a request in flight at the end still completes). */
  durationMs: number;
  /** Upper bound on measured operations (all workers together). */
  maxRequests?: number;
  /** Warm-up length, ms (default min(1000, durationMs / 5)); warm-up also stops after 50 ops per worker. */
  warmupMs?: number;
}

/** Figures of one measured run. */
export interface LoopResult {
  clients: number;
  requests: number;
  errors: number;
  /** First error message, if any. */
  firstError?: string;
  elapsedMs: number;
  /** Successful operations per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

/** The p-quantile (0..1) of sorted values, nearest-rank. */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** Runs `op` with `clients` workers in a closed loop; never throws for a failed operation. */
export async function closedLoop(op: Operation, opts: LoopOptions): Promise<LoopResult> {
  const maxRequests = opts.maxRequests ?? 1_000_000;
  const warmupMs = opts.warmupMs ?? Math.min(1000, opts.durationMs / 5);
  let errors = 0;
  let firstError: string | undefined;
  const fail = (err: unknown) => {
    errors++;
    firstError ??= err instanceof Error ? err.message : String(err);
  };
  const warmEnd = performance.now() + warmupMs;
  await Promise.all(
    Array.from({ length: opts.clients }, async (_, w) => {
      for (let n = 0; n < 50 && performance.now() < warmEnd; n++) await op(w).catch(fail);
    }),
  );
  errors = 0;
  firstError = undefined;
  const latencies: number[] = [];
  let issued = 0;
  const start = performance.now();
  const end = start + opts.durationMs;
  await Promise.all(
    Array.from({ length: opts.clients }, async (_, w) => {
      while (performance.now() < end && issued < maxRequests) {
        issued++;
        const t0 = performance.now();
        try {
          await op(w);
          latencies.push(performance.now() - t0);
        } catch (err) {
          fail(err);
        }
      }
    }),
  );
  const elapsedMs = performance.now() - start;
  const sorted = Float64Array.from(latencies).sort();
  return {
    clients: opts.clients,
    requests: latencies.length,
    errors,
    firstError,
    elapsedMs,
    rps: latencies.length / (elapsedMs / 1000),
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
  };
}
