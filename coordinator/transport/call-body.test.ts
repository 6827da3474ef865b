import { describe, expect, it } from 'vitest';
import { batchBodyBytes, callBodyBytes } from './call-body.ts';

/** A query whose `terms` member counts how often it is serialized (JSON.stringify reads the getter once per run). */
function countedQuery(): { query: object; reads: () => number } {
  let reads = 0;
  const query = {
    bool: { should: [{ ids: { values: ['1', '2'] } }] },
    get terms() {
      reads++;
      return { country: ['FR', 'DE', 'é€😀'] };
    },
  };
  return { query, reads: () => reads };
}

describe('callBodyBytes', () => {
  it('writes the same JSON document as JSON.stringify', () => {
    const bodies: unknown[] = [
      { index: 'cities', shard: 2, query: { terms: { country: ['FR', 'ü'] } }, sort: [{ kind: 'score' }], k: 10, skipped: undefined },
      { query: { match_all: {} } },
      { index: 'x', query: null },
      { index: 'x', query: [1, 2] },
      { index: 'x' },
      [1, 2],
      'text',
      { query: { toJSON: () => 'q' } },
    ];
    for (const body of bodies) expect(JSON.parse(callBodyBytes(body).toString('utf8'))).toEqual(JSON.parse(JSON.stringify(body)));
  });

  it('serializes one query object once per synchronous run, again after it', async () => {
    const { query, reads } = countedQuery();
    const a = callBodyBytes({ index: 'i', shard: 0, query });
    const b = callBodyBytes({ index: 'i', shard: 1, query });
    expect(reads()).toBe(1);
    expect(JSON.parse(a.toString('utf8'))).toEqual({ index: 'i', shard: 0, query: JSON.parse(JSON.stringify(query)) as unknown });
    expect((JSON.parse(b.toString('utf8')) as { shard: number }).shard).toBe(1);
    await Promise.resolve();
    callBodyBytes({ index: 'i', shard: 2, query });
    expect(reads()).toBe(3); // the JSON.parse(JSON.stringify(query)) above, then a fresh encoding
  });
});

describe('batchBodyBytes', () => {
  it('writes the batch JSON.stringify would, the shared query encoded once', () => {
    const { query, reads } = countedQuery();
    const calls = [
      { path: 'query', body: { index: 'i', shard: 0, query }, hits: true },
      { path: 'query', body: { index: 'i', shard: 1, query }, hits: false },
      { path: 'fetch', body: undefined, hits: false },
    ];
    const bytes = batchBodyBytes(calls);
    expect(reads()).toBe(1);
    expect(JSON.parse(bytes.toString('utf8'))).toEqual(JSON.parse(JSON.stringify({ calls })));
    expect(batchBodyBytes([]).toString('utf8')).toBe('{"calls":[]}');
  });
});
