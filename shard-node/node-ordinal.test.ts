import { describe, expect, it } from 'vitest';
import { EsError } from '../protocol/errors.ts';
import { NodeOrdinal } from './node-ordinal.ts';

describe('NodeOrdinal', () => {
  it('takes the first ordinal named, accepts it again, and refuses another with a 409 illegal_state_exception', () => {
    const o = new NodeOrdinal('n1');
    o.check(undefined);
    expect(o.value).toBeNull();
    o.check(2);
    expect(o.value).toBe(2);
    o.check(2);
    o.check(undefined);
    let err: unknown;
    try {
      o.check(0);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EsError);
    expect(err).toMatchObject({
      status: 409,
      type: 'illegal_state_exception',
      message: 'node [n1] holds its copies as FOLIO_NODES[2] but was addressed as FOLIO_NODES[0]: the node list must keep its order',
    });
    expect(o.value).toBe(2);
  });

  it('adopts a recovered ordinal only when none is held, and then guards it', () => {
    const o = new NodeOrdinal('n1');
    o.adopt(null);
    expect(o.value).toBeNull();
    o.adopt(1);
    o.adopt(3);
    expect(o.value).toBe(1);
    expect(() => o.check(3)).toThrow(EsError);
  });
});
