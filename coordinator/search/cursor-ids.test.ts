import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { decodePitId, decodeScrollId, decodeSnapshot, encodePitId, encodeScrollId, encodeSnapshot } from './cursor-ids.ts';

const shards = [
  { index: 'a', shard: 0, node: 2, context: 17, shardIndex: 0 },
  { index: 'a', shard: 1, node: 0, context: 3, shardIndex: 1 },
];

describe('cursor ids', () => {
  it('round-trip as base64url', () => {
    const pit = encodePitId({ indices: ['a'], shards });
    expect(pit).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodePitId(pit)).toEqual({ indices: ['a'], shards });
    const state = { indices: ['a'], shards, body: { size: 5 }, params: 'q=x', path: '/a/_search' };
    expect(decodeScrollId(encodeScrollId(state))).toEqual(state);
    expect(decodeSnapshot(encodeSnapshot([{ index: 'a', shard: 2, generation: 9 }]))).toEqual([{ index: 'a', shard: 2, generation: 9 }]);
    // With replicas a generation is one copy's: the token names the copy's node.
    expect(decodeSnapshot(encodeSnapshot([{ index: 'a', shard: 2, generation: 9, node: 1 }]))).toEqual([{ index: 'a', shard: 2, generation: 9, node: 1 }]);
  });

  it('carry the alias filters of the indices a PIT or scroll was opened through', () => {
    const filters = { a: [{ term: { tag: 'red' } }] };
    expect(decodePitId(encodePitId({ indices: ['a'], shards, filters }))).toEqual({ indices: ['a'], shards, filters });
    const state = { indices: ['a'], shards, body: undefined, params: '', path: '/red/_search', filters };
    expect(decodeScrollId(encodeScrollId(state)).filters).toEqual(filters);
    // no filters: the id is as before (and an empty map adds nothing)
    expect(encodePitId({ indices: ['a'], shards, filters: {} })).toBe(encodePitId({ indices: ['a'], shards }));
  });

  it('reject strings of another kind or garbage with ES’s texts', () => {
    const pit = encodePitId({ indices: ['a'], shards });
    expect(esErr(() => decodeScrollId(pit)).message).toBe('Cannot parse scroll id');
    expect(esErr(() => decodePitId('x y')).message).toBe('invalid id: [x y]');
    expect(esErr(() => decodeSnapshot(pit)).status).toBe(400);
  });
});
