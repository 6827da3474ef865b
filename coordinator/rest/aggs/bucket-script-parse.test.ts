import { describe, expect, it } from 'vitest';
import { EsError } from '../../../protocol/errors.ts';
import { MAX_SCRIPT_CHARS, parseBucketScript } from './bucket-script-parse.ts';

const errorOf = (f: () => unknown): EsError => {
  try {
    f();
  } catch (e) {
    if (e instanceof EsError) return e;
    throw e;
  }
  throw new Error('no error');
};

describe('bucket script parsing (Painless subset)', () => {
  it('refuses what it cannot compile with a script_exception compile error', () => {
    for (const src of [
      'params.x >',
      'Math.max(1, 2)',
      'params.x.intValue()',
      "'a' == 'b'",
      'x = 1',
      'params.a; params.b',
      'doc["x"].value',
      '1 +* 2',
      '(1',
      'params',
      'return',
      '1 $ 2',
    ]) {
      const e = errorOf(() => parseBucketScript(src, 'painless', {}));
      expect(e.status, src).toBe(400);
      expect(e.type, src).toBe('script_exception');
      expect(e.message, src).toBe('compile error');
      expect(e.metadata.lang).toBe('painless');
      expect(e.metadata.script).toBe(src);
      expect(e.causedBy?.type).toBe('illegal_argument_exception');
    }
  });

  it('bounds the length and the nesting', () => {
    expect(errorOf(() => parseBucketScript('1+'.repeat(MAX_SCRIPT_CHARS) + '1', 'painless', {})).type).toBe('illegal_argument_exception');
    expect(errorOf(() => parseBucketScript('('.repeat(200) + '1' + ')'.repeat(200), 'painless', {})).type).toBe('script_exception');
  });

  it('refuses params access in lang expression', () => {
    expect(errorOf(() => parseBucketScript('params.a', 'expression', {})).type).toBe('script_exception');
  });
});
