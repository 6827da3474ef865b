/**
 * Lucene's regular expression syntax (`org.apache.lucene.util.automaton.RegExp`, the syntax of ES's
 * `regexp` query) parsed into a small expression tree, following Lucene's recursive-descent grammar
 * and its error texts:
 *
 *     union ::= inter ('|' inter)*          inter ::= concat ('&' concat)*        (INTERSECTION)
 *     concat ::= repeat+                    repeat ::= compl ('?' | '*' | '+' | '{n}' | '{n,}' | '{n,m}')*
 *     compl ::= '~' compl | class           (COMPLEMENT)
 *     class ::= '[' '^'? item+ ']' | simple item ::= '\d' … | char ('-' char)?
 *     simple ::= '.' | '#' (EMPTY) | '@' (ANYSTRING) | '"' text '"' | '(' union? ')' | '<' n '-' m '>' (INTERVAL)
 *              | '\d' | '\D' | '\s' | '\S' | '\w' | '\W' | '\'? char
 *
 * A pattern always matches a whole term (no `^`/`$` anchors: they are ordinary characters). Matching
 * is done by regexp-automaton.ts; this module never runs a JS RegExp.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/regexp-syntax.html
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/automaton/RegExp.java
 */
import { RegexpFlags } from '../../protocol/regexp-flags.ts';

/** Largest code point. */
export const MAX_CODE_POINT = 0x10ffff;

/**
 * A parsed expression. `set`: one character from sorted, disjoint, non-adjacent inclusive ranges
 * `[lo0, hi0, lo1, hi1, …]`; `none`: no string (`#`); `all`: every string (`@`); `eps`: the empty string.
 */
export type Rx =
  | { t: 'set'; ranges: number[] }
  | { t: 'eps' }
  | { t: 'none' }
  | { t: 'all' }
  | { t: 'cat'; parts: Rx[] }
  | { t: 'or'; parts: Rx[] }
  | { t: 'and'; parts: Rx[] }
  | { t: 'rep'; r: Rx; min: number; max: number }
  | { t: 'not'; r: Rx };

/** A syntax error, with Lucene's `IllegalArgumentException` message. */
export class RegexpSyntaxError extends Error {}

/** Normalizes ranges (any order, overlapping) into sorted, merged `[lo, hi, …]`. */
export function normalizeRanges(pairs: readonly number[]): number[] {
  const idx: number[] = [];
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] <= pairs[i + 1]) idx.push(i);
  idx.sort((a, b) => pairs[a] - pairs[b]);
  const out: number[] = [];
  for (const i of idx) {
    const lo = pairs[i];
    const hi = pairs[i + 1];
    if (out.length > 0 && lo <= out[out.length - 1] + 1) out[out.length - 1] = Math.max(out[out.length - 1], hi);
    else out.push(lo, hi);
  }
  return out;
}

/** The complement of normalized ranges within [0, MAX_CODE_POINT]. */
export function complementRanges(ranges: readonly number[]): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i] > next) out.push(next, ranges[i] - 1);
    next = ranges[i + 1] + 1;
  }
  if (next <= MAX_CODE_POINT) out.push(next, MAX_CODE_POINT);
  return out;
}

const set = (...pairs: number[]): Rx => ({ t: 'set', ranges: normalizeRanges(pairs) });
const ch = (c: string): number => c.codePointAt(0)!;
const DIGITS = set(ch('0'), ch('9'));
const SPACES = set(ch(' '), ch(' '), 0x09, 0x0d); // [ \t\n\x0B\f\r]
const WORD = set(ch('a'), ch('z'), ch('A'), ch('Z'), ch('_'), ch('_'), ch('0'), ch('9'));
const notChar = (r: Rx): Rx => ({ t: 'set', ranges: complementRanges((r as { ranges: number[] }).ranges) });

/** One character, folded to both ASCII cases when matching case-insensitively (Lucene `ASCII_CASE_INSENSITIVE`). */
function charRx(c: number, caseInsensitive: boolean): Rx {
  if (caseInsensitive) {
    if (c >= 0x61 && c <= 0x7a) return set(c, c, c - 32, c - 32);
    if (c >= 0x41 && c <= 0x5a) return set(c, c, c + 32, c + 32);
  }
  return set(c, c);
}

/**
 * Decimal strings of the integers in [lo, hi] with exactly `width` digits (zero-padded), as
 * Lucene's `Automata.makeDecimalInterval` with a fixed number of digits.
 */
