/**
 * The one `*` wildcard matcher of Folio, with Elasticsearch's `Regex.simpleMatch` semantics: `*`
 * matches any run of characters (dots included, possibly empty), every other character is literal
 * (`?`, `.`, `[` included), and characters compare as UTF-16 code units, as Java `char`s do.
 *
 * ES's own implementation recurses and can backtrack exponentially; this one is the classic greedy
 * two-pointer match: on a mismatch it only moves the most recent `*` one character further, which is
 * enough because a later `*` can absorb anything an earlier one could. The cost is O(|pattern| ×
 * |text|) in the worst case and about O(|pattern| + |text|) in practice, with no regex, no
 * compilation and therefore no cache. `*a*a*a*a*a*b` against 80 `a`s takes microseconds, where the
 * regex `^.*a.*a.*a.*a.*a.*b$` took over a second.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/regex/Regex.java
 * @see https://en.wikipedia.org/wiki/Matching_wildcards
 */

/** The wildcard character of ES simple patterns. */
const STAR = 42; // '*'

/**
 * True when `pattern` matches all of `text` (ES `Regex.simpleMatch(pattern, text)`).
 * @example wildcardMatch('cit*', 'cities') // true
 * @example wildcardMatch('a*c', 'abbd') // false
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  if (pattern.indexOf('*') === -1) return pattern === text;
  if (pattern === '*') return true;
  const m = pattern.length;
  const n = text.length;
  let p = 0;
  let t = 0;
  let star = -1; // position of the last `*` seen in the pattern
  let resume = 0; // the text position that `*` currently stops before
  while (t < n) {
    const c = p < m ? pattern.charCodeAt(p) : -1;
    if (c === STAR) {
      star = p++;
      resume = t;
    } else if (c === text.charCodeAt(t)) {
      p++;
      t++;
    } else if (star !== -1) {
      p = star + 1; // let the last `*` absorb one more character and retry what follows it
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < m && pattern.charCodeAt(p) === STAR) p++;
  return p === m;
}

/**
 * True when some text that starts with `prefix` can match `pattern`: whether walking into a field
 * whose path starts with `prefix` can still reach a match (`_source` includes such as `a.*.c`).
 * The same greedy walk as {@link wildcardMatch}, succeeding as soon as the prefix is used up,
 * because whatever is left of a `*` pattern can always be matched by some suffix.
 * @example wildcardCanMatchPrefix('a.*.c', 'a.b.') // true
 * @example wildcardCanMatchPrefix('a.b', 'x.') // false
 */
export function wildcardCanMatchPrefix(pattern: string, prefix: string): boolean {
  const m = pattern.length;
  const n = prefix.length;
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < n) {
    const c = p < m ? pattern.charCodeAt(p) : -1;
    if (c === STAR) {
      star = p++;
      resume = t;
    } else if (c === prefix.charCodeAt(t)) {
      p++;
      t++;
    } else if (star !== -1) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  return true;
}

/** True when `pattern` contains a `*` (else it can only match itself). */
export function isWildcardPattern(pattern: string): boolean {
  return pattern.indexOf('*') !== -1;
}
