/**
 * Long synchronous loops cut into slices that yield to the event loop. Node runs every request of a
 * process on one thread, so a loop over 100,000 bulk items that runs in one task holds every other
 * request, `/livez` included, until it ends (docs/reliability.md, the abuse suite).
 * @see https://nodejs.org/en/learn/asynchronous-work/dont-block-the-event-loop
 */

/** Work per slice before yielding, in ms: about what one event-loop turn may take. */
export const DEFAULT_SLICE_MS = 10;

/** Lets I/O, timers and other requests run before the caller goes on (`setImmediate`). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock for one sliced loop: call `await slices.tick()` once per item; it yields once about
 * `sliceMs` of work has passed since the last yield, and costs a counter increment otherwise (the time
 * is read every 64 ticks).
 * @example const slices = new EventLoopSlices(); for (const item of items) { work(item); await slices.tick(); }
 */
export class EventLoopSlices {
  private readonly sliceMs: number;
  private started = performance.now();
  private count = 0;

  constructor(sliceMs = DEFAULT_SLICE_MS) {
    this.sliceMs = sliceMs;
  }

  /** Resolves at once within a slice; after a yield when the slice is used up. */
  tick(): Promise<void> | undefined {
    if ((++this.count & 63) !== 0 || performance.now() - this.started < this.sliceMs) return undefined;
    return yieldToEventLoop().then(() => {
      this.started = performance.now();
    });
  }
}
