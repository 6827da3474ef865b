import { describe, expect, it } from 'vitest';
import { stringifySliced } from './sliced-json.ts';

describe('stringifySliced', () => {
  it('gives the text JSON.stringify gives', async () => {
    const items = Array.from({ length: 5003 }, (_, i) => ({ _id: `d${i}`, status: i % 2 ? 201 : 404, error: i % 7 ? undefined : { type: 'x', reason: 'é"\n' } }));
    for (const obj of [
      { node: 'n1', index: 'i', shard: 0, items, forcedRefresh: false, replicaOps: items.slice(0, 1001), skipped: undefined },
      { items: [] },
      { a: [1, null, 'x'], b: { c: [undefined] } },
      {},
    ]) {
      expect(await stringifySliced(obj)).toBe(JSON.stringify(obj));
    }
  });
});
