// action.destructive_requires_name: ES's DestructiveOperations.failDestructive on index expressions.
import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { failDestructive, mayBeDestructive } from './destructive-operations.ts';

describe('failDestructive', () => {
  it("refuses _all, wildcards anywhere and an empty expression while the setting is true, with ES's error", () => {
    for (const expr of ['_all', '*', 'cit*', 'cities,*', 'a,b*,c', '*,-mails', '', undefined]) {
      const e = esErr(() => failDestructive(expr, true));
      expect([expr, e.status, e.type, e.message]).toEqual([expr, 400, 'illegal_argument_exception', 'Wildcard expressions or all indices are not allowed']);
      expect(mayBeDestructive(expr)).toBe(true);
    }
  });

  it('allows concrete names, and everything once the setting is false', () => {
    for (const expr of ['cities', 'cities,mails', 'a,,b']) {
      expect(() => failDestructive(expr, true)).not.toThrow();
      expect(mayBeDestructive(expr)).toBe(false);
    }
    for (const expr of ['_all', '*', 'cit*']) expect(() => failDestructive(expr, false)).not.toThrow();
  });
});
