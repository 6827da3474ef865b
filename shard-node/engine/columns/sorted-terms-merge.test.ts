import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compareCodePoints } from '../../../protocol/sort.ts';
import { mergeSortedTerms } from './sorted-terms-merge.ts';

const sortedSet = (xs: string[]) => [...new Set(xs)].sort(compareCodePoints);

describe('mergeSortedTerms', () => {
  it('gives the sorted union and maps every input ordinal to its term (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string({ unit: 'binary', maxLength: 4 }), { maxLength: 30 }), { maxLength: 6 }), (raw) => {
        const lists = raw.map(sortedSet);
        const { terms, maps } = mergeSortedTerms(lists);
        expect(terms).toEqual(sortedSet(lists.flat()));
        lists.forEach((l, i) => l.forEach((t, o) => expect(terms[maps[i][o]]).toBe(t)));
      }),
    );
  });
});
