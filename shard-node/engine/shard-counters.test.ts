import { describe, expect, it } from 'vitest';
import { newShard } from '../../test/support/engine-shard.ts';

describe('shard operation counters', () => {
  it('count index, update, noop, failed and delete operations, gets and refreshes', () => {
    const { shard } = newShard({ properties: { n: { type: 'long' } } });
    shard.apply([
      { op: 'index', _id: '1', source: '{"n":1}', create: false },
      { op: 'index', _id: '2', source: '{"n":"x"}', create: false }, // refused: not a number
      { op: 'update', _id: '1', doc: { n: 1 }, docAsUpsert: false }, // noop
      { op: 'update', _id: '1', doc: { n: 2 }, docAsUpsert: false },
      { op: 'delete', _id: '9' },
    ]);
    shard.get('1');
    shard.get('2');
    shard.refresh();
    shard.refresh(); // nothing to refresh: not counted
    shard.getRefreshed('1');
    expect(shard.counters).toMatchObject({
      indexTotal: 2,
      indexFailed: 1,
      noopUpdateTotal: 1,
      deleteTotal: 1,
      getTotal: 5,
      getExists: 4,
      getMissing: 1,
      refreshTotal: 1,
    }); // the updates read too (ES getForUpdate)
  });
  it("count a replica's live writes as indexing", () => {
    const { shard: primary } = newShard();
    const logged: Parameters<typeof primary.apply>[1] = [];
    primary.apply(
      [
        { op: 'index', _id: 'a', source: '{}', create: false },
        { op: 'delete', _id: 'a' },
      ],
      logged,
    );
    const { shard: replica } = newShard();
    replica.applyReplicated(logged);
    expect(replica.counters).toMatchObject({ indexTotal: 1, deleteTotal: 1 });
  });
});
