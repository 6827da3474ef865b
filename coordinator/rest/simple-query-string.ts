/**
 * The `simple_query_string` query: Lucene's `SimpleQueryParser` grammar (`+` AND, `|` OR, `-` NOT,
 * `"phrase"` with `~N` slop, `term*` prefix, `term~N` fuzzy, `( )` precedence, `\` escapes, each
 * operator switched by `flags`), which never fails on odd input, with ES's
 * `SimpleQueryStringQueryParser` building each term on the fields: `match` terms, phrases, prefix
 * and fuzzy terms per field, summed over the fields (dis_max with tie breaker 1). The query's body
 * in the query DSL is read by simple-query-string-query.ts.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-simple-query-string-query.html
 * @see https://github.com/apache/lucene/blob/main/lucene/queryparser/src/java/org/apache/lucene/queryparser/simple/SimpleQueryParser.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/query/SimpleQueryStringBuilder.java
 */
import { illegalArgument } from '../../protocol/errors.ts';
import type { FuzzyOptions } from '../../protocol/fuzziness.ts';
import type { Operator, Query } from '../../protocol/query-ast.ts';

const NAME = 'simple_query_string';

/** Lucene `SimpleQueryParser` operator flags (ES `SimpleQueryStringFlag`; `SLOP` is `NEAR`). */
export const SimpleFlags = {
  AND: 1,
  NOT: 2,
  OR: 4,
  PREFIX: 8,
  PHRASE: 16,
  PRECEDENCE: 32,
  ESCAPE: 64,
  WHITESPACE: 128,
  FUZZY: 256,
  NEAR: 512,
  SLOP: 512,
} as const;
/** Every operator flag (ES `SimpleQueryStringFlag.ALL`); any negative `flags` int means it too. */
export const ALL_SIMPLE_FLAGS = -1;

/**
 * ES `SimpleQueryStringFlag.resolveFlags`: `|`-separated names in any case; `NONE` and `ALL` win at once.
 * @throws EsError 400 `illegal_argument_exception` `Unknown simple_query_string flag [x]`.
 * @example resolveSimpleFlags('prefix|phrase') // 24
 */
export function resolveSimpleFlags(text: string): number {
  if (text === '') return ALL_SIMPLE_FLAGS;
  let flags = 0;
  for (const s of text.split('|')) {
    if (s === '') continue;
    const up = s.toUpperCase();
    if (up === 'NONE') return 0;
    if (up === 'ALL') return ALL_SIMPLE_FLAGS;
    if (!Object.hasOwn(SimpleFlags, up)) throw illegalArgument(`Unknown ${NAME} flag [${s}]`);
    flags |= SimpleFlags[up as keyof typeof SimpleFlags];
  }
  return flags;
}

/** How each term of the query becomes a query on the fields. */
export interface SimpleQueryOptions {
  fields: { field: string; boost: number }[];
  defaultOperator: Operator;
  flags: number;
  analyzer?: string;
  lenient?: boolean;
  analyzeWildcard?: boolean;
  fuzzy: Omit<FuzzyOptions, 'fuzziness'>;
}

type Occur = 'must' | 'should' | 'mustNot';
const MATCH_ALL: Query = { kind: 'match_all', boost: 1 };
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** Parenthesis nesting Folio parses before refusing the query (Lucene recurses without a bound). */
export const MAX_SIMPLE_DEPTH = 256;

/**
 * One level of `SimpleQueryParser`'s state: the characters `data[index..end)`, the tree so far and
 * the pending operator.
 */
interface State {
  data: string[];
  index: number;
  end: number;
  depth: number;
  top: Query | null;
  current: Occur | null;
  previous: Occur | null;
  not: number;
}

/** A port of `SimpleQueryParser`'s hand-written scanner, building the shared query tree. */
class SimpleParser {
  private readonly opts: SimpleQueryOptions;
  private readonly defaultOccur: Occur;
  /** The query's characters, and (when it has no escapes) each `(`'s matching `)` position or -1. */
  private root: string[] = [];
  private closeOf: Int32Array | null = null;

  constructor(opts: SimpleQueryOptions) {
    this.opts = opts;
    this.defaultOccur = opts.defaultOperator === 'and' ? 'must' : 'should';
  }

  private has(flag: number): boolean {
    return (this.opts.flags & flag) !== 0;
  }

  parse(text: string): Query {
    if (text.trim() === '*') return MATCH_ALL;
    this.root = Array.from(text);
    if (this.has(SimpleFlags.PRECEDENCE) && !(this.has(SimpleFlags.ESCAPE) && text.includes('\\'))) this.closeOf = matchParens(this.root);
    const state: State = { data: this.root, index: 0, end: this.root.length, depth: 0, top: null, current: null, previous: null, not: 0 };
    this.parseSubQuery(state);
    return state.top ?? { kind: 'match_none', boost: 1 };
  }

