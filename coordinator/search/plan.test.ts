import { describe, expect, it } from 'vitest';
import { SCORE_SORT, type SortField } from '../../protocol/sort.ts';
import { doubleSortClauses } from './plan.ts';

describe('doubleSortClauses', () => {
  it('marks _score, floating fields and numeric_type double', () => {
    const f = (field: string, extra: Partial<SortField> = {}): SortField => ({ kind: 'field', field, order: 'asc', missing: '_last', mode: 'min', ...extra });
    const fields = new Map([
      ['d', { type: 'double' }],
      ['l', { type: 'long' }],
      ['h', { type: 'half_float' }],
      ['k', { type: 'keyword' }],
    ]);
    expect(
      doubleSortClauses(
        [SCORE_SORT[0], f('d'), f('l'), f('h'), f('k'), f('l', { numericType: 'double' }), f('d', { numericType: 'long' }), f('u', { unmappedType: 'float' })],
        fields,
      ),
    ).toEqual([true, true, false, true, false, true, false, true]);
  });
});
