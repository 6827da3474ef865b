import { describe, expect, it } from 'vitest';
import { ARS_ALPHA, FAILURE_BACKOFF_MS, MAX_FAILURE_BACKOFF_MS, ReplicaSelection } from './replica-selection.ts';

/** A selection over `n` nodes with a clock the test moves. */
function fixture(n: number) {
  const clock = { now: 1_000_000 };
  return { sel: new ReplicaSelection(n, () => clock.now), clock };
}

/** Records one successful call of `ms` on `node`. */
function sample(sel: ReplicaSelection, node: number, ms: number): void {
  sel.begin(node);
  sel.succeeded(node, ms);
}

describe('adaptive replica selection', () => {
  it('keeps an EWMA of response times with ES’s alpha', () => {
    const { sel } = fixture(1);
    sample(sel, 0, 10);
    sample(sel, 0, 20);
    expect(sel.statsOf(0).ewmaMs).toBeCloseTo(ARS_ALPHA * 20 + (1 - ARS_ALPHA) * 10);
    expect(sel.statsOf(0).outstanding).toBe(0);
  });

  it('prefers the copy that answers faster', () => {
    const { sel } = fixture(3);
    sample(sel, 0, 8);
    sample(sel, 1, 2);
    sample(sel, 2, 5);
    expect(sel.order([0, 1, 2])).toEqual([1, 2, 0]);
  });

  it('ranks by (1 + outstanding)³ · EWMA: a fast node with many requests in flight loses to a slower idle one', () => {
    const { sel } = fixture(2);
    sample(sel, 0, 1);
    sample(sel, 1, 3);
    expect(sel.order([0, 1])[0]).toBe(0);
    sel.begin(0); // (1+1)³·1 = 8 > 3
    expect(sel.rank(0)).toBeCloseTo(8);
    expect(sel.order([0, 1])[0]).toBe(1);
  });

  it('tries nodes without samples first, as ES ranks nodes without statistics first', () => {
    const { sel } = fixture(3);
    sample(sel, 0, 1);
    expect(sel.order([0, 1, 2])).toEqual([1, 2, 0]);
  });

  it('counts the picks of one search as outstanding requests, spreading its shards', () => {
    const { sel } = fixture(2);
    sample(sel, 0, 1);
    sample(sel, 1, 1.5);
    const picks = new Map<number, number>();
    expect(sel.order([0, 1], picks)[0]).toBe(0);
    expect(sel.order([0, 1], picks)[0]).toBe(1); // (1+1)³·1 = 8 > 1.5
    expect(picks).toEqual(
      new Map([
        [0, 1],
        [1, 1],
      ]),
    );
  });

  it('pulls the losers’ EWMA towards the winner’s, so a node slow once is tried again', () => {
    const { sel } = fixture(2);
    sample(sel, 0, 1);
    sample(sel, 1, 100);
    sel.begin(0); // one request in flight on the fast node: rank 8
    let rounds = 0;
    while (sel.order([0, 1])[0] === 0 && rounds < 1000) rounds++;
    expect(rounds).toBeGreaterThan(5);
    expect(rounds).toBeLessThan(60);
    expect(sel.statsOf(1).ewmaMs!).toBeLessThan(8);
  });

  it('backs a failed node off behind every healthy copy, doubling per consecutive failure, until it answers', () => {
    const { sel, clock } = fixture(2);
    sample(sel, 0, 1);
    sample(sel, 1, 50);
    sel.begin(0);
    sel.failed(0);
    expect(sel.statsOf(0)).toMatchObject({ outstanding: 0, failures: 1, avoidUntil: clock.now + FAILURE_BACKOFF_MS });
    expect(sel.order([0, 1])).toEqual([1, 0]);
    clock.now += FAILURE_BACKOFF_MS;
    expect(sel.order([0, 1])[0]).toBe(0);
    sel.begin(0);
    sel.failed(0);
    expect(sel.statsOf(0).avoidUntil).toBe(clock.now + 2 * FAILURE_BACKOFF_MS);
    for (let i = 0; i < 20; i++) {
      sel.begin(0);
      sel.failed(0);
    }
    expect(sel.statsOf(0).avoidUntil).toBe(clock.now + MAX_FAILURE_BACKOFF_MS);
    sample(sel, 0, 1);
    expect(sel.statsOf(0)).toMatchObject({ failures: 0, avoidUntil: 0 });
  });

  it('ranks a copy on an ordinal outside the node list last and ignores calls to it', () => {
    const { sel } = fixture(2);
    sel.begin(5);
    sel.failed(5);
    expect(sel.order([5, 1, 0])).toEqual([1, 0, 5]);
  });

  it('tells which nodes are backed off (a preference reads their copies last)', () => {
    const { sel, clock } = fixture(2);
    sel.begin(1);
    sel.failed(1);
    expect([sel.avoided(0), sel.avoided(1), sel.avoided(7)]).toEqual([false, true, true]);
    clock.now += FAILURE_BACKOFF_MS;
    expect(sel.avoided(1)).toBe(false);
  });

  it('takes no sample from a cancelled call', () => {
    const { sel } = fixture(1);
    sample(sel, 0, 4);
    sel.begin(0);
    sel.cancelled(0);
    expect(sel.statsOf(0)).toEqual({ ewmaMs: 4, outstanding: 0, failures: 0, avoidUntil: 0 });
  });
});
