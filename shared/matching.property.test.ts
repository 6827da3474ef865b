/**
 * Property tests of every request-controlled pattern and name Folio matches or looks up: the `*`
 * matcher agrees with a regex built from the pattern (on short inputs, where the regex is safe),
 * `filter_path` agrees with a direct reading of ES's FilterPath semantics, and fuzzed `filter_path`
 * strings, wildcard patterns, query names and sort/size/from combinations each finish within a time
 * budget, however many `**`, `*` or long names they hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EsError } from '../protocol/errors.ts';
import { applyFilterPath, parseFilterPath } from '../coordinator/rest/filter-path.ts';
import { didYouMean } from '../coordinator/rest/params.ts';
import { parseQuery } from '../coordinator/rest/query-dsl.ts';
import { parseSearchRequest } from '../coordinator/rest/search-request.ts';
import { filterSource } from './source-filter.ts';
import { wildcardCanMatchPrefix, wildcardMatch } from './wildcard.ts';

/** Every case must finish within this (the budget for a request). */
const CASE_BUDGET_MS = 1000;

function timed<T>(fn: () => T): T {
  const t0 = performance.now();
  const out = fn();
  const ms = performance.now() - t0;
  if (ms > CASE_BUDGET_MS) throw new Error(`case took ${ms.toFixed(0)} ms (budget ${CASE_BUDGET_MS} ms)`);
  return out;
}

/** Runs `fn`: a result or a 4xx EsError are both fine; anything else fails. */
function resultOr4xx(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof EsError)) throw e;
    expect(e.status).toBeGreaterThanOrEqual(400);
    expect(e.status).toBeLessThan(500);
  }
}

/** The reference: `*` → `.*`, everything else escaped (only ever run on short inputs). */
function regexMatch(pattern: string, text: string): boolean {
  const re = new RegExp(
    '^' +
      pattern
        .split('*')
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*') +
      '$',
    's',
  );
  return re.test(text);
}

/** The reference prefix check: exhaustive recursion (exponential; short inputs only). */
function bruteCanMatchPrefix(p: string, s: string, pi = 0, si = 0): boolean {
  if (si === s.length) return true;
  if (pi === p.length) return false;
  if (p[pi] === '*') return bruteCanMatchPrefix(p, s, pi + 1, si) || bruteCanMatchPrefix(p, s, pi, si + 1);
  return p[pi] === s[si] && bruteCanMatchPrefix(p, s, pi + 1, si + 1);
}

const shortPattern = fc.array(fc.constantFrom('a', 'b', '*', '.', '?', 'é'), { maxLength: 8 }).map((cs) => cs.join(''));
const shortText = fc.array(fc.constantFrom('a', 'b', '.', '?', 'é'), { maxLength: 10 }).map((cs) => cs.join(''));

describe('wildcardMatch and wildcardCanMatchPrefix', () => {
  it('agree with a regex and with exhaustive search on short inputs', () => {
    fc.assert(
      fc.property(shortPattern, shortText, (p, t) => {
        expect(wildcardMatch(p, t)).toBe(regexMatch(p, t));
        expect(wildcardCanMatchPrefix(p, t)).toBe(bruteCanMatchPrefix(p, t));
      }),
      { numRuns: 3000 },
    );
  });

  it('stay within the budget on adversarial *a*a*a…b patterns and long names', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 0, max: 20_000 }), fc.constantFrom('b', 'a', ''), (stars, n, end) => {
        const pattern = '*a'.repeat(stars) + '*' + end;
        const text = 'a'.repeat(n);
        timed(() => {
          wildcardMatch(pattern, text);
          wildcardCanMatchPrefix(pattern, text);
        });
      }),
      { numRuns: 60 },
    );
  });
});

/** ES FilterPath for one path against the names from the root to a field: does it select that field whole? */
function refSelects(segments: string[], names: string[], i = 0, j = 0): boolean {
  if (i === segments.length) return true;
  if (j === names.length) return false;
  if (segments[i] === '**') return refSelects(segments, names, i + 1, j + 1) || refSelects(segments, names, i, j + 1); // one level, then on or again
  return wildcardMatch(segments[i], names[j]) && refSelects(segments, names, i + 1, j + 1);
}

type Tree = { [k: string]: Tree | number };
const NAMES = ['a', 'b', 'ab', 'c'];
const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.dictionary(fc.constantFrom(...NAMES), fc.oneof({ depthSize: 'small', maxDepth: 4 }, fc.integer({ min: 0, max: 9 }), tie('node')), {
    minKeys: 1,
    maxKeys: 4,
  }),
})).node;

/** Every scalar of `t` with the names leading to it. */
function leaves(t: unknown, prefix: string[] = []): string[][] {
  if (typeof t !== 'object' || t === null) return [prefix];
  return Object.entries(t).flatMap(([k, v]) => leaves(v, [...prefix, k]));
}

const filterPathArb = fc.array(fc.array(fc.constantFrom('a', 'b', 'c', '*', 'a*', '*b', '**'), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 });

