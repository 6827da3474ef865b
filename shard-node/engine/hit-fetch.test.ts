import { describe, expect, it } from 'vitest';
import { compileHitFetch } from './hit-fetch.ts';
import { newShard } from '../../test/support/engine-shard.ts';

function shardWithDocs() {
  const { shard, mapping } = newShard({ properties: { k: { type: 'keyword' }, n: { type: 'long' } } });
  shard.primaryTerm = 3;
  shard.apply([
    { op: 'index', _id: 'a', source: '{"k":"x","n":1}', create: false, routing: 'r1' },
    { op: 'index', _id: 'b', source: '{"k":"y","n":2}', create: false },
  ]);
  shard.apply([{ op: 'index', _id: 'b', source: '{"k":"z","n":3}', create: false }]);
  shard.refresh();
  return { shard, mapping };
}

describe('fetch sub-phases on a shard', () => {
  it('add nothing but _routing when no option is asked (documents without routing stay bare)', () => {
    const { shard, mapping } = shardWithDocs();
    const gen = shard.acquire();
    expect(gen.hasRouting).toBe(true);
    const docs = gen.fetch(['a', 'b', 'gone'], false, compileHitFetch(undefined, mapping(), 'idx', shard.primaryTerm));
    expect(docs).toEqual([{ _id: 'a', _routing: 'r1' }, { _id: 'b' }, null]);
    expect(gen.extrasOf(['b'], compileHitFetch(undefined, mapping(), 'idx', 3))).toBeUndefined();
  });
  it('add _version, _seq_no, _primary_term and fields when asked; _none_ hides _routing', () => {
    const { shard, mapping } = shardWithDocs();
    const gen = shard.acquire();
    const hit = compileHitFetch(
      { version: true, seqNoPrimaryTerm: true, fields: [{ field: 'k' }], docvalueFields: [{ field: 'n' }], noMetadata: true },
      mapping(),
      'idx',
      shard.primaryTerm,
    );
    expect(gen.fetch(['b', 'a'], true, hit)).toEqual([
      { _id: 'b', _version: 2, _seq_no: 2, _primary_term: 3, fields: { n: [3], k: ['z'] }, _source: '{"k":"z","n":3}' },
      { _id: 'a', _version: 1, _seq_no: 0, _primary_term: 3, fields: { n: [1], k: ['x'] }, _source: '{"k":"x","n":1}' },
    ]);
    expect(gen.extrasOf(['a'], hit)).toEqual([{ _version: 1, _seq_no: 0, _primary_term: 3, fields: { n: [1], k: ['x'] } }]);
  });
  it('a generation without routed documents says so (the coordinator then skips an ids-only fetch)', () => {
    const { shard } = newShard();
    shard.apply([{ op: 'index', _id: 'a', source: '{}', create: false }]);
    shard.refresh();
    expect(shard.acquire().hasRouting).toBe(false);
  });
});
