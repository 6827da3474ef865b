import { describe, expect, it } from 'vitest';
import { AUTO } from '../../protocol/fuzziness.ts';
import { esErr } from '../../test/support/es-error.ts';
import { parseFuzziness } from './fuzziness-parse.ts';

const err = (v: unknown) => {
  const e = esErr(() => parseFuzziness(v));
  return [e.type, e.message];
};

describe('parseFuzziness (ES Fuzziness.parse)', () => {
  it('reads edit counts from numbers (intValue) and from float strings without a fraction', () => {
    expect(parseFuzziness(0)).toEqual({ auto: false, edits: 0 });
    expect(parseFuzziness(1.7)).toEqual({ auto: false, edits: 1 });
    expect(parseFuzziness('2')).toEqual({ auto: false, edits: 2 });
    expect(parseFuzziness('1.0')).toEqual({ auto: false, edits: 1 });
  });
  it('reads AUTO and AUTO:low,high in any case', () => {
    expect(parseFuzziness('auto')).toEqual(AUTO);
    expect(parseFuzziness('Auto:2,5')).toEqual({ auto: true, low: 2, high: 5 });
  });
  it("answers ES's errors", () => {
    expect(err(3)).toEqual(['illegal_argument_exception', 'Valid edit distances are [0, 1, 2] but was [3]']);
    expect(err('-1')).toEqual(['illegal_argument_exception', 'Valid edit distances are [0, 1, 2] but was [-1]']);
    expect(err('1.2')).toEqual(['illegal_argument_exception', 'fuzziness needs to be one of 0.0, 1.0 or 2.0 but was 1.2']);
    expect(err('foo')).toEqual(['illegal_argument_exception', 'fuzziness cannot be [foo].']);
    expect(err('')).toEqual(['illegal_argument_exception', 'fuzziness cannot be null or empty.']);
    expect(err(true)).toEqual(['illegal_argument_exception', "Can't parse fuzziness on token: [VALUE_BOOLEAN]"]);
    expect(err('AUTO:3')).toEqual(['parse_exception', 'failed to find low and high distance values']);
    expect(err('auto:a,4')).toEqual(['parse_exception', 'failed to parse [AUTO:A,4] as a "auto:int,int"']);
    expect(err('AUTO:6,3')).toEqual(['parse_exception', 'fuzziness wrongly configured [AUTO:6,3]. Must be 0 < lower value <= higher value.']);
  });
});
