/**
 * The lexer of the Lucene classic query parser (`query_string`, `q=`): JavaCC's
 * `QueryParserTokenManager` with its three lexical states, its token kinds and images (for the
 * parser's `Encountered …` texts), and query-parser escapes. The parser is query-string.ts.
 * @see https://github.com/apache/lucene/blob/main/lucene/queryparser/src/java/org/apache/lucene/queryparser/classic/QueryParser.jj
 */

/** The grammar's token kinds (JavaCC's `QueryParserConstants`). */
export type Kind =
  | 'AND'
  | 'OR'
  | 'NOT'
  | 'PLUS'
  | 'MINUS'
  | 'BAREOPER'
  | 'LPAREN'
  | 'RPAREN'
  | 'COLON'
  | 'STAR'
  | 'CARAT'
  | 'QUOTED'
  | 'TERM'
  | 'FUZZY_SLOP'
  | 'PREFIXTERM'
  | 'WILDTERM'
  | 'REGEXPTERM'
  | 'RANGEIN_START'
  | 'RANGEEX_START'
  | 'NUMBER'
  | 'RANGE_TO'
  | 'RANGEIN_END'
  | 'RANGEEX_END'
  | 'RANGE_QUOTED'
  | 'RANGE_GOOP'
  | 'EOF';

/** One token: its kind, its text, and where it starts. */
export interface Token {
  kind: Kind;
  image: string;
  /** 1-based column of the first character (JavaCC `beginColumn`). */
  col: number;
}

/** JavaCC `tokenImage` of each kind, used in `Encountered …` messages. */
export const IMAGE: Record<Kind, string> = {
  AND: '<AND>',
  OR: '<OR>',
  NOT: '<NOT>',
  PLUS: '"+"',
  MINUS: '"-"',
  BAREOPER: '<BAREOPER>',
  LPAREN: '"("',
  RPAREN: '")"',
  COLON: '":"',
  STAR: '"*"',
  CARAT: '"^"',
  QUOTED: '<QUOTED>',
  TERM: '<TERM>',
  FUZZY_SLOP: '<FUZZY_SLOP>',
  PREFIXTERM: '<PREFIXTERM>',
  WILDTERM: '<WILDTERM>',
  REGEXPTERM: '<REGEXPTERM>',
  RANGEIN_START: '"["',
  RANGEEX_START: '"{"',
  NUMBER: '<NUMBER>',
  RANGE_TO: '"TO"',
  RANGEIN_END: '"]"',
  RANGEEX_END: '"}"',
  RANGE_QUOTED: '<RANGE_QUOTED>',
  RANGE_GOOP: '<RANGE_GOOP>',
  EOF: '<EOF>',
};

/** A Lucene `ParseException`/`TokenMgrError` message; becomes the ES `parse_exception` cause. */
export class SyntaxError_ extends Error {}

const WS = ' \t\n\r\u3000';
const NOT_TERM_START = WS + '+-!():^[]"{}~*?\\/';
const isTermStart = (c: string) => !NOT_TERM_START.includes(c);
const isTermChar = (c: string) => isTermStart(c) || c === '-' || c === '+';

function lexError(q: string, pos: number, after: string): never {
  const enc = pos >= q.length ? '<EOF>' : `"${q[pos]}" (${q.codePointAt(pos)})`;
  throw new SyntaxError_(`Lexical error at line 1, column ${pos + 1}.  Encountered: ${enc} after : "${after}"`);
}

/**
 * The run of term characters (escapes included) and wildcards at `i`: TERM, PREFIXTERM, WILDTERM or
 * STAR, or the operator words `AND`/`&&`, `OR`/`||`, `NOT`; `end` is the index after it.
 */
