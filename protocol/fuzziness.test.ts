import { describe, expect, it } from 'vitest';
import { AUTO, maxEdits } from './fuzziness.ts';

describe('maxEdits (Fuzziness.asDistance)', () => {
  it('gives AUTO 0 edits below low, 1 below high, else 2, counting code points', () => {
    expect([maxEdits(AUTO, 'ab'), maxEdits(AUTO, 'abc'), maxEdits(AUTO, 'abcde'), maxEdits(AUTO, 'abcdef')]).toEqual([0, 1, 1, 2]);
    expect(maxEdits(AUTO, '😀😀')).toBe(0);
    expect(maxEdits({ auto: true, low: 1, high: 2 }, 'a')).toBe(1);
    expect(maxEdits({ auto: false, edits: 2 }, 'a')).toBe(2);
  });
});
