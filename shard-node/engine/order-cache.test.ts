import { describe, expect, it } from 'vitest';
import { cachedOrder, ORDER_SPEC_MAX_KEY_CHARS, ORDERS_PER_SEGMENT, rememberOrder } from './order-cache.ts';

describe('order cache bounds', () => {
  it('keeps at most ORDERS_PER_SEGMENT orders, least recently used first out, and never a key over the cap', () => {
    const byKey = new Map<string, number>();
    for (let i = 0; i < ORDERS_PER_SEGMENT; i++) rememberOrder(byKey, `k${i}`, i);
    expect(cachedOrder(byKey, 'k0')).toBe(0); // k0 is now the most recent
    rememberOrder(byKey, 'new', 99);
    expect(byKey.size).toBe(ORDERS_PER_SEGMENT);
    expect([byKey.has('k0'), byKey.has('k1'), byKey.has('new')]).toEqual([true, false, true]);
    rememberOrder(byKey, 'm'.repeat(ORDER_SPEC_MAX_KEY_CHARS + 1), 1);
    expect(byKey.has('m'.repeat(ORDER_SPEC_MAX_KEY_CHARS + 1))).toBe(false);
    expect(cachedOrder(byKey, 'absent')).toBeUndefined();
  });
});
