// ES's IndicesOptions from a request's parameters.
import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { INDICES_OPTIONS, indicesOptionsFrom, type IndicesOptions } from './indices-options.ts';

const withParams = (q: string, d: IndicesOptions = INDICES_OPTIONS.search) => indicesOptionsFrom(new URLSearchParams(q), d);

describe('indicesOptionsFrom', () => {
  it('replaces the default states with expand_wildcards and reads the booleans', () => {
    expect(withParams('expand_wildcards=none')).toMatchObject({ expandOpen: false, expandClosed: false, expandHidden: false });
    expect(withParams('expand_wildcards=closed,hidden&ignore_unavailable&allow_no_indices=false')).toMatchObject({
      expandOpen: false,
      expandClosed: true,
      expandHidden: true,
      ignoreUnavailable: true,
      allowNoIndices: false,
      forbidClosed: true,
    });
  });

  it("refuses unknown states and non-booleans with ES's texts", () => {
    expect(esErr(() => withParams('expand_wildcards=open,shut')).message).toBe('No valid expand wildcard value [shut]');
    expect(esErr(() => withParams('ignore_unavailable=yes'))).toMatchObject({ message: 'Could not convert [ignore_unavailable] to boolean' });
  });
});
