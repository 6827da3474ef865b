import { describe, expect, it } from 'vitest';
import { applyFilterPath, parseFilterPath } from './filter-path.ts';

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
    const rows = [{ index: 'a', health: 'green', 'docs.count': '1' }, { index: 'b', health: 'yellow', 'docs.count': '2' }];
    expect(f(rows, 'index')).toEqual([{ index: 'a' }, { index: 'b' }]);
  });

  it('leaves the body alone when the filter is empty', () => {
    expect(f(search, '')).toBe(search);
    expect(f(search, ' , ')).toBe(search);
  });
});