describe('filter_path', () => {
  it('keeps exactly the leaves ES FilterPath selects, and drops exactly those it excludes', () => {
    fc.assert(
      fc.property(tree, filterPathArb, (doc, paths) => {
        const text = paths.map((p) => p.join('.')).join(',');
        const selected = (names: string[]) => paths.some((p) => names.some((_, d) => refSelects(p, names.slice(0, d + 1))));
        const all = leaves(doc);
        const kept = leaves(applyFilterPath(doc, parseFilterPath(text))).filter((l) => l.length > 0);
        expect(kept.map((l) => l.join('/')).sort()).toEqual(
          all
            .filter(selected)
            .map((l) => l.join('/'))
            .sort(),
        );
        const excluded = leaves(applyFilterPath(doc, parseFilterPath(paths.map((p) => '-' + p.join('.')).join(','))));
        const survivors = excluded.filter((l) => all.some((a) => a.join('/') === l.join('/')));
        expect(survivors.map((l) => l.join('/')).sort()).toEqual(
          all
            .filter((l) => !selected(l))
            .map((l) => l.join('/'))
            .sort(),
        );
      }),
      { numRuns: 1500 },
    );
  });

  const body = {
    took: 3,
    hits: {
      total: { value: 40, relation: 'eq' },
      hits: Array.from({ length: 40 }, (_, i) => ({
        _id: String(i),
        _source: { name: 'n' + i, a: { aa: { aaa: { aaaa: { b: i, ['x'.repeat(200)]: i } } } } },
      })),
    },
  };
  const segment = fc.oneof(
    fc.constantFrom('**', '*', 'hits', '_source', 'a', 'b', 'x', '*a*a*a*a*a*a*b', 'a*', ''),
    fc.integer({ min: 1, max: 3000 }).map((n) => 'x'.repeat(n)),
    fc.integer({ min: 1, max: 300 }).map((n) => '*a'.repeat(n) + '*b'),
  );
  const fuzzed = fc
    .array(fc.tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 200 })), { minLength: 1, maxLength: 8 })
    .map((paths) => paths.map(([neg, segs]) => (neg ? '-' : '') + segs.join('.')).join(','));

  it('answers any filter_path within the budget: a filtered body or a 400', () => {
    fc.assert(
      fc.property(fuzzed, (fp) => {
        timed(() => resultOr4xx(() => applyFilterPath(body, parseFilterPath(fp))));
      }),
      { numRuns: 150 },
    );
    timed(() => applyFilterPath(body, parseFilterPath(Array(120).fill('**').join('.') + '.x')));
    timed(() => applyFilterPath(body, parseFilterPath(Array(1300).fill('**').join('.') + '.b')));
  });
});

describe('_source filtering', () => {
  it('answers adversarial include/exclude patterns within the budget', () => {
    const source = { a: { aa: { aaa: { aaaa: { b: 1, ['a'.repeat(500)]: 2 } } } }, ['a'.repeat(2000)]: 3 };
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            shortPattern,
            fc.integer({ min: 1, max: 500 }).map((n) => '*a'.repeat(n) + '*b'),
          ),
          { maxLength: 20 },
        ),
        fc.array(shortPattern, { maxLength: 5 }),
        (includes, excludes) => {
          timed(() => filterSource(source, { includes, excludes }));
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('query names, sort, size and from through the parsers', () => {
  const name = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'matchh', 'term'),
    fc.integer({ min: 1, max: 300_000 }).map((n) => 'q'.repeat(n)),
    fc.integer({ min: 1, max: 50_000 }).map((n) => 'é😀'.repeat(n)),
  );

  it('answers unknown or long query names with a 400 within the budget', () => {
    fc.assert(
      fc.property(name, (n) => {
        timed(() => resultOr4xx(() => parseQuery({ [n]: { field: 'x' } })));
        timed(() => didYouMean(n, ['match', 'match_all', 'term', 'terms', 'range', 'bool']));
      }),
      { numRuns: 120 },
    );
  });

  const sizeLike = fc.oneof(
    fc.integer(),
    fc.constantFrom(0, -1, 10_000, 9_000_000, 2 ** 31, Number.MAX_SAFE_INTEGER),
    fc.string({ maxLength: 12 }),
    fc.double(),
  );
  const sortEntry = fc.oneof(
    name,
    fc.record({ f: name, order: fc.constantFrom('asc', 'desc', 'sideways') }).map(({ f, order }) => ({ [f]: { order } })),
  );

  it('answers any sort/size/from combination with a request or a 400 within the budget', () => {
    fc.assert(
      fc.property(fc.array(sortEntry, { maxLength: 6 }), sizeLike, sizeLike, fc.boolean(), (sort, size, from, inUrl) => {
        timed(() =>
          resultOr4xx(() => {
            if (inUrl) {
              const qs = new URLSearchParams({
                size: String(size),
                from: String(from),
                sort: sort.map((s) => (typeof s === 'string' ? s : Object.keys(s)[0] + ':asc')).join(','),
              });
              return parseSearchRequest(qs, undefined, '/i/_search');
            }
            return parseSearchRequest(new URLSearchParams(), { size, from, sort }, '/i/_search');
          }),
        );
      }),
      { numRuns: 300 },
    );
  });
});
