/**
 * The scripts of `bucket_script` and `bucket_selector`: a small, safe expression language, the
 * part of Painless these pipelines are written in (`params.a / params.b * 100`,
 * `params.total > 200 && params.count < 5`). Folio runs no general scripts: this parser accepts
 * numbers, `true`/`false`/`null`, variables (`params.x` or `params['x']` in Painless; bare `x` in
 * `lang: expression`), `+ - * / %`, comparisons, `== !=`, `&& || !`, `? :` and parentheses, an
 * optional leading `return` and trailing `;`; anything else is refused as Painless refuses a script
 * it cannot compile (400 `script_exception`, `compile error`). The parsed tree is plain JSON (it
 * travels in the aggregation tree). Evaluation follows Painless's `def` arithmetic: an integer
 * literal stays an integer through `+ - * / %` with other integers (`7 / 2` is 3), anything with a
 * double is a double (bucket values always are), comparisons with NaN are false, and a wrong type or
 * a null operand is a runtime error (400 `script_exception`, `runtime error`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-pipeline-bucket-script-aggregation.html
 * @see https://www.elastic.co/guide/en/elasticsearch/painless/8.15/painless-operators.html
 */
import { EsError, illegalArgument, type ErrorCause } from '../errors.ts';

/** Longest script source Folio compiles (ES's `script.max_size_in_bytes` is 65,535; these are one-liners). */
export const MAX_SCRIPT_CHARS = 4096;

/** Deepest nesting of parentheses and operators the parser follows. */
export const MAX_SCRIPT_DEPTH = 64;

/** A parsed expression (plain JSON). */
export type ScriptExpr =
  | { k: 'num'; v: number; int: boolean }
  | { k: 'bool'; v: boolean }
  | { k: 'null' }
  | { k: 'var'; name: string; at: number }
  | { k: 'un'; op: '!' | '-' | '+'; e: ScriptExpr; at: number }
  | { k: 'bin'; op: BinaryOp; l: ScriptExpr; r: ScriptExpr; at: number }
  | { k: 'cond'; c: ScriptExpr; t: ScriptExpr; f: ScriptExpr; at: number };

type BinaryOp = '+' | '-' | '*' | '/' | '%' | '<' | '<=' | '>' | '>=' | '==' | '!=' | '&&' | '||';

/** A compiled script: its source and language (for error bodies), tree and `params`. */
export interface BucketScript {
  source: string;
  lang: 'painless' | 'expression';
  expr: ScriptExpr;
  /** `script.params`: numbers and booleans the expression may read beside the buckets_path variables. */
  params: Record<string, number | boolean | null>;
}

/** A runtime value: a number that knows whether it is an integer (Painless int/long), a boolean, or null. */
type Value = { n: number; int: boolean } | boolean | null;

/** ES's `script_stack` and `position` for an offset in `source` (Painless prints the text around it). */
function where(source: string, offset: number): Record<string, unknown> {
  const start = Math.max(0, offset - 25);
  const end = Math.min(source.length, offset + 25);
  return {
    script_stack: [source.slice(start, end), `${' '.repeat(offset - start)}^---- HERE`],
    script: source,
    position: { offset, start, end },
  };
}

function scriptError(reason: 'compile error' | 'runtime error', source: string, lang: string, offset: number, cause: ErrorCause): EsError {
  const { script_stack, script, position } = where(source, offset);
  return new EsError(400, 'script_exception', reason, { metadata: { script_stack, script, lang, position }, causedBy: cause });
}

type Token = { t: 'num'; text: string; at: number } | { t: 'id'; text: string; at: number } | { t: 'str'; text: string; at: number } | { t: 'op'; text: string; at: number } | { t: 'eof'; text: '<EOF>'; at: number };

const OPERATORS = ['&&', '||', '<=', '>=', '==', '!=', '+', '-', '*', '/', '%', '<', '>', '!', '(', ')', '?', ':', '.', '[', ']', ';'];

function tokenize(src: string, fail: (at: number, cause: ErrorCause) => never): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const num = /^(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[dDfF]?/.exec(src.slice(i));
    if (num && /[\d.]/.test(c)) {
      if (/^[A-Za-z_]/.test(src.slice(i + num[0].length))) fail(i, { type: 'illegal_argument_exception', reason: `unexpected character [${src.slice(i, i + num[0].length + 1)}].` });
      out.push({ t: 'num', text: num[0], at: i });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) {
      out.push({ t: 'id', text: id[0], at: i });
      i += id[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) fail(i, { type: 'illegal_argument_exception', reason: `unexpected character [${c}].` });
      out.push({ t: 'str', text: src.slice(i + 1, end), at: i });
      i = end + 1;
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (!op) fail(i, { type: 'illegal_argument_exception', reason: `unexpected character [${c}].` });
    out.push({ t: 'op', text: op, at: i });
    i += op.length;
  }
  out.push({ t: 'eof', text: '<EOF>', at: src.length });
  return out;
}

