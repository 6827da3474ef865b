import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kwayMerge, kwayMergeSteps, RunMerge } from './kway-merge.ts';
import { runSliced } from './sliced-work.ts';

/** Sorted runs of small integers (ties within and across runs), some empty. */
const runsArb = fc.array(
  fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 30 }).map((r) => r.sort((a, b) => a - b)),
  { maxLength: 9 },
);

/** Orders by value, ties by run then position: a total order, so the merge has one right answer. */
const byValueThenRun =
  (runs: number[][]) =>
  (a: number, i: number, b: number, j: number): boolean =>
    runs[a][i] < runs[b][j] || (runs[a][i] === runs[b][j] && (a < b || (a === b && i < j)));

/** The oracle: every element tagged with its run and position, sorted by the same total order. */
function oracle(runs: number[][]): [number, number][] {
  const all = runs.flatMap((r, a) => r.map((_, i): [number, number] => [a, i]));
  const less = byValueThenRun(runs);
  return all.sort(([a, i], [b, j]) => (less(a, i, b, j) ? -1 : less(b, j, a, i) ? 1 : 0));
}

describe('kwayMerge', () => {
  it('emits every element of every run in order, equal to sorting them all (property)', () => {
    fc.assert(
      fc.property(runsArb, (runs) => {
        const out: [number, number][] = [];
        kwayMerge(
          runs.map((r) => r.length),
          byValueThenRun(runs),
          (a, i) => out.push([a, i]),
        );
        expect(out).toEqual(oracle(runs));
      }),
    );
  });

  it('in slices emits what it emits in one task (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(fc.nat(3000), { maxLength: 3000 }).map((r) => r.sort((a, b) => a - b)),
          { maxLength: 4 },
        ),
        async (runs) => {
          const out: [number, number][] = [];
          await runSliced(
            (clock) =>
              kwayMergeSteps(
                runs.map((r) => r.length),
                byValueThenRun(runs),
                (a, i) => out.push([a, i]),
                clock,
              ),
            0,
          );
          expect(out).toEqual(oracle(runs));
        },
      ),
      { numRuns: 20 },
    );
  });
});

describe('RunMerge', () => {
  it('pops runs one head at a time and can stop anywhere (property)', () => {
    fc.assert(
      fc.property(runsArb, fc.nat(200), (runs, stop) => {
        const m = new RunMerge(
          runs.map((r) => r.length),
          byValueThenRun(runs),
        );
        const out: [number, number][] = [];
        while (out.length < stop && m.pending) {
          const r = m.next();
          out.push([r, m.pos[r] - 1]);
        }
        expect(out).toEqual(oracle(runs).slice(0, stop));
      }),
    );
  });

  it('answers -1 once every run is spent, and skips empty runs', () => {
    const m = new RunMerge([0, 2, 0], (a, i, b, j) => a * 10 + i < b * 10 + j);
    expect([m.next(), m.next(), m.next(), m.next()]).toEqual([1, 1, -1, -1]);
    expect(Array.from(m.pos)).toEqual([0, 2, 0]);
    expect(new RunMerge([], () => false).next()).toBe(-1);
  });
});
