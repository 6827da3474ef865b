/**
 * Timers for durations that requests and settings control. Node's timers take at most 2^31 − 1 ms
 * (about 24.8 days): a longer delay is replaced by 1 ms with a warning, so a `refresh_interval` of
 * `25d` would refresh every millisecond and a search `timeout` of `25d` would fail at once. Deadlines
 * are clamped ({@link clampTimerDelayMs}: 24.8 days is no deadline in practice); periodic work is
 * re-armed in chunks ({@link setLongInterval}), so it runs at the requested interval however long.
 * @see https://nodejs.org/api/timers.html#settimeoutcallback-delay-args
 */

/** The longest delay Node's `setTimeout`/`setInterval` honour: 2^31 − 1 ms (about 24.8 days). */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * A delay Node honours: `ms` clamped to [1, {@link MAX_TIMER_DELAY_MS}] (NaN → the max). For
 * deadlines, where "longer than 24.8 days" can mean "no deadline".
 */
export function clampTimerDelayMs(ms: number): number {
  if (Number.isNaN(ms)) return MAX_TIMER_DELAY_MS;
  return Math.min(MAX_TIMER_DELAY_MS, Math.max(1, Math.floor(ms)));
}

/** A timer of {@link setLongTimeout} or {@link setLongInterval}. */
export interface LongTimer {
  /** Stops it (idempotent). */
  clear(): void;
  /** Lets the process exit while it is pending (as `Timeout.unref()`). */
  unref(): LongTimer;
}

/** Arms `fn` after `delayMs` (any length), in chunks of at most {@link MAX_TIMER_DELAY_MS}. */
export function setLongTimeout(fn: () => void, delayMs: number): LongTimer {
  const due = Date.now() + Math.max(0, delayMs);
  let timer: NodeJS.Timeout | null = null;
  let weak = false;
  let cleared = false;
  const arm = (): void => {
    const left = due - Date.now();
    if (left <= 0) {
      timer = null;
      fn();
      return;
    }
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_DELAY_MS));
    if (weak) timer.unref();
  };
  timer = setTimeout(arm, Math.min(Math.max(1, due - Date.now()), MAX_TIMER_DELAY_MS));
  const handle: LongTimer = {
    clear() {
      cleared = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
    unref() {
      weak = true;
      if (timer && !cleared) timer.unref();
      return handle;
    },
  };
  return handle;
}

/**
 * Runs `fn` every `intervalMs` (any length). Intervals Node honours use one `setInterval`; longer
 * ones re-arm a {@link setLongTimeout} after each run.
 */
export function setLongInterval(fn: () => void, intervalMs: number): LongTimer {
  if (intervalMs <= MAX_TIMER_DELAY_MS) {
    const t = setInterval(fn, Math.max(1, intervalMs));
    const handle: LongTimer = {
      clear: () => clearInterval(t),
      unref() {
        t.unref();
        return handle;
      },
    };
    return handle;
  }
  let current: LongTimer;
  let weak = false;
  let cleared = false;
  const next = (): void => {
    current = setLongTimeout(() => {
      if (cleared) return;
      next();
      fn();
    }, intervalMs);
    if (weak) current.unref();
  };
  next();
  const handle: LongTimer = {
    clear() {
      cleared = true;
      current.clear();
    },
    unref() {
      weak = true;
      current.unref();
      return handle;
    },
  };
  return handle;
}