const unsupported = (what: string): ErrorCause => ({
  type: 'illegal_argument_exception',
  reason: `${what} is not supported by Folio's bucket scripts (numbers, params, arithmetic, comparisons, && || !, ?: and parentheses)`,
});

/**
 * Parses a bucket script.
 * @throws EsError 400 `script_exception` `compile error` (with `script_stack`, `script`, `lang`,
 *   `position`) for a syntax error or a construct Folio does not evaluate; 400
 *   `illegal_argument_exception` for a script over {@link MAX_SCRIPT_CHARS}.
 * @example parseBucketScript('params.total > 200', 'painless', {}).expr
 */
export function parseBucketScript(source: string, lang: 'painless' | 'expression', params: BucketScript['params']): BucketScript {
  if (source.length > MAX_SCRIPT_CHARS) {
    throw illegalArgument(`exceeded max allowed inline script size in bytes [${MAX_SCRIPT_CHARS}] with size [${Buffer.byteLength(source)}] for script [${source.slice(0, 100)}]`);
  }
  const fail = (at: number, cause: ErrorCause): never => {
    throw scriptError('compile error', source, lang, at, cause);
  };
  const toks = tokenize(source, fail);
  let p = 0;
  let depth = 0;
  const peek = () => toks[p];
  const isOp = (text: string) => peek().t === 'op' && peek().text === text;
  const expect = (text: string) => {
    if (!isOp(text)) fail(peek().at, { type: 'illegal_argument_exception', reason: `invalid sequence of tokens near [${peek().text}].` });
    p++;
  };
  const deeper = (at: number) => {
    if (++depth > MAX_SCRIPT_DEPTH) fail(at, { type: 'illegal_argument_exception', reason: `expression nested deeper than ${MAX_SCRIPT_DEPTH} levels` });
  };

  const primary = (): ScriptExpr => {
    const tok = toks[p++];
    if (tok.t === 'num') {
      const text = tok.text.replace(/[dDfF]$/, '');
      const int = /^\d+$/.test(tok.text);
      return { k: 'num', v: Number(text), int };
    }
    if (tok.t === 'op' && tok.text === '(') {
      deeper(tok.at);
      const e = expression();
      expect(')');
      depth--;
      return e;
    }
    if (tok.t === 'id') {
      if (tok.text === 'true' || tok.text === 'false') return { k: 'bool', v: tok.text === 'true' };
      if (tok.text === 'null') return { k: 'null' };
      if (lang === 'expression') {
        if (isOp('(') || isOp('.')) fail(tok.at, unsupported(`[${tok.text}${peek().text}]`));
        return { k: 'var', name: tok.text, at: tok.at };
      }
      if (tok.text === 'params') {
        if (isOp('.')) {
          p++;
          const name = toks[p++];
          if (name.t !== 'id') fail(name.at, { type: 'illegal_argument_exception', reason: `invalid sequence of tokens near [${name.text}].` });
          if (isOp('(')) fail(name.at, unsupported(`the method call [params.${name.text}(…)]`));
          return { k: 'var', name: name.text, at: tok.at };
        }
        if (isOp('[')) {
          p++;
          const name = toks[p++];
          if (name.t !== 'str') fail(name.at, unsupported('an index that is not a string literal'));
          expect(']');
          return { k: 'var', name: name.text, at: tok.at };
        }
        fail(tok.at, unsupported('[params] as a value'));
      }
      if (tok.text === 'return') fail(tok.at, { type: 'illegal_argument_exception', reason: `invalid sequence of tokens near [return].` });
      fail(tok.at, unsupported(`[${tok.text}]`));
    }
    if (tok.t === 'str') fail(tok.at, unsupported('a string literal'));
    return fail(tok.at, { type: 'illegal_argument_exception', reason: `invalid sequence of tokens near [${tok.text}].` });
  };
  const unary = (): ScriptExpr => {
    const tok = peek();
    if (tok.t === 'op' && (tok.text === '!' || tok.text === '-' || tok.text === '+')) {
      p++;
      deeper(tok.at);
      const e = unary();
      depth--;
      if (tok.text === '-' && e.k === 'num') return { ...e, v: -e.v };
      return { k: 'un', op: tok.text, e, at: tok.at };
    }
    return primary();
  };
  const binary = (ops: readonly BinaryOp[], next: () => ScriptExpr) => (): ScriptExpr => {
    let l = next();
    for (;;) {
      const tok = peek();
      if (tok.t !== 'op' || !(ops as readonly string[]).includes(tok.text)) return l;
      p++;
      l = { k: 'bin', op: tok.text as BinaryOp, l, r: next(), at: tok.at };
    }
  };
  const mult = binary(['*', '/', '%'], unary);
  const add = binary(['+', '-'], mult);
  const rel = binary(['<', '<=', '>', '>='], add);
  const eq = binary(['==', '!='], rel);
  const and = binary(['&&'], eq);
  const or = binary(['||'], and);
  function expression(): ScriptExpr {
    const c = or();
    if (!isOp('?')) return c;
    const at = peek().at;
    p++;
    deeper(at);
    const t = expression();
    expect(':');
    const f = expression();
    depth--;
    return { k: 'cond', c, t, f, at };
  }

  if (peek().t === 'id' && peek().text === 'return') p++;
  const expr = expression();
  if (isOp(';')) p++;
  if (peek().t !== 'eof') {
    const tok = peek();
    if (tok.t === 'op' && (tok.text === ';' || tok.text === '.')) fail(tok.at, unsupported(tok.text === ';' ? 'more than one statement' : 'a method call or field access'));
    fail(tok.at, { type: 'illegal_argument_exception', reason: `invalid sequence of tokens near [${tok.text}].` });
  }
  return { source, lang, expr, params };
}

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

