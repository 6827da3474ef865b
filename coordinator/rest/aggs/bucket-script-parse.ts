/**
 * Parses the `script` of `bucket_script` and `bucket_selector` into the {@link BucketScript} tree
 * (protocol/bucket-script.ts), the part of Painless these pipelines are written in. It accepts
 * numbers, `true`/`false`/`null`, variables (`params.x` or `params['x']` in Painless; bare `x` in
 * `lang: expression`), `+ - * / %`, comparisons, `== !=`, `&& || !`, `? :` and parentheses, an
 * optional leading `return` and trailing `;`, with Painless's precedence. Anything else is refused
 * as Painless refuses a script it cannot compile (400 `script_exception`, `compile error`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-pipeline-bucket-script-aggregation.html
 * @see https://www.elastic.co/guide/en/elasticsearch/painless/8.15/painless-operators.html
 */
import { illegalArgument, type ErrorCause } from '../../../protocol/errors.ts';
import { scriptError, type BinaryOp, type BucketScript, type ScriptExpr } from '../../../protocol/bucket-script.ts';

/** Longest script source Folio compiles (ES's `script.max_size_in_bytes` is 65,535; these are one-liners). */
export const MAX_SCRIPT_CHARS = 4096;

/** Deepest nesting of parentheses and operators the parser follows. */
export const MAX_SCRIPT_DEPTH = 64;

type Token =
  | { t: 'num'; text: string; at: number }
  | { t: 'id'; text: string; at: number }
  | { t: 'str'; text: string; at: number }
  | { t: 'op'; text: string; at: number }
  | { t: 'eof'; text: '<EOF>'; at: number };

type Fail = (at: number, cause: ErrorCause) => never;

const OPERATORS = ['&&', '||', '<=', '>=', '==', '!=', '+', '-', '*', '/', '%', '<', '>', '!', '(', ')', '?', ':', '.', '[', ']', ';'];

