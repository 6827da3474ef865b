import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EsError } from '../../../protocol/errors.ts';
import { parseBucketScript } from '../../rest/aggs/bucket-script-parse.ts';
import { runBucketScript } from './bucket-script-run.ts';

const run = (src: string, vars: Record<string, number | boolean | null> = {}, params: Record<string, number | boolean | null> = {}) =>
  runBucketScript(parseBucketScript(src, 'painless', params), vars);

const errorOf = (f: () => unknown): EsError => {
  try {
    f();
  } catch (e) {
    if (e instanceof EsError) return e;
    throw e;
  }
  throw new Error('no error');
};

describe('bucket script evaluation (Painless subset)', () => {
  it('reads params, with dot and bracket access', () => {
    expect(run('params.a / params.b * 100', { a: 1, b: 4 })).toBe(25);
    expect(run('params[\'a\'] + params["b"]', { a: 1.5, b: 2 })).toBe(3.5);
    expect(run('return params.a;', { a: 7 })).toBe(7);
  });

  it('follows Painless precedence and associativity', () => {
    expect(run('2 + 3 * 4')).toBe(14);
    expect(run('(2 + 3) * 4')).toBe(20);
    expect(run('10 - 4 - 3')).toBe(3);
    expect(run('2 * 3 % 4')).toBe(2);
    expect(run('-2 * -3')).toBe(6);
    expect(run('1 < 2 == true')).toBe(true);
    expect(run('true || false && false')).toBe(true);
    expect(run('!(1 > 2) ? 10 : 20')).toBe(10);
    expect(run('false ? 1 : true ? 2 : 3')).toBe(2);
  });

  it('keeps integer arithmetic for integer literals, doubles for bucket values', () => {
    expect(run('7 / 2')).toBe(3);
    expect(run('-7 / 2')).toBe(-3);
    expect(run('7 % 3')).toBe(1);
    expect(run('7.0 / 2')).toBe(3.5);
    expect(run('params.x / 2', { x: 7 })).toBe(3.5);
    expect(run('params.n / 2', {}, { n: 7 })).toBe(3); // an integer in script.params stays an integer
    expect(run('params.x / 0', { x: 1 })).toBe(Infinity);
  });

  it('compares NaN (a gap under skip) as false, as Java does', () => {
    expect(run('params.x > 10', { x: NaN })).toBe(false);
    expect(run('params.x <= 10', { x: NaN })).toBe(false);
    expect(run('params.x == params.x', { x: NaN })).toBe(false); // Painless's def == compares doubleValue()s
    expect(run('params.x != params.x', { x: NaN })).toBe(true);
  });

  it('fails at runtime on wrong types, null, and an integer division by zero', () => {
    expect(errorOf(() => run('params.x && true', { x: 1 })).causedBy?.type).toBe('class_cast_exception');
    expect(errorOf(() => run('params.nope > 1')).causedBy?.type).toBe('null_pointer_exception');
    expect(errorOf(() => run('1 / 0')).causedBy).toMatchObject({ type: 'arithmetic_exception', reason: '/ by zero' });
    expect(errorOf(() => run('1 / 0')).message).toBe('runtime error');
  });

  it('evaluates a long flat chain (the nesting bound is on depth only)', () => {
    expect(run('1' + '+1'.repeat(1000))).toBe(1001); // a long flat chain is fine
  });

  it('reads bare names in lang expression', () => {
    expect(runBucketScript(parseBucketScript('a / b', 'expression', {}), { a: 3, b: 4 })).toBe(0.75);
  });

  it('never throws anything but an EsError on random text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40, unit: fc.constantFrom(...'params.xy()[]\'"0123456789+-*/%<>=!&|?:; truefalsenul'.split('')) }), (src) => {
        try {
          run(src, { x: 1, y: 2 });
        } catch (e) {
          expect(e).toBeInstanceOf(EsError);
          expect((e as EsError).status).toBe(400);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