  private parseSubQuery(state: State): void {
    const F = SimpleFlags;
    while (state.index < state.end) {
      const c = state.data[state.index];
      if (c === '(' && this.has(F.PRECEDENCE)) this.consumeSubQuery(state);
      else if (c === ')' && this.has(F.PRECEDENCE))
        state.index++; // an extraneous ')' is ignored
      else if (c === '"' && this.has(F.PHRASE)) this.consumePhrase(state);
      else if (c === '+' && this.has(F.AND)) {
        if (state.current === null && state.top !== null) state.current = 'must';
        state.index++;
      } else if (c === '|' && this.has(F.OR)) {
        if (state.current === null && state.top !== null) state.current = 'should';
        state.index++;
      } else if (c === '-' && this.has(F.NOT)) {
        state.not++;
        state.index++;
        continue;
      } else if (isSpace(c) && this.has(F.WHITESPACE)) state.index++;
      else this.consumeToken(state);
      state.not = 0;
    }
  }

  /**
   * `( … )`: parsed as a query of its own. Lucene copies the text between the parentheses without
   * its escape backslashes and parses the copy; a query without escapes is parsed in place instead,
   * its parentheses matched once up front, so nesting costs no copies.
   * @throws EsError 400 past {@link MAX_SIMPLE_DEPTH} nested parentheses.
   */
  private consumeSubQuery(state: State): void {
    if (state.depth >= MAX_SIMPLE_DEPTH) throw illegalArgument(`[${NAME}] query nests more than ${MAX_SIMPLE_DEPTH} parentheses, which Folio does not parse`);
    if (state.data === this.root && this.closeOf) {
      const open = state.index;
      const close = this.closeOf[open];
      const stop = close < 0 || close > state.end ? state.end : close;
      if (stop > open + 1) {
        const sub: State = { data: state.data, index: open + 1, end: stop, depth: state.depth + 1, top: null, current: null, previous: null, not: 0 };
        this.parseSubQuery(sub);
        this.buildQueryTree(state, sub.top);
      }
      state.index = stop + 1;
      return;
    }
    state.index++;
    let precedence = 1;
    let escaped = false;
    const buf: string[] = [];
    while (state.index < state.end) {
      const c = state.data[state.index];
      if (!escaped) {
        if (c === '\\' && this.has(SimpleFlags.ESCAPE)) {
          escaped = true;
          state.index++;
          continue;
        } else if (c === '(') precedence++;
        else if (c === ')') {
          precedence--;
          if (precedence === 0) break;
        }
      }
      escaped = false;
      buf.push(c);
      state.index++;
    }
    if (buf.length > 0) {
      const sub: State = { data: buf, index: 0, end: buf.length, depth: state.depth + 1, top: null, current: null, previous: null, not: 0 };
      this.parseSubQuery(sub);
      this.buildQueryTree(state, sub.top);
    }
    state.index++; // the closing parenthesis
  }

  private consumePhrase(state: State): void {
    state.index++;
    const start = state.index;
    let escaped = false;
    let hasSlop = false;
    const buf: string[] = [];
    while (state.index < state.end) {
      const c = state.data[state.index];
      if (!escaped) {
        if (c === '\\' && this.has(SimpleFlags.ESCAPE)) {
          escaped = true;
          state.index++;
          continue;
        } else if (c === '"') {
          if (state.end > state.index + 1 && state.data[state.index + 1] === '~' && this.has(SimpleFlags.NEAR)) {
            state.index++;
            if (state.end > state.index + 1) hasSlop = true;
          }
          break;
        }
      }
      escaped = false;
      buf.push(c);
      state.index++;
    }
    if (state.index === state.end) {
      state.index = start; // no closing quote: the opening one is read as escaped
    } else if (buf.length > 0) {
      const slop = hasSlop ? this.parseFuzziness(state) : 0;
      this.buildQueryTree(
        state,
        this.onFields((f) => ({ kind: 'match_phrase', field: f, query: buf.join(''), slop, boost: 1 })),
      );
      state.index++;
    }
  }

  private tokenFinished(state: State): boolean {
    const c = state.data[state.index];
    const F = SimpleFlags;
    return (
      (c === '"' && this.has(F.PHRASE)) ||
      (c === '|' && this.has(F.OR)) ||
      (c === '+' && this.has(F.AND)) ||
      ((c === '(' || c === ')') && this.has(F.PRECEDENCE)) ||
      (isSpace(c) && this.has(F.WHITESPACE))
    );
  }

  private consumeToken(state: State): void {
    const buf: string[] = [];
    let escaped = false;
    let prefix = false;
    let fuzzy = false;
    while (state.index < state.end) {
      const c = state.data[state.index];
      if (!escaped) {
        if (c === '\\' && this.has(SimpleFlags.ESCAPE)) {
          escaped = true;
          state.index++;
          continue;
        } else if (this.tokenFinished(state)) break;
        else if (buf.length > 0 && c === '~' && this.has(SimpleFlags.FUZZY)) {
          fuzzy = true;
          break;
        }
        prefix = buf.length > 0 && c === '*' && this.has(SimpleFlags.PREFIX);
      }
      escaped = false;
      buf.push(c);
      state.index++;
    }
    if (buf.length === 0) return;
    let branch: Query;
    if (fuzzy) {
      const text = buf.join('');
      const edits = Math.min(this.parseFuzziness(state), 2);
      branch = edits === 0 ? this.defaultQuery(text) : this.fuzzyQuery(text, edits as 1 | 2);
    } else if (prefix) {
      const text = buf.slice(0, -1).join('');
      branch = this.prefixQuery(text);
    } else branch = this.defaultQuery(buf.join(''));
    this.buildQueryTree(state, branch);
  }

