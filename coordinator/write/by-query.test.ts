import { describe, expect, it } from 'vitest';
import { RawJson } from '../../shared/raw-json.ts';
import { deleteHit, updateHit } from './by-query.ts';
import { validationMessages } from './write-request.ts';

describe('by-query writes (each conditional on the _seq_no and primary term the walk read)', () => {
  const hit = { _index: 'i', _id: 'a', _score: null, _seq_no: 7, _primary_term: 2, _routing: 'r', _source: new RawJson('{"n": 1}') };

  it("delete_by_query: a delete with if_seq_no/if_primary_term and the hit's routing", () => {
    const item = deleteHit(hit)!;
    expect(item).toEqual({ action: 'delete', index: 'i', id: 'a', routing: 'r', source: undefined, params: { ifSeqNo: 7, ifPrimaryTerm: 2 } });
    expect(validationMessages({ action: item.action, index: item.index, id: item.id, params: item.params! })).toEqual([]);
  });

  it('update_by_query: an index of the exact source text with the same condition', () => {
    const item = updateHit(hit)!;
    expect(item).toMatchObject({ action: 'index', id: 'a', routing: 'r', sourceText: '{"n": 1}', params: { ifSeqNo: 7, ifPrimaryTerm: 2 } });
    expect(validationMessages({ action: item.action, index: item.index, id: item.id, params: item.params! })).toEqual([]);
  });

  it('a hit without _seq_no gives an unconditional write', () => {
    const { _seq_no: _s, _primary_term: _p, ...plain } = hit;
    expect(deleteHit(plain)!.params).toBeUndefined();
  });
});
