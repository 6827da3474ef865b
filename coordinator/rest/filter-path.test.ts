import { describe, expect, it } from 'vitest';
import { MAX_FILTER_PATH_CHARS, applyFilterPath, parseFilterPath } from './filter-path.ts';
import { EsError } from '../../protocol/errors.ts';

const search = {
  took: 3,
  timed_out: false,
  _shards: { total: 3, successful: 3, skipped: 0, failed: 0 },
  hits: {
    total: { value: 2, relation: 'eq' },
    max_score: 1,
    hits: [
      { _index: 'c', _id: '1', _score: 1, _source: { name: 'Paris', country: 'FR', tags: [] } },
      { _index: 'c', _id: '2', _score: 1, _source: { name: 'Lyon', country: 'FR', tags: ['x'] } },
    ],
  },
};

const f = (body: unknown, path: string) => applyFilterPath(body, parseFilterPath(path));

describe('filter_path', () => {
  it('keeps a path through arrays', () => {
    expect(f(search, 'hits.hits._id')).toEqual({ hits: { hits: [{ _id: '1' }, { _id: '2' }] } });
    expect(f(search, 'hits.hits._source.name')).toEqual({ hits: { hits: [{ _source: { name: 'Paris' } }, { _source: { name: 'Lyon' } }] } });
  });

  it('takes several comma-separated paths and keeps matched values whole', () => {
    expect(f(search, 'took,hits.total')).toEqual({ took: 3, hits: { total: { value: 2, relation: 'eq' } } });
    expect(f(search, 'hits.hits._source.tags')).toEqual({ hits: { hits: [{ _source: { tags: [] } }, { _source: { tags: ['x'] } }] } });
  });

  it('matches * inside one level and ** across levels', () => {
    expect(f(search, '*.total')).toEqual({ _shards: { total: 3 }, hits: { total: { value: 2, relation: 'eq' } } });
    expect(f(search, 'hits.hits._sou*.country')).toEqual({ hits: { hits: [{ _source: { country: 'FR' } }, { _source: { country: 'FR' } }] } });
    expect(f(search, '**.name')).toEqual({ hits: { hits: [{ _source: { name: 'Paris' } }, { _source: { name: 'Lyon' } }] } });
    expect(f(search, '_shards.**')).toEqual({ _shards: search._shards });
    expect(f({ a: { b: { c: { d: 1, e: 2 } } } }, 'a.**.e')).toEqual({ a: { b: { c: { e: 2 } } } });
  });

  it('drops containers where nothing matched, and answers {} when nothing is left', () => {
    expect(f({ hits: { hits: [] }, took: 1 }, 'hits.hits._id')).toEqual({});
    expect(f(search, 'nope')).toEqual({});
    expect(f([{ index: 'a', health: 'green' }], 'nope')).toEqual([]);
  });

  it('excludes with -, before including', () => {
    expect(f({ a: 1, b: { c: 2, d: 3 } }, '-b.c')).toEqual({ a: 1, b: { d: 3 } });
    expect(f(search, 'hits.hits._source,-hits.hits._source.tags,-**.country')).toEqual({
      hits: { hits: [{ _source: { name: 'Paris' } }, { _source: { name: 'Lyon' } }] },
    });
  });

  it('filters the rows of a JSON array (cat)', () => {
    const rows = [
      { index: 'a', health: 'green', 'docs.count': '1' },
      { index: 'b', health: 'yellow', 'docs.count': '2' },
    ];
    expect(f(rows, 'index')).toEqual([{ index: 'a' }, { index: 'b' }]);
  });

  it('leaves the body alone when the filter is empty', () => {
    expect(f(search, '')).toBe(search);
    expect(f(search, ' , ')).toBe(search);
  });

  it('reads ** as one or more levels, as ES FilterPath (not zero)', () => {
    const doc = { name: 'top', a: { name: 'one', b: { name: 'two' } } };
    expect(f(doc, '**.name')).toEqual({ a: { name: 'one', b: { name: 'two' } } });
    expect(f({ a: { e: 1, b: { e: 2 } } }, 'a.**.e')).toEqual({ a: { b: { e: 2 } } });
    expect(f({ a: { b: 1 } }, '**')).toEqual({ a: { b: 1 } });
    expect(f({ a: { b: { c: 1 } }, x: 1 }, '**.**')).toEqual({ a: { b: { c: 1 } } });
  });

  it('takes \\. as a literal dot in a field name, and splits as ES FilterPathBuilder', () => {
    const doc = { a: 0, 'b.c': 'value', b: { c: 'c_value' } };
    expect(f(doc, 'b.c')).toEqual({ b: { c: 'c_value' } });
    expect(f(doc, 'b\\.c')).toEqual({ 'b.c': 'value' });
    expect(f(doc, '-b\\.c')).toEqual({ a: 0, b: { c: 'c_value' } });
    expect(f({ a: { '.b': 1, b: 2 } }, 'a..b')).toEqual({ a: { '.b': 1 } });
  });

  it('keeps fields named like Object.prototype members as plain fields', () => {
    const doc = JSON.parse('{"constructor": 1, "__proto__": {"x": 2}, "toString": 3, "other": 4}');
    const out = f(doc, 'constructor,__proto__.x,toString') as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['constructor', '__proto__', 'toString']);
    expect(JSON.stringify(out)).toBe('{"constructor":1,"__proto__":{"x":2},"toString":3}');
    expect(JSON.stringify(f(doc, '-__proto__'))).toBe('{"constructor":1,"toString":3,"other":4}');
    expect(f({ a: 1 }, 'constructor')).toEqual({});
  });

  it('walks 120 ** segments in linear time (the recursive walk ran out of memory)', () => {
    const hits = Array.from({ length: 200 }, (_, i) => ({ _id: String(i), _source: { a: { b: { c: { d: { x: i, y: 'z' } } } } } }));
    const body = { took: 1, hits: { total: { value: 200 }, hits } };
    const t0 = performance.now();
    const out = f(body, Array(120).fill('**').join('.') + '.x') as { hits: { hits: unknown[] } };
    expect(performance.now() - t0).toBeLessThan(1000);
    // 120 `**` need 120 levels above `x`: nothing here is that deep.
    expect(out).toEqual({});
    expect(f(body, '**.**.**.x')).toEqual({ hits: { hits: hits.map((h) => ({ _source: { a: { b: { c: { d: { x: h._source.a.b.c.d.x } } } } } })) } });
  });

  it('refuses a filter_path longer than the limit with a 400', () => {
    expect(() => parseFilterPath('a'.repeat(MAX_FILTER_PATH_CHARS))).not.toThrow();
    let err: unknown;
    try {
      parseFilterPath('a.'.repeat(MAX_FILTER_PATH_CHARS));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EsError);
    expect((err as EsError).status).toBe(400);
    expect((err as EsError).type).toBe('illegal_argument_exception');
    expect((err as EsError).message).toBe(`[filter_path] is too long: [${2 * MAX_FILTER_PATH_CHARS}] characters, the limit is [${MAX_FILTER_PATH_CHARS}]`);
  });
});
