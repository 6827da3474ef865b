/**
 * Lucene wildcard patterns (ES `wildcard` query and `query_string`'s `f?o*` terms): `*` matches any
 * string, `?` any one character, `\` takes the next character literally (a trailing `\` is itself).
 * The pattern becomes a regular expression tree and is determinized by regexp-automaton.ts, as
 * Lucene's `WildcardQuery.toAutomaton` concatenates per-character automata and determinizes them:
 * each dictionary term is then matched in one table step per character, and a pattern whose
 * automaton would exceed `max_determinized_states` is refused as Lucene refuses it.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/WildcardQuery.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/lucene/search/AutomatonQueries.java
 */
import { DEFAULT_MAX_DETERMINIZED_STATES, RegexpAutomaton } from './regexp-automaton.ts';
import { TooComplexError } from './regexp-derivatives.ts';
import { MAX_CODE_POINT, type Rx } from './regexp-parse.ts';

const ANY_CHAR: Rx = { t: 'set', ranges: [0, MAX_CODE_POINT] };
const ANY_STRING: Rx = { t: 'all' };

/**
 * The other case of one code point (ES `AutomatonQueries.toCaseInsensitiveChar`: upper case of a
 * lower-case letter, else lower case), or the code point itself.
 */
function otherCase(c: number): number {
  const s = String.fromCodePoint(c);
  const lower = s.toLowerCase();
  const alt = s === lower ? s.toUpperCase() : lower;
  const cp = alt.codePointAt(0)!;
  return alt.length === String.fromCodePoint(cp).length ? cp : c;
}

function charRx(c: number, caseInsensitive: boolean): Rx {
  const alt = caseInsensitive ? otherCase(c) : c;
  if (alt === c) return { t: 'set', ranges: [c, c] };
  return { t: 'set', ranges: alt < c ? [alt, alt, c, c] : [c, c, alt, alt] };
}

/**
 * The expression of a wildcard pattern (Lucene `WildcardQuery.toAutomaton`, or ES's
 * `toCaseInsensitiveWildcardAutomaton` when `caseInsensitive`).
 */
export function wildcardRx(pattern: string, caseInsensitive: boolean): Rx {
  const parts: Rx[] = [];
  const cps = Array.from(pattern, (ch) => ch.codePointAt(0)!);
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i];
    if (c === 0x2a) {
      if (parts[parts.length - 1] !== ANY_STRING) parts.push(ANY_STRING); // `**` is `*`
    } else if (c === 0x3f) parts.push(ANY_CHAR);
    else if (c === 0x5c && i + 1 < cps.length) parts.push(charRx(cps[++i], caseInsensitive));
    else parts.push(charRx(c, caseInsensitive));
  }
  if (parts.length === 0) return { t: 'eps' };
  return parts.length === 1 ? parts[0] : { t: 'cat', parts };
}

/**
 * A deterministic matcher for a wildcard pattern.
 * @throws TooComplexError (regexp-automaton.ts) past `maxStates` states.
 * @example compileWildcard('qu?ck*', false).matches('quickly') // true
 */
export function compileWildcard(pattern: string, caseInsensitive: boolean, maxStates = DEFAULT_MAX_DETERMINIZED_STATES): RegexpAutomaton {
  // Every character but `*` is one more step of progress, so one more state: refuse a pattern past
  // the budget before building anything (a 100,000-character pattern took half a second to refuse).
  let steps = 0;
  for (let i = 0; i < pattern.length; i++) if (pattern.charCodeAt(i) !== 0x2a) steps++;
  if (steps >= maxStates) throw new TooComplexError(`Determinizing automaton with ${steps + 1} states would result in more than ${maxStates} states.`);
  return RegexpAutomaton.build(wildcardRx(pattern, caseInsensitive), maxStates);
}

/**
 * ES `StringFieldType.normalizeWildcardPattern`: the literal runs between wildcards go through the
 * analyzer's `normalize` (lower-casing for `standard`), while `*`, `?` and escaped pairs stay as written.
 * @example normalizeWildcardPattern('Qu?CK*\\X', (s) => s.toLowerCase()) // 'qu?ck*\\X'
 */
export function normalizeWildcardPattern(pattern: string, normalize: (s: string) => string): string {
  let out = '';
  let run = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      out += normalize(run) + c + pattern[++i];
      run = '';
    } else if (c === '*' || c === '?') {
      out += normalize(run) + c;
      run = '';
    } else run += c;
  }
  return out + normalize(run);
}
