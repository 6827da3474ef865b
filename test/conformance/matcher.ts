/**
 * The conformance suite's partial matcher: compares an expected YAML value with an actual JSON
 * value and lists every mismatch with its path. Objects match partially (extra actual keys are
 * fine), arrays match exactly (same length, element by element) unless written `{$contains: […]}`,
 * and a few `$` markers stand for "any value of this kind". test/conformance/README.md documents it.
 */

/** One difference between the expected and the actual value, at a dotted path (`body.hits.total`). */
export interface Mismatch {
  path: string;
  expected: unknown;
  actual: unknown;
  why: string;
}

/** String markers accepted anywhere an expected value can stand. */
const MARKERS: Record<string, (v: unknown) => boolean> = {
  $any: (v) => v !== undefined,
  $absent: (v) => v === undefined,
  $number: (v) => typeof v === 'number',
  $string: (v) => typeof v === 'string',
  $boolean: (v) => typeof v === 'boolean',
  $array: (v) => Array.isArray(v),
  $object: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The single `$`-operator key of an expected object (`{$contains: …}`), or null. */
function operatorOf(e: Record<string, unknown>): string | null {
  const keys = Object.keys(e);
  return keys.length === 1 && keys[0].startsWith('$') ? keys[0] : null;
}

/**
 * Matches `actual` against `expected` and returns the mismatches (empty when it matches).
 * @example match({ hits: { total: { value: 3 } } }, body) // [] when body.hits.total.value === 3
 */
export function match(expected: unknown, actual: unknown, path = 'body'): Mismatch[] {
  const miss = (why: string): Mismatch[] => [{ path, expected, actual, why }];
  if (typeof expected === 'string' && Object.hasOwn(MARKERS, expected)) {
    return MARKERS[expected](actual) ? [] : miss(`not ${expected}`);
  }
  if (isPlainObject(expected)) {
    const op = operatorOf(expected);
    if (op !== null) return matchOperator(op, expected[op], actual, path);
    if (!isPlainObject(actual)) return miss('expected an object');
    return Object.entries(expected).flatMap(([k, e]) => match(e, actual[k], `${path}.${k}`));
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return miss('expected an array');
    if (actual.length !== expected.length) return miss(`array length ${actual.length}, expected ${expected.length}`);
    return expected.flatMap((e, i) => match(e, actual[i], `${path}.${i}`));
  }
  return Object.is(expected, actual) || expected === actual ? [] : miss('different value');
}

/** `$contains` (every expected element matches some actual element), `$length`, `$regex`, `$gte`, `$not`. */
function matchOperator(op: string, arg: unknown, actual: unknown, path: string): Mismatch[] {
  const miss = (why: string): Mismatch[] => [{ path, expected: { [op]: arg }, actual, why }];
  switch (op) {
    case '$contains': {
      if (!Array.isArray(actual)) return miss('expected an array');
      const wanted = Array.isArray(arg) ? arg : [arg];
      const absent = wanted.filter((e) => !actual.some((a) => match(e, a).length === 0));
      return absent.length === 0 ? [] : miss(`no element matches ${JSON.stringify(absent)}`);
    }
    case '$length':
      return (Array.isArray(actual) || typeof actual === 'string') && actual.length === arg ? [] : miss(`length is not ${String(arg)}`);
    case '$regex':
      return typeof actual === 'string' && new RegExp(String(arg), 's').test(actual) ? [] : miss(`does not match /${String(arg)}/`);
    case '$gte':
      return typeof actual === 'number' && actual >= Number(arg) ? [] : miss(`not >= ${String(arg)}`);
    case '$not':
      return match(arg, actual, path).length > 0 ? [] : miss('matches, expected it not to');
    default:
      throw new Error(`unknown matcher operator [${op}] at ${path}`);
  }
}
