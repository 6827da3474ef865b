import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runAtOnce, runSliced, SORT_RUN, sortSteps, type SliceClock, type Steps } from './sliced-work.ts';

describe('sortSteps', () => {
  it('sorts as TypedArray.prototype.sort does, in one task and cut at every check point', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 4 * SORT_RUN + 17 }), fc.integer({ min: 1, max: 1e6 }), fc.boolean(), async (n, range, withZeros) => {
        const keys = Float64Array.from({ length: n }, (_, i) => (withZeros && i % 5 === 0 ? (i % 2 ? -0 : 0) : ((i * 2654435761) % range) - range / 2));
        const expected = keys.slice().sort();
        expect(Object.is(runAtOnce((c) => sortSteps(keys.slice(), c))[0], expected[0])).toBe(true);
        expect(runAtOnce((c) => sortSteps(keys.slice(), c))).toEqual(expected);
        expect(await runSliced((c) => sortSteps(keys.slice(), c), 0)).toEqual(expected);
        const ords = Int32Array.from({ length: n }, (_, i) => i);
        const cmp = (a: number, b: number) => keys[a] - keys[b] || a - b;
        expect(await runSliced((c) => sortSteps(ords.slice(), c, cmp), 0)).toEqual(ords.slice().sort(cmp));
      }),
      { numRuns: 12 },
    );
  });
});

describe('runSliced', () => {
  it('yields to the event loop whenever the clock is due, and returns what the steps return', async () => {
    function* count(clock: SliceClock): Steps<number> {
      let n = 0;
      for (let i = 0; i < 5; i++) {
        n++;
        if (clock.due()) yield;
      }
      return n;
    }
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    expect(runAtOnce(count)).toBe(5);
    expect(turns).toBe(0);
    let immediates = 0;
    const spin = async () => {
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setImmediate(r));
        immediates++;
      }
    };
    const [got] = await Promise.all([runSliced(count, 0), spin()]);
    clearInterval(timer);
    expect(got).toBe(5);
    expect(immediates).toBe(20);
  });
});
