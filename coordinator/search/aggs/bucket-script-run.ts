/**
 * Evaluates a parsed `bucket_script` / `bucket_selector` script (protocol/bucket-script.ts) at
 * reduce, with Painless's `def` arithmetic: an integer literal stays an integer through
 * `+ - * / %` with other integers (`7 / 2` is 3), anything with a double is a double (bucket values
 * always are), comparisons with NaN are false, and a wrong type or a null operand is a runtime error
 * (400 `script_exception`, `runtime error`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-pipeline-bucket-script-aggregation.html
 * @see https://www.elastic.co/guide/en/elasticsearch/painless/8.15/painless-operators.html
 */
import { scriptError, type BinaryOp, type BucketScript, type ScriptExpr } from '../../../protocol/bucket-script.ts';
import type { EsError, ErrorCause } from '../../../protocol/errors.ts';

/** A runtime value: a number that knows whether it is an integer (Painless int/long), a boolean, or null. */
type Value = { n: number; int: boolean } | boolean | null;

type Num = { n: number; int: boolean };

type Fail = (at: number, cause: ErrorCause) => never;

/**
 * The error of a script whose result has the wrong type for its pipeline (`bucket_script` must
 * return a number or null, `bucket_selector` a boolean), as Painless's cast of the returned value fails.
 */
export function scriptReturnError(script: BucketScript, got: number | boolean | null, expected: 'java.lang.Number' | 'boolean'): EsError {
  const type = got === null ? 'null' : typeof got === 'boolean' ? 'java.lang.Boolean' : 'java.lang.Double';
  return scriptError('runtime error', script.source, script.lang, 0, { type: 'class_cast_exception', reason: `Cannot cast from [${type}] to [${expected}].` });
}

/** The Java class name Painless prints for a value (in runtime error texts). */
function javaType(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  return v.int ? 'java.lang.Integer' : 'java.lang.Double';
}

/** The arithmetic and ordering operators on two numbers (integer division truncates; `/ 0` on integers fails). */
function arithmetic(op: Exclude<BinaryOp, '&&' | '||' | '==' | '!='>, a: Num, b: Num, at: number, fail: Fail): Value {
  const int = a.int && b.int;
  switch (op) {
    case '<':
      return a.n < b.n;
    case '<=':
      return a.n <= b.n;
    case '>':
      return a.n > b.n;
    case '>=':
      return a.n >= b.n;
    case '+':
      return { n: a.n + b.n, int };
    case '-':
      return { n: a.n - b.n, int };
    case '*':
      return { n: a.n * b.n, int };
    case '/':
      if (int && b.n === 0) return fail(at, { type: 'arithmetic_exception', reason: '/ by zero' });
      return { n: int ? Math.trunc(a.n / b.n) : a.n / b.n, int };
    case '%':
      if (int && b.n === 0) return fail(at, { type: 'arithmetic_exception', reason: '/ by zero' });
      return { n: a.n % b.n, int };
  }
}

/**
 * Evaluates a script with its variables (`params` and the buckets_path values, doubles; NaN for a
 * gap). Returns a number, a boolean or null.
 * @throws EsError 400 `script_exception` `runtime error` for an operation on a wrong type or null
 *   (`class_cast_exception`, `null_pointer_exception`) or an integer division by zero
 *   (`arithmetic_exception` `/ by zero`)
 */
export function runBucketScript(script: BucketScript, vars: Readonly<Record<string, number | boolean | null>>): number | boolean | null {
  const fail: Fail = (at, cause) => {
    throw scriptError('runtime error', script.source, script.lang, at, cause);
  };
  const num = (v: Value, op: string, other: Value, at: number): Num => {
    if (v === null) return fail(at, { type: 'null_pointer_exception', reason: `cannot apply [${op}] to a null value` });
    if (typeof v === 'boolean')
      return fail(at, { type: 'class_cast_exception', reason: `Cannot apply [${op}] operation to types [${javaType(v)}] and [${javaType(other)}].` });
    return v;
  };
  const bool = (v: Value, op: string, at: number): boolean => {
    if (typeof v !== 'boolean') return fail(at, { type: 'class_cast_exception', reason: `Cannot apply [${op}] operation to type [${javaType(v)}].` });
    return v;
  };
  const ev = (e: ScriptExpr): Value => {
    switch (e.k) {
      case 'num':
        return { n: e.v, int: e.int };
      case 'bool':
        return e.v;
      case 'null':
        return null;
      case 'var': {
        const v = Object.hasOwn(vars, e.name) ? vars[e.name] : Object.hasOwn(script.params, e.name) ? script.params[e.name] : null;
        return typeof v === 'number' ? { n: v, int: Object.hasOwn(vars, e.name) ? false : Number.isInteger(v) } : v;
      }
      case 'un': {
        const v = ev(e.e);
        if (e.op === '!') return !bool(v, '!', e.at);
        const x = num(v, e.op, v, e.at);
        return e.op === '-' ? { n: -x.n, int: x.int } : x;
      }
      case 'cond':
        return bool(ev(e.c), '?', e.at) ? ev(e.t) : ev(e.f);
      case 'bin': {
        if (e.op === '&&') return bool(ev(e.l), '&&', e.at) && bool(ev(e.r), '&&', e.at);
        if (e.op === '||') return bool(ev(e.l), '||', e.at) || bool(ev(e.r), '||', e.at);
        const l = ev(e.l);
        const r = ev(e.r);
        if (e.op === '==' || e.op === '!=') {
          const same = l === null || r === null || typeof l === 'boolean' || typeof r === 'boolean' ? l === r : l.n === r.n;
          return e.op === '==' ? same : !same;
        }
        return arithmetic(e.op, num(l, e.op, r, e.at), num(r, e.op, l, e.at), e.at, fail);
      }
    }
  };
  const out = ev(script.expr);
  return out === null || typeof out === 'boolean' ? out : out.n;
}
