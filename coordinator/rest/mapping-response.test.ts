// GET _mapping/field: the matching leaf fields and multi-fields.
import { describe, expect, it } from 'vitest';
import { parseMapping } from './mapping-parse.ts';
import { fieldMappings } from './mapping-response.ts';

describe('fieldMappings', () => {
  it('lists the matching leaf fields and multi-fields with their full names', () => {
    const m = parseMapping({
      properties: { title: { type: 'text', fields: { raw: { type: 'keyword' } } }, o: { properties: { n: { type: 'long' } } }, t2: { type: 'date' } },
    });
    const glob = (p: string, s: string) => new RegExp('^' + p.replace(/\*/g, '.*') + '$').test(s);
    expect(fieldMappings(m, ['title*', 'o.n'], glob)).toEqual({
      title: { full_name: 'title', mapping: { title: { type: 'text', fields: { raw: { type: 'keyword' } } } } },
      'title.raw': { full_name: 'title.raw', mapping: { raw: { type: 'keyword' } } },
      'o.n': { full_name: 'o.n', mapping: { n: { type: 'long' } } },
    });
    expect(fieldMappings(m, ['nope'], glob)).toEqual({});
  });
});
