/**
 * Long computations written once, run either in one task or in event-loop slices. A computation is
 * a generator ({@link Steps}) that checks a {@link SliceClock} at cheap intervals and `yield`s where
 * it may be cut; {@link runAtOnce} drives it to the end in the calling task (the clock is never
 * due, so it never pauses), {@link runSliced} yields to the event loop whenever the clock says the
 * slice is used up. Both run the very same code, so a sliced result is the one-task result: what
 * keeps a node's `/livez` answering while it builds a sort order, seals a refresh or merges
 * segments (docs/reliability.md, the abuse suite).
 * @see https://nodejs.org/en/learn/asynchronous-work/dont-block-the-event-loop
 */
import { DEFAULT_SLICE_MS, yieldToEventLoop } from './event-loop-slices.ts';

/** A computation that may pause at each `yield` and returns `T` at the end. */
export type Steps<T> = Generator<void, T, void>;

/** Whether the running slice is used up; computations ask it every few thousand items of work. */
export interface SliceClock {
  due(): boolean;
}

/** The clock of a computation run in one task: never due. */
export const NEVER_DUE: SliceClock = { due: () => false };

/** How many items of a tight loop to run between two looks at the clock. */
export const CLOCK_EVERY = 1024;

/** Runs `work` to the end in the calling task. */
export function runAtOnce<T>(work: (clock: SliceClock) => Steps<T>): T {
  const it = work(NEVER_DUE);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs `work` in slices of about `sliceMs` of CPU, yielding to the event loop (`setImmediate`)
 * between them. With `sliceMs` 0 it yields at every check point (what tests use to cut a
 * computation everywhere it can be cut).
 */
export async function runSliced<T>(work: (clock: SliceClock) => Steps<T>, sliceMs = DEFAULT_SLICE_MS): Promise<T> {
  let started = performance.now();
  const clock: SliceClock = { due: () => performance.now() - started >= sliceMs };
  const it = work(clock);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    await yieldToEventLoop();
    started = performance.now();
  }
}

/** Elements sorted natively in one piece by {@link sortSteps} (about a millisecond of work). */
export const SORT_RUN = 16384;

/** `x` sorts before `y` as `TypedArray.prototype.sort` orders numbers (-0 before +0; no NaN expected). */
function numericLess(x: number, y: number): boolean {
  return x < y || (x === 0 && y === 0 && 1 / x < 1 / y);
}

/**
 * Sorts `a` in place into the order `a.sort(cmp)` gives (numeric ascending without `cmp`): runs of
 * {@link SORT_RUN} elements sorted natively, then merged pairwise pass by pass (stable), pausing
 * between runs and every {@link CLOCK_EVERY} merged elements when the clock is due. Elements that
 * compare equal are indistinguishable for numeric sorts, and `cmp` must be a total order (as every
 * caller's is: ties broken by ordinal), so the result equals the native sort's.
 */
export function* sortSteps<A extends Float64Array | Int32Array>(a: A, clock: SliceClock, cmp?: (x: number, y: number) => number): Steps<A> {
  const n = a.length;
  if (n <= SORT_RUN) {
    if (cmp) a.sort(cmp);
    else a.sort();
    return a;
  }
  for (let lo = 0; lo < n; lo += SORT_RUN) {
    const run = a.subarray(lo, Math.min(n, lo + SORT_RUN));
    if (cmp) run.sort(cmp);
    else run.sort();
    if (clock.due()) yield;
  }
  const less = cmp ? (x: number, y: number) => cmp(x, y) < 0 : numericLess;
  let src: Float64Array | Int32Array = a;
  let dst: Float64Array | Int32Array = a instanceof Float64Array ? new Float64Array(n) : new Int32Array(n);
  for (let width = SORT_RUN; width < n; width *= 2) {
    let k = 0;
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      while (i < mid && j < hi) {
        dst[k++] = less(src[j], src[i]) ? src[j++] : src[i++];
        if ((k & (CLOCK_EVERY - 1)) === 0 && clock.due()) yield;
      }
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    [src, dst] = [dst, src];
  }
  if (src !== a) a.set(src);
  return a;
}