function termRun(q: string, i: number): { kind: Kind; end: number } {
  let j = i;
  let wild = -1;
  while (j < q.length) {
    const d = q[j];
    if (d === '\\') {
      if (j + 1 >= q.length) lexError(q, j + 1, q.slice(i, j + 1));
      j += 2;
    } else if (d === '*' || d === '?') {
      if (wild < 0) wild = j;
      j++;
    } else if (j === i ? isTermStart(d) : isTermChar(d)) j++;
    else break;
  }
  if (j === i) lexError(q, i, '');
  const run = q.slice(i, j);
  let kind: Kind;
  if (run === 'AND' || run === '&&') kind = 'AND';
  else if (run === 'OR' || run === '||') kind = 'OR';
  else if (run === 'NOT') kind = 'NOT';
  else if (run === '*') kind = 'STAR';
  else if (wild < 0) kind = 'TERM';
  else if (wild === j - 1 && q[wild] === '*') kind = 'PREFIXTERM';
  else kind = 'WILDTERM';
  return { kind, end: j };
}

/**
 * Tokenizes with the grammar's three lexical states (DEFAULT, Boost, Range) and longest-match rule.
 * @throws SyntaxError_ Lucene's `Lexical error at line 1, column N.` text
 */
export function tokenize(q: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let state: 'DEFAULT' | 'Boost' | 'Range' = 'DEFAULT';
  const push = (kind: Kind, start: number, end: number) => {
    out.push({ kind, image: q.slice(start, end), col: start + 1 });
    i = end;
  };
  while (i < q.length) {
    const c = q[i];
    if (state === 'Boost') {
      const m = /^[0-9]+(?:\.[0-9]+)?/.exec(q.slice(i));
      if (!m) lexError(q, i, '');
      push('NUMBER', i, i + m[0].length);
      state = 'DEFAULT';
      continue;
    }
    if (WS.includes(c)) {
      i++;
      continue;
    }
    if (state === 'Range') {
      if (c === ']' || c === '}') {
        push(c === ']' ? 'RANGEIN_END' : 'RANGEEX_END', i, i + 1);
        state = 'DEFAULT';
      } else if (c === '"') {
        const m = /^"(?:[^"\\]|\\.)+"/s.exec(q.slice(i));
        if (!m) lexError(q, q.length, q.slice(i));
        push('RANGE_QUOTED', i, i + m[0].length);
      } else {
        const m = /^[^ \]}]+/.exec(q.slice(i)) as RegExpExecArray;
        push(m[0] === 'TO' ? 'RANGE_TO' : 'RANGE_GOOP', i, i + m[0].length);
      }
      continue;
    }
    if ((c === '+' || c === '-' || c === '!') && i + 1 < q.length && WS.includes(q[i + 1])) push('BAREOPER', i, i + 2);
    else if (c === '+') push('PLUS', i, i + 1);
    else if (c === '-') push('MINUS', i, i + 1);
    else if (c === '!') push('NOT', i, i + 1);
    else if (c === '(') push('LPAREN', i, i + 1);
    else if (c === ')') push('RPAREN', i, i + 1);
    else if (c === ':') push('COLON', i, i + 1);
    else if (c === '^') {
      push('CARAT', i, i + 1);
      state = 'Boost';
    } else if (c === '[' || c === '{') {
      push(c === '[' ? 'RANGEIN_START' : 'RANGEEX_START', i, i + 1);
      state = 'Range';
    } else if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/s.exec(q.slice(i));
      if (!m) lexError(q, q.length, q.slice(i));
      push('QUOTED', i, i + m[0].length);
    } else if (c === '~') {
      const m = /^~(?:[0-9]+(?:\.[0-9]+)?)?/.exec(q.slice(i)) as RegExpExecArray;
      push('FUZZY_SLOP', i, i + m[0].length);
    } else if (c === '/') {
      const m = /^\/(?:[^/\\]|\\.)*\//s.exec(q.slice(i));
      if (!m) lexError(q, q.length, q.slice(i));
      push('REGEXPTERM', i, i + m[0].length);
    } else {
      const { kind, end } = termRun(q, i);
      push(kind, i, end);
    }
  }
  if (state === 'Boost') lexError(q, q.length, '');
  out.push({ kind: 'EOF', image: '', col: q.length });
  return out;
}

/** Removes query-parser escapes (`\:` → `:`), as `QueryParserBase.discardEscapeChar`. */
export function unescape(s: string): string {
  return s.replace(/\\(.)/gs, '$1');
}
