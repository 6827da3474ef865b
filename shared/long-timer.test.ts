import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clampTimerDelayMs, MAX_TIMER_DELAY_MS, setLongInterval, setLongTimeout } from './long-timer.ts';

const DAY_MS = 86_400_000;

describe('clampTimerDelayMs', () => {
  it("keeps delays Node honours and clamps the rest to 2^31 - 1 ms (never Node's 1 ms)", () => {
    expect(MAX_TIMER_DELAY_MS).toBe(2_147_483_647);
    expect(clampTimerDelayMs(30_000)).toBe(30_000);
    expect(clampTimerDelayMs(25 * DAY_MS)).toBe(MAX_TIMER_DELAY_MS);
    expect(clampTimerDelayMs(Number.MAX_SAFE_INTEGER)).toBe(MAX_TIMER_DELAY_MS);
    expect(clampTimerDelayMs(Infinity)).toBe(MAX_TIMER_DELAY_MS);
    expect(clampTimerDelayMs(NaN)).toBe(MAX_TIMER_DELAY_MS);
    expect(clampTimerDelayMs(0)).toBe(1);
  });
});

describe('long timers (fake clock)', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  it('setLongTimeout fires once after 25 days, not after 1 ms', () => {
    const fn = vi.fn();
    setLongTimeout(fn, 25 * DAY_MS);
    vi.advanceTimersByTime(1_000);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(25 * DAY_MS - 1_001);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60 * DAY_MS);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('setLongInterval runs every 25 days, and clear() stops it', () => {
    const fn = vi.fn();
    const t = setLongInterval(fn, 25 * DAY_MS).unref();
    vi.advanceTimersByTime(10_000);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(50 * DAY_MS);
    expect(fn).toHaveBeenCalledTimes(2);
    t.clear();
    vi.advanceTimersByTime(100 * DAY_MS);
    expect(fn).toHaveBeenCalledTimes(2);
  });

  it('setLongInterval with a short interval is a plain interval', () => {
    const fn = vi.fn();
    const t = setLongInterval(fn, 1_000);
    vi.advanceTimersByTime(3_500);
    expect(fn).toHaveBeenCalledTimes(3);
    t.clear();
    vi.advanceTimersByTime(3_000);
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('a cleared setLongTimeout never fires', () => {
    const fn = vi.fn();
    setLongTimeout(fn, 30 * DAY_MS).clear();
    vi.advanceTimersByTime(40 * DAY_MS);
    expect(fn).not.toHaveBeenCalled();
  });
});
