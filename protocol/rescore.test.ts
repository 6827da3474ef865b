import { describe, expect, it } from 'vitest';
import { combineRescore } from './rescore.ts';

describe('combineRescore', () => {
  const r = { queryWeight: 0.5, rescoreQueryWeight: 2 };
  it('combines the weighted scores per score_mode, in float', () => {
    expect(combineRescore({ ...r, scoreMode: 'total' }, 2, 3)).toBe(7);
    expect(combineRescore({ ...r, scoreMode: 'multiply' }, 2, 3)).toBe(6);
    expect(combineRescore({ ...r, scoreMode: 'avg' }, 2, 3)).toBe(3.5);
    expect(combineRescore({ ...r, scoreMode: 'max' }, 2, 3)).toBe(6);
    expect(combineRescore({ ...r, scoreMode: 'min' }, 2, 3)).toBe(1);
    expect(combineRescore({ ...r, scoreMode: 'total' }, 0.1, null)).toBe(Math.fround(0.05));
  });
});
