/**
 * The `include`/`exclude` regular expressions of `terms` that Folio evaluates: Lucene `RegExp`
 * syntax restricted to literals, `\` escapes, `.` (any character), `.*` and `.+`, and top-level
 * alternatives `a|b`, matched against the whole term in O(|pattern| × |term|) with the greedy
 * two-pointer walk of shared/wildcard.ts (no backtracking blow-up, no `RegExp` object). Anything
 * else (classes, groups, repetition of a literal, `~`, `&`, intervals) is refused with 400
 * "not supported by Folio yet" rather than misread.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-bucket-terms-aggregation.html#_filtering_values_with_regular_expressions_2
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/util/automaton/RegExp.html
 */
import { illegalArgument } from '../../protocol/errors.ts';

/** One unit of a compiled alternative: a literal code unit, any one unit, or any run. */
const ANY = -1;
const STAR = -2;

/** Compiles one alternative into units, or null when it uses syntax outside the simple subset. */
function compileAlternative(p: string): Int32Array | null {
  const out: number[] = [];
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      if (i + 1 >= p.length) return null;
      out.push(p.charCodeAt(++i));
    } else if (c === '.') {
      const next = p[i + 1];
      if (next === '*') {
        out.push(STAR);
        i++;
      } else if (next === '+') {
        out.push(ANY, STAR);
        i++;
      } else out.push(ANY);
    } else if ('()[]{}?+*~&<>#@"'.includes(c)) return null;
    else out.push(p.charCodeAt(i));
  }
  return Int32Array.from(out);
}

/** True when the units match all of `text` (greedy two-pointer walk; `*` absorbs more on a mismatch). */
function matchUnits(u: Int32Array, text: string): boolean {
  const m = u.length;
  const n = text.length;
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < n) {
    const c = p < m ? u[p] : -3;
    if (c === STAR) {
      star = p++;
      resume = t;
    } else if (c === ANY || c === text.charCodeAt(t)) {
      p++;
      t++;
    } else if (star !== -1) {
      p = star + 1;
      t = ++resume;
    } else return false;
  }
  while (p < m && u[p] === STAR) p++;
  return p === m;
}

/**
 * Compiles an `include`/`exclude` expression into a whole-term matcher.
 * @throws EsError 400 `illegal_argument_exception` `[include] regular expression [x] is not supported by Folio yet`
 * @example simpleRegex('sw.*|de', 'include')('swiss') // true
 */
export function simpleRegex(pattern: string, param: 'include' | 'exclude'): (term: string) => boolean {
  const alts = pattern.split('|').map(compileAlternative);
  if (alts.some((a) => a === null) || pattern.includes('\\|')) {
    throw illegalArgument(`[${param}] regular expression [${pattern}] is not supported by Folio yet (only literals, '.', '.*', '.+' and '|')`);
  }
  const units = alts as Int32Array[];
  return (term) => units.some((u) => matchUnits(u, term));
}
