import { describe, expect, it } from 'vitest';
import type { ClusterView } from './cluster-view.ts';
import { resolveIndices } from './index-expression.ts';

/** A view holding `names` (get fails for any other name, as a missing index). */
function viewOf(names: string[]): ClusterView {
  return {
    reload: async () => {},
    names: () => [...names],
    get: async (n: string) => {
      if (!names.includes(n)) throw new Error('missing');
      return {};
    },
  } as unknown as ClusterView;
}

describe('resolveIndices', () => {
  const view = viewOf(['cities', 'cities-at', 'mails', 'a.b', 'axb']);

  it('expands * wildcards literally otherwise, and subtracts -patterns', async () => {
    expect(await resolveIndices('cit*', view)).toEqual(['cities', 'cities-at']);
    expect(await resolveIndices('*,-cit*', view)).toEqual(['a.b', 'axb', 'mails']);
    expect(await resolveIndices('a.*', view)).toEqual(['a.b']); // `.` is not a regex dot
    expect(await resolveIndices('*s', view)).toEqual(['cities', 'mails']);
    expect(await resolveIndices('_all', view)).toEqual(['cities', 'cities-at', 'mails', 'a.b', 'axb']); // every index, as the view lists them
  });

  it('answers adversarial wildcards at once', async () => {
    const many = viewOf(Array.from({ length: 200 }, (_, i) => 'a'.repeat(60) + i));
    const t0 = performance.now();
    expect(await resolveIndices('*a*a*a*a*a*a*a*a*a*a*a*a*b', many)).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