function fixedWidthInterval(lo: string, hi: string): Rx {
  if (lo.length === 0) return { t: 'eps' };
  const a = lo.charCodeAt(0);
  const b = hi.charCodeAt(0);
  const restLo = lo.slice(1);
  const restHi = hi.slice(1);
  if (a === b) return { t: 'cat', parts: [set(a, a), fixedWidthInterval(restLo, restHi)] };
  const nines = '9'.repeat(restLo.length);
  const zeros = '0'.repeat(restLo.length);
  const parts: Rx[] = [{ t: 'cat', parts: [set(a, a), fixedWidthInterval(restLo, nines)] }];
  if (a + 1 <= b - 1) parts.push({ t: 'cat', parts: [set(a + 1, b - 1), { t: 'rep', r: DIGITS, min: restLo.length, max: restLo.length }] });
  parts.push({ t: 'cat', parts: [set(b, b), fixedWidthInterval(zeros, restHi)] });
  return { t: 'or', parts };
}

/** Decimal strings of [min, max] (`digits` > 0: exactly that many digits; 0: any number of leading zeros). */
function intervalRx(min: number, max: number, digits: number): Rx {
  if (digits > 0) return fixedWidthInterval(String(min).padStart(digits, '0'), String(max).padStart(digits, '0'));
  const parts: Rx[] = [];
  let lo = min;
  while (lo <= max) {
    const len = String(lo).length;
    const top = Math.min(max, 10 ** len - 1);
    parts.push(fixedWidthInterval(String(lo), String(top)));
    lo = top + 1;
  }
  return {
    t: 'cat',
    parts: [
      { t: 'rep', r: set(ch('0'), ch('0')), min: 0, max: Infinity },
      { t: 'or', parts },
    ],
  };
}

/** Java's `Integer.parseInt` of a run of ASCII digits: the value, or a syntax error past 2^31 - 1. */
function parseJavaInt(s: string): number {
  const n = Number(s);
  if (n > 2147483647) throw new RegexpSyntaxError(`For input string: "${s}"`);
  return n;
}

/**
 * Parses a Lucene regular expression.
 * @param flags syntax flags ({@link RegexpFlags}; ES default ALL).
 * @param caseInsensitive ES `case_insensitive`: letters of plain characters and quoted strings match either ASCII case.
 * @throws RegexpSyntaxError with Lucene's message (`expected ')' at position 4`, `unexpected end-of-string`, …).
 * @example parseRegexp('ab+[c-e]{2}', RegexpFlags.ALL, false)
 */
export function parseRegexp(pattern: string, flags: number, caseInsensitive: boolean): Rx {
  if (pattern.length === 0) return { t: 'eps' };
  const p = new RegexpParser(pattern, flags, caseInsensitive);
  const e = p.union();
  if (p.pos < pattern.length) throw new RegexpSyntaxError(`end-of-string expected at position ${p.pos}`);
  return e;
}

/**
 * The recursive descent of Lucene's `RegExp` (`parseUnionExp`, `parseInterExp`, …): one method per
 * rule of the grammar above, reading `pattern` from {@link RegexpParser.pos}.
 */
class RegexpParser {
  private readonly pattern: string;
  private readonly flags: number;
  private readonly caseInsensitive: boolean;
  /** The next UTF-16 index to read. */
  pos = 0;

  constructor(pattern: string, flags: number, caseInsensitive: boolean) {
    this.pattern = pattern;
    this.flags = flags;
    this.caseInsensitive = caseInsensitive;
  }

  private check(flag: number): boolean {
    return (this.flags & flag) !== 0;
  }

  private more(): boolean {
    return this.pos < this.pattern.length;
  }

  private peek(chars: string): boolean {
    return this.more() && chars.includes(String.fromCodePoint(this.pattern.codePointAt(this.pos)!));
  }

  private match(c: string): boolean {
    if (!this.more() || this.pattern.codePointAt(this.pos) !== c.codePointAt(0)) return false;
    this.pos += c.length;
    return true;
  }

  private next(): number {
    if (!this.more()) throw new RegexpSyntaxError('unexpected end-of-string');
    const c = this.pattern.codePointAt(this.pos)!;
    this.pos += c > 0xffff ? 2 : 1;
    return c;
  }

  private charExp(): number {
    this.match('\\');
    return this.next();
  }

  private predefined(): Rx | null {
    if (!this.match('\\')) return null;
    if (this.match('d')) return DIGITS;
    if (this.match('D')) return notChar(DIGITS);
    if (this.match('s')) return SPACES;
    if (this.match('S')) return notChar(SPACES);
    if (this.match('w')) return WORD;
    if (this.match('W')) return notChar(WORD);
    this.pos--; // not a predefined class: the backslash escapes the next character
    return null;
  }

  union(): Rx {
    const parts = [this.inter()];
    while (this.match('|')) parts.push(this.inter());
    return parts.length === 1 ? parts[0] : { t: 'or', parts };
  }

  private inter(): Rx {
    const parts = [this.concat()];
    while (this.check(RegexpFlags.INTERSECTION) && this.match('&')) parts.push(this.concat());
    return parts.length === 1 ? parts[0] : { t: 'and', parts };
  }

