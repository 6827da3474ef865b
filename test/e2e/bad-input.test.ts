/**
 * No input gets a 5xx: random (mostly wrong) search bodies, query strings and paging parameters
 * against the real cluster, bounded in count. Every rejection is an ES-shaped 4xx.
 */
import fc from 'fast-check';
import { describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');

const field = fc.constantFrom('name', 'name.keyword', 'country', 'population', 'location', 'altName', 'nosuch', '', '*', '_id');
const scalar = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('2024-01-01', 'abc', '1e400', '-0', 'NaN'),
);
const value = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('query', 'value', 'gte', 'lt', 'boost', 'operator', 'x'), scalar, { maxKeys: 3 }),
);
const leaf = fc
  .tuple(fc.constantFrom('match', 'term', 'terms', 'range', 'exists', 'prefix', 'match_phrase', 'ids', 'match_all', 'multi_match', 'bogus'), field, value)
  .map(([kind, f, v]) => {
    if (kind === 'exists') return { exists: { field: f } };
    if (kind === 'ids') return { ids: { values: v } };
    if (kind === 'match_all') return { match_all: typeof v === 'object' && v !== null && !Array.isArray(v) ? v : {} };
    if (kind === 'multi_match') return { multi_match: { query: v, fields: [f] } };
    return { [kind]: { [f]: v } };
  });
const query = fc.letrec((tie) => ({
  q: fc.oneof({ depthSize: 'small' }, leaf, tie('bool')),
  bool: fc.record({
    bool: fc.dictionary(
      fc.constantFrom('must', 'should', 'filter', 'must_not', 'minimum_should_match'),
      fc.oneof(tie('q'), fc.array(tie('q'), { maxLength: 2 }), scalar),
      { maxKeys: 3 },
    ),
  }),
})).q;
const body = fc.record(
  {
    query,
    from: fc.oneof(fc.integer({ min: -5, max: 20_000 }), fc.string({ maxLength: 3 })),
    size: fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom('3', 'x', 1.5)),
    sort: fc.oneof(
      field,
      fc.array(fc.oneof(field, fc.dictionary(field, fc.constantFrom('asc', 'desc', 'up', { order: 'desc', missing: '_first' }), { maxKeys: 1 })), {
        maxLength: 2,
      }),
    ),
    _source: fc.oneof(fc.boolean(), fc.array(field, { maxLength: 2 }), scalar),
    track_total_hits: fc.oneof(fc.boolean(), fc.integer({ min: -3, max: 100 }), scalar),
  },
  { requiredKeys: [] },
);

function checkShape(status: number, b: any): void {
  expect(status).toBeLessThan(500);
  if (status >= 400) {
    expect(typeof b).toBe('object');
    if (typeof b.error === 'object') {
      expect(typeof b.error.type).toBe('string');
      expect(Array.isArray(b.error.root_cause)).toBe(true);
      expect(b.status).toBe(status);
    }
  } else {
    expect(Array.isArray(b.hits.hits)).toBe(true);
  }
}

describe('bad input never gets a 5xx', () => {
  it('random search bodies', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await http(url, 'POST', '/cities/_search', b);
        checkShape(res.status, res.body);
      }),
      { numRuns: 250 },
    );
  });

  it('random q=, from, size and sort parameters', async () => {
    const params = fc.record(
      {
        q: fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom('name:"san jo', 'AND', '(a OR', 'population:[1 TO', '*:*', 'a:b:c', '\\', 'name:*', '-', '!'),
        ),
        from: fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -2, max: 10_005 }).map(String)),
        size: fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -2, max: 20 }).map(String)),
        sort: fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('population:desc', 'name', 'name.keyword:sideways', ':', 'a:b:c')),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(params, async (p) => {
        const qs = new URLSearchParams(p as Record<string, string>).toString();
        const res = await http(url, 'GET', `/cities/_search?${qs}`);
        checkShape(res.status, res.body);
      }),
      { numRuns: 250 },
    );
  });

  it('still holds exactly the sample data afterwards', async () => {
    const res = await http(url, 'GET', '/cities/_count');
    expect(res.body.count).toBe(135_233);
  });
});
