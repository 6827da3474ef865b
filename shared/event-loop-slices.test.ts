import { describe, expect, it } from 'vitest';
import { EventLoopSlices } from './event-loop-slices.ts';

describe('EventLoopSlices', () => {
  it('lets timers run during a long loop, and never holds the loop much past a slice', async () => {
    const slices = new EventLoopSlices(5);
    let ticks = 0;
    let worstGapMs = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worstGapMs = Math.max(worstGapMs, now - last);
      last = now;
      ticks++;
    }, 1);
    const until = performance.now() + 200;
    let spins = 0;
    while (performance.now() < until) {
      for (let k = 0; k < 1_000; k++) spins += k % 7; // a little synchronous work per item
      const pause = slices.tick();
      if (pause) await pause;
    }
    clearInterval(timer);
    expect(spins).toBeGreaterThan(0);
    expect(ticks).toBeGreaterThan(5);
    expect(worstGapMs).toBeLessThan(100); // 5 ms slices; a one-task loop would give 200 ms
  });

  it('costs no yield within a slice', () => {
    const slices = new EventLoopSlices(60_000);
    for (let i = 0; i < 1_000; i++) expect(slices.tick()).toBeUndefined();
  });
});
