import { describe, expect, it } from 'vitest';
import { ownValue, setOwn } from './own-keys.ts';

describe('own-keys', () => {
  it('never reads inherited members', () => {
    const rec: Record<string, number> = { a: 1 };
    for (const k of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) expect(ownValue(rec, k)).toBeUndefined();
    expect(ownValue(rec, 'a')).toBe(1);
    expect(ownValue(JSON.parse('{"__proto__": 7}') as Record<string, number>, '__proto__')).toBe(7);
  });

  it('writes __proto__ as a field, keeping the prototype', () => {
    const rec: Record<string, unknown> = {};
    setOwn(rec, '__proto__', { a: 1 });
    setOwn(rec, 'constructor', 2);
    expect(Object.getPrototypeOf(rec)).toBe(Object.prototype);
    expect(JSON.stringify(rec)).toBe('{"__proto__":{"a":1},"constructor":2}');
    setOwn(rec, '__proto__', 3);
    expect(JSON.stringify(rec)).toBe('{"__proto__":3,"constructor":2}');
  });
});