/** Binary operator levels, loosest first (Painless's precedence). */
const LEVELS: readonly (readonly BinaryOp[])[] = [['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];

const invalidNear = (text: string): ErrorCause => ({ type: 'illegal_argument_exception', reason: `invalid sequence of tokens near [${text}].` });

const unsupported = (what: string): ErrorCause => ({
  type: 'illegal_argument_exception',
  reason: `${what} is not supported by Folio's bucket scripts (numbers, params, arithmetic, comparisons, && || !, ?: and parentheses)`,
});

function tokenize(src: string, fail: Fail): Token[] {
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
      if (/^[A-Za-z_]/.test(src.slice(i + num[0].length)))
        fail(i, { type: 'illegal_argument_exception', reason: `unexpected character [${src.slice(i, i + num[0].length + 1)}].` });
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

/** A recursive-descent parser over one script's tokens, nesting bounded by {@link MAX_SCRIPT_DEPTH}. */
class ScriptParser {
  private readonly toks: Token[];
  private readonly lang: BucketScript['lang'];
  private readonly fail: Fail;
  private p = 0;
  private depth = 0;

  constructor(toks: Token[], lang: BucketScript['lang'], fail: Fail) {
    this.toks = toks;
    this.lang = lang;
    this.fail = fail;
  }

  /** The whole script: an optional `return`, one expression, an optional `;`, then the end. */
  script(): ScriptExpr {
    if (this.peek().t === 'id' && this.peek().text === 'return') this.p++;
    const expr = this.expression();
    if (this.isOp(';')) this.p++;
    const tok = this.peek();
    if (tok.t !== 'eof') {
      if (tok.t === 'op' && (tok.text === ';' || tok.text === '.'))
        this.fail(tok.at, unsupported(tok.text === ';' ? 'more than one statement' : 'a method call or field access'));
      this.fail(tok.at, invalidNear(tok.text));
    }
    return expr;
  }

  private peek(): Token {
    return this.toks[this.p];
  }

  private isOp(text: string): boolean {
    return this.peek().t === 'op' && this.peek().text === text;
  }

  private expect(text: string): void {
    if (!this.isOp(text)) this.fail(this.peek().at, invalidNear(this.peek().text));
    this.p++;
  }

  private deeper(at: number): void {
    if (++this.depth > MAX_SCRIPT_DEPTH)
      this.fail(at, { type: 'illegal_argument_exception', reason: `expression nested deeper than ${MAX_SCRIPT_DEPTH} levels` });
  }

  /** `c ? t : f` (right-associative) over the binary levels. */
  private expression(): ScriptExpr {
    const c = this.binary(0);
    if (!this.isOp('?')) return c;
    const at = this.peek().at;
    this.p++;
    this.deeper(at);
    const t = this.expression();
    this.expect(':');
    const f = this.expression();
    this.depth--;
    return { k: 'cond', c, t, f, at };
  }

  /** Left-associative binary operators of `LEVELS[level]` and tighter. */
  private binary(level: number): ScriptExpr {
    if (level === LEVELS.length) return this.unary();
    const ops: readonly string[] = LEVELS[level];
    let l = this.binary(level + 1);
    for (;;) {
      const tok = this.peek();
      if (tok.t !== 'op' || !ops.includes(tok.text)) return l;
      this.p++;
      l = { k: 'bin', op: tok.text as BinaryOp, l, r: this.binary(level + 1), at: tok.at };
    }
  }

  private unary(): ScriptExpr {
    const tok = this.peek();
    if (tok.t === 'op' && (tok.text === '!' || tok.text === '-' || tok.text === '+')) {
      this.p++;
      this.deeper(tok.at);
      const e = this.unary();
      this.depth--;
      if (tok.text === '-' && e.k === 'num') return { ...e, v: -e.v };
      return { k: 'un', op: tok.text, e, at: tok.at };
    }
    return this.primary();
  }

  private primary(): ScriptExpr {
    const tok = this.toks[this.p++];
    if (tok.t === 'num') return { k: 'num', v: Number(tok.text.replace(/[dDfF]$/, '')), int: /^\d+$/.test(tok.text) };
    if (tok.t === 'op' && tok.text === '(') {
      this.deeper(tok.at);
      const e = this.expression();
      this.expect(')');
      this.depth--;
      return e;
    }
    if (tok.t === 'id') return this.name(tok);
    if (tok.t === 'str') this.fail(tok.at, unsupported('a string literal'));
    return this.fail(tok.at, invalidNear(tok.text));
  }

  /** A name: a literal, a bare variable (`lang: expression`), or `params.x` / `params['x']`. */
  private name(tok: Token): ScriptExpr {
    if (tok.text === 'true' || tok.text === 'false') return { k: 'bool', v: tok.text === 'true' };
    if (tok.text === 'null') return { k: 'null' };
    if (this.lang === 'expression') {
      if (this.isOp('(') || this.isOp('.')) this.fail(tok.at, unsupported(`[${tok.text}${this.peek().text}]`));
      return { k: 'var', name: tok.text, at: tok.at };
    }
    if (tok.text === 'params') {
      if (this.isOp('.')) {
        this.p++;
        const name = this.toks[this.p++];
        if (name.t !== 'id') this.fail(name.at, invalidNear(name.text));
        if (this.isOp('(')) this.fail(name.at, unsupported(`the method call [params.${name.text}(…)]`));
        return { k: 'var', name: name.text, at: tok.at };
      }
      if (this.isOp('[')) {
        this.p++;
        const name = this.toks[this.p++];
        if (name.t !== 'str') this.fail(name.at, unsupported('an index that is not a string literal'));
        this.expect(']');
        return { k: 'var', name: name.text, at: tok.at };
      }
      this.fail(tok.at, unsupported('[params] as a value'));
    }
    if (tok.text === 'return') this.fail(tok.at, invalidNear('return'));
    return this.fail(tok.at, unsupported(`[${tok.text}]`));
  }
}

/**
 * Parses a bucket script.
 * @throws EsError 400 `script_exception` `compile error` (with `script_stack`, `script`, `lang`,
 *   `position`) for a syntax error or a construct Folio does not evaluate; 400
 *   `illegal_argument_exception` for a script over {@link MAX_SCRIPT_CHARS}.
 * @example parseBucketScript('params.total > 200', 'painless', {}).expr
 */
export function parseBucketScript(source: string, lang: BucketScript['lang'], params: BucketScript['params']): BucketScript {
  if (source.length > MAX_SCRIPT_CHARS) {
    throw illegalArgument(
      `exceeded max allowed inline script size in bytes [${MAX_SCRIPT_CHARS}] with size [${Buffer.byteLength(source)}] for script [${source.slice(0, 100)}]`,
    );
  }
  const fail: Fail = (at, cause) => {
    throw scriptError('compile error', source, lang, at, cause);
  };
  const expr = new ScriptParser(tokenize(source, fail), lang, fail).script();
  return { source, lang, expr, params };
}