  /** The number after `~` (2 when absent, 0 when not a number or negative), consuming it. */
  private parseFuzziness(state: State): number {
    if (state.data[state.index] !== '~') return 0;
    let text = '';
    while (state.index < state.end) {
      state.index++;
      if (state.index < state.end) {
        if (this.tokenFinished(state)) break;
        text += state.data[state.index];
      }
    }
    if (text === '') return 2;
    const n = /^[+-]?[0-9]+$/.test(text) ? Number(text) : 0;
    return n > 2147483647 || n < 0 ? 0 : n;
  }

  private buildQueryTree(state: State, branch: Query | null): void {
    if (branch === null) return;
    let b = branch;
    if (state.not % 2 === 1) b = { kind: 'bool', must: [], should: [MATCH_ALL], filter: [], mustNot: [b], boost: 1 };
    if (state.top === null) state.top = b;
    else {
      state.current ??= this.defaultOccur;
      if (state.previous !== state.current) state.top = boolOf(state.current, [state.top]);
      state.top = addClause(state.top, state.current, b);
      state.previous = state.current;
    }
    state.current = null;
  }

  /**
   * `make(f)` on the fields: one concrete field directly, else a `multi_field` node summing the
   * fields (ES builds these as `MOST_FIELDS` queries and dis_max with tie breaker 1.0).
   */
  private onFields(make: (f: string) => Query): Query {
    const fs = this.opts.fields;
    if (fs.length === 1 && fs[0].boost === 1 && !fs[0].field.includes('*') && this.opts.lenient !== true) return make(fs[0].field);
    const lenient = this.opts.lenient ?? fs.some((f) => f.field === '*');
    return { kind: 'multi_field', fields: fs, query: make(''), tieBreaker: 1, lenient, boost: 1 };
  }

  private defaultQuery(text: string): Query {
    const analyzer = this.opts.analyzer === undefined ? {} : { analyzer: this.opts.analyzer };
    return this.onFields((f) => ({ kind: 'match', field: f, query: text, operator: this.opts.defaultOperator, ...analyzer, boost: 1 }));
  }

  /** The forced analyzer, when there is one: prefix and fuzzy terms normalize with it, analyzed ones use it. */
  private normalize(): { analyzer?: string } {
    return this.opts.analyzer === undefined ? {} : { analyzer: this.opts.analyzer };
  }

  private prefixQuery(text: string): Query {
    if (this.opts.analyzeWildcard) {
      const analyzer = this.normalize();
      return this.onFields((f) => ({ kind: 'match_bool_prefix', field: f, query: text, operator: this.opts.defaultOperator, ...analyzer, boost: 1 }));
    }
    return this.onFields((f) => ({ kind: 'prefix', field: f, value: text, caseInsensitive: false, normalize: this.normalize(), boost: 1 }));
  }

  private fuzzyQuery(text: string, edits: 1 | 2): Query {
    const fuzzy: FuzzyOptions = { ...this.opts.fuzzy, fuzziness: { auto: false, edits } };
    return this.onFields((f) => ({ kind: 'fuzzy', field: f, value: text, fuzzy, normalize: this.normalize(), boost: 1 }));
  }
}

function boolOf(occur: Occur, qs: Query[]): Query {
  return { kind: 'bool', must: occur === 'must' ? qs : [], should: occur === 'should' ? qs : [], filter: [], mustNot: occur === 'mustNot' ? qs : [], boost: 1 };
}

/**
 * `SimpleQueryParser.addClause`: `q` added to the bool `top` under `occur`. `top` is always a bool
 * this parser created for the current level (see `buildQueryTree`), so it grows in place: a query of
 * n terms costs O(n), not a copy per term.
 */
function addClause(top: Query, occur: Occur, q: Query): Query {
  if (top.kind !== 'bool') return boolOf(occur, [top, q]);
  top[occur].push(q);
  return top;
}

/** For each `(` of `chars`, the position of its matching `)` (nesting counted, as Lucene counts it), or -1. */
function matchParens(chars: readonly string[]): Int32Array {
  const close = new Int32Array(chars.length).fill(-1);
  const open: number[] = [];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] === '(') open.push(i);
    else if (chars[i] === ')' && open.length > 0) close[open.pop()!] = i;
  }
  return close;
}

/**
 * Parses a simple query string with `opts` (never a syntax error: odd input is read as terms).
 * An empty query, or one of operators only, matches nothing.
 * @example parseSimpleQueryString('"fried eggs" +(eggplant | potato) -frittata', { fields: [{ field: 'title', boost: 1 }], defaultOperator: 'or', flags: -1, fuzzy })
 */
export function parseSimpleQueryString(text: string, opts: SimpleQueryOptions): Query {
  return new SimpleParser(opts).parse(text);
}