  private concat(): Rx {
    const parts = [this.repeat()];
    while (this.more() && !this.peek(')|') && (!this.check(RegexpFlags.INTERSECTION) || !this.peek('&'))) parts.push(this.repeat());
    return parts.length === 1 ? parts[0] : { t: 'cat', parts };
  }

  private repeat(): Rx {
    let e = this.compl();
    while (this.peek('?*+{')) {
      if (this.match('?')) e = { t: 'rep', r: e, min: 0, max: 1 };
      else if (this.match('*')) e = { t: 'rep', r: e, min: 0, max: Infinity };
      else if (this.match('+')) e = { t: 'rep', r: e, min: 1, max: Infinity };
      else if (this.match('{')) {
        let start = this.pos;
        while (this.peek('0123456789')) this.next();
        if (start === this.pos) throw new RegexpSyntaxError(`integer expected at position ${this.pos}`);
        const n = parseJavaInt(this.pattern.slice(start, this.pos));
        let m = n;
        if (this.match(',')) {
          start = this.pos;
          while (this.peek('0123456789')) this.next();
          m = start !== this.pos ? parseJavaInt(this.pattern.slice(start, this.pos)) : Infinity;
        }
        if (!this.match('}')) throw new RegexpSyntaxError(`expected '}' at position ${this.pos}`);
        e = { t: 'rep', r: e, min: n, max: m };
      }
    }
    return e;
  }

  private compl(): Rx {
    return this.check(RegexpFlags.COMPLEMENT) && this.match('~') ? { t: 'not', r: this.compl() } : this.charClass();
  }

  private charClass(): Rx {
    if (!this.match('[')) return this.simple();
    const negate = this.match('^');
    const items: number[] = [];
    const item = (): void => {
      const p = this.predefined();
      if (p) {
        items.push(...(p as { ranges: number[] }).ranges);
        return;
      }
      const c = this.charExp();
      if (this.match('-')) items.push(c, this.charExp());
      else items.push(c, c);
    };
    item();
    while (this.more() && !this.peek(']')) item();
    if (!this.match(']')) throw new RegexpSyntaxError(`expected ']' at position ${this.pos}`);
    const ranges = normalizeRanges(items);
    return { t: 'set', ranges: negate ? complementRanges(ranges) : ranges };
  }

  private simple(): Rx {
    if (this.match('.')) return set(0, MAX_CODE_POINT);
    if (this.check(RegexpFlags.EMPTY) && this.match('#')) return { t: 'none' };
    if (this.check(RegexpFlags.ANYSTRING) && this.match('@')) return { t: 'all' };
    if (this.match('"')) {
      const start = this.pos;
      while (this.more() && !this.peek('"')) this.next();
      if (!this.match('"')) throw new RegexpSyntaxError(`expected '"' at position ${this.pos}`);
      const parts: Rx[] = [];
      for (const c of this.pattern.slice(start, this.pos - 1)) parts.push(charRx(c.codePointAt(0)!, this.caseInsensitive));
      return parts.length === 0 ? { t: 'eps' } : { t: 'cat', parts };
    }
    if (this.match('(')) {
      if (this.match(')')) return { t: 'eps' };
      const e = this.union();
      if (!this.match(')')) throw new RegexpSyntaxError(`expected ')' at position ${this.pos}`);
      return e;
    }
    if (this.check(RegexpFlags.INTERVAL) && this.match('<')) return this.interval();
    const p = this.predefined();
    if (p) return p;
    return charRx(this.charExp(), this.caseInsensitive);
  }

  /** `<n-m>` after its `<`: the decimal strings of the integers in [n, m] (Lucene's INTERVAL). */
  private interval(): Rx {
    const start = this.pos;
    while (this.more() && !this.peek('>')) this.next();
    if (!this.match('>')) throw new RegexpSyntaxError(`expected '>' at position ${this.pos}`);
    const pos = this.pos;
    const s = this.pattern.slice(start, pos - 1);
    const i = s.indexOf('-');
    if (i === -1) throw new RegexpSyntaxError(`interval syntax error at position ${pos - 1}`);
    const smin = s.slice(0, i);
    const smax = s.slice(i + 1);
    if (i === 0 || i === s.length - 1 || i !== s.lastIndexOf('-') || !/^[0-9]+$/.test(smin) || !/^[0-9]+$/.test(smax)) {
      throw new RegexpSyntaxError(`interval syntax error at position ${pos - 1}`);
    }
    let lo = Number(smin);
    let hi = Number(smax);
    if (lo > 2147483647 || hi > 2147483647) throw new RegexpSyntaxError(`interval syntax error at position ${pos - 1}`);
    if (lo > hi) [lo, hi] = [hi, lo];
    return intervalRx(lo, hi, smin.length === smax.length ? smin.length : 0);
  }
}
