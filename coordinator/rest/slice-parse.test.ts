import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseSlice } from './slice-parse.ts';

describe('parseSlice', () => {
  it('reads id, max and field', () => {
    expect(parseSlice({ id: 0, max: 2 })).toEqual({ id: 0, max: 2 });
    expect(parseSlice({ field: 'n', id: '1', max: 3 })).toEqual({ field: 'n', id: 1, max: 3 });
  });

  it("refuses what SliceBuilder refuses, with ES's texts", () => {
    const failed = (v: Record<string, unknown>) => {
      const e = esErr(() => parseSlice(v));
      return [e.type, e.message, e.causedBy?.reason];
    };
    expect(failed({ id: 0, max: 1 })).toEqual(['x_content_parse_exception', '[1:1] [slice] failed to parse field [max]', 'max must be greater than 1']);
    expect(failed({ id: 2, max: 2 })).toEqual(['x_content_parse_exception', '[1:1] [slice] failed to parse field [max]', 'max must be greater than id']);
    expect(failed({ max: 2, id: 5 })).toEqual(['x_content_parse_exception', '[1:1] [slice] failed to parse field [id]', 'max must be greater than id']);
    expect(failed({ id: -1, max: 2 })).toEqual([
      'x_content_parse_exception',
      '[1:1] [slice] failed to parse field [id]',
      'id must be greater than or equal to 0',
    ]);
    expect(failed({ id: 0, maxx: 2 })).toEqual(['x_content_parse_exception', '[1:1] [slice] unknown field [maxx] did you mean [max]?', undefined]);
    expect(failed({ id: 0, mx: 2 })[1]).toBe('[1:1] [slice] unknown field [mx]');
    expect(failed({ max: 2 })).toEqual(['illegal_argument_exception', 'id must be greater than or equal to 0', undefined]);
    expect(failed({ id: 0 })).toEqual(['illegal_argument_exception', 'max must be greater than 1', undefined]);
  });
});