/**
 * Evaluates a script with its variables (`params` and the buckets_path values, doubles; NaN for a
 * gap). Returns a number, a boolean or null.
 * @throws EsError 400 `script_exception` `runtime error` for an operation on a wrong type or null
 *   (`class_cast_exception`, `null_pointer_exception`) or an integer division by zero
 *   (`arithmetic_exception` `/ by zero`)
 */
export function runBucketScript(script: BucketScript, vars: Readonly<Record<string, number | boolean | null>>): number | boolean | null {
  const fail = (at: number, cause: ErrorCause): never => {
    throw scriptError('runtime error', script.source, script.lang, at, cause);
  };
  const num = (v: Value, op: string, other: Value, at: number): { n: number; int: boolean } => {
    if (v === null) return fail(at, { type: 'null_pointer_exception', reason: `cannot apply [${op}] to a null value` });
    if (typeof v === 'boolean') return fail(at, { type: 'class_cast_exception', reason: `Cannot apply [${op}] operation to types [${javaType(v)}] and [${javaType(other)}].` });
    return v;
  };
  const bool = (v: Value, op: string, at: number): boolean => {
    if (typeof v !== 'boolean') return fail(at, { type: 'class_cast_exception', reason: `Cannot apply [${op}] operation to type [${javaType(v)}].` });
    return v;
  };
  const ev = (e: ScriptExpr): Value => {
    switch (e.k) {
      case 'num': return { n: e.v, int: e.int };
      case 'bool': return e.v;
      case 'null': return null;
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
      case 'cond': return bool(ev(e.c), '?', e.at) ? ev(e.t) : ev(e.f);
      case 'bin': {
        if (e.op === '&&') return bool(ev(e.l), '&&', e.at) && bool(ev(e.r), '&&', e.at);
        if (e.op === '||') return bool(ev(e.l), '||', e.at) || bool(ev(e.r), '||', e.at);
        const l = ev(e.l);
        const r = ev(e.r);
        if (e.op === '==' || e.op === '!=') {
          const same = l === null || r === null || typeof l === 'boolean' || typeof r === 'boolean' ? l === r : l.n === r.n;
          return e.op === '==' ? same : !same;
        }
        const a = num(l, e.op, r, e.at);
        const b = num(r, e.op, l, e.at);
        const int = a.int && b.int;
        switch (e.op) {
          case '<': return a.n < b.n;
          case '<=': return a.n <= b.n;
          case '>': return a.n > b.n;
          case '>=': return a.n >= b.n;
          case '+': return { n: a.n + b.n, int };
          case '-': return { n: a.n - b.n, int };
          case '*': return { n: a.n * b.n, int };
          case '/':
            if (int && b.n === 0) return fail(e.at, { type: 'arithmetic_exception', reason: '/ by zero' });
            return { n: int ? Math.trunc(a.n / b.n) : a.n / b.n, int };
          case '%':
            if (int && b.n === 0) return fail(e.at, { type: 'arithmetic_exception', reason: '/ by zero' });
            return { n: a.n % b.n, int };
        }
      }
    }
  };
  const out = ev(script.expr);
  return out === null || typeof out === 'boolean' ? out : out.n;
}
