/**
 * Java's number parsing as Elasticsearch applies it to request values (`Integer.parseInt`,
 * `Double.parseDouble`), shared by the coordinator's request parsing (coordinator/rest/params.ts) and the
 * shard nodes (the `rewrite` parameter's `top_terms_N`, shard-node/engine/rewrite-method.ts).
 * @see https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/lang/Integer.html#parseInt(java.lang.String)
 * @see https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/lang/Double.html#valueOf(java.lang.String)
 */

/** Largest Java `int` (2^31 - 1). */
export const JAVA_INT_MAX = 2147483647;
/** Smallest Java `int` (-2^31). */
export const JAVA_INT_MIN = -2147483648;

/**
 * Java `Integer.parseInt(s)` (radix 10): optional sign then ASCII digits, within int range.
 * @returns the integer, or null where Java throws `NumberFormatException`.
 */
export function javaParseInt(s: string): number | null {
  if (!/^[+-]?[0-9]+$/.test(s)) return null;
  const n = Number(s);
  return n < JAVA_INT_MIN || n > JAVA_INT_MAX ? null : n;
}

/**
 * Java `Double.parseDouble(s)`: trims ASCII control/space, accepts a sign, `NaN`, `Infinity`,
 * decimal/exponent forms and a trailing `d`/`f` type suffix (hex floats are not supported).
 * @returns the double, or null where Java throws `NumberFormatException`.
 */
export function javaParseDouble(s: string): number | null {
  // Java's String.trim: strip the code units <= U+0020 at both ends.
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) <= 0x20) start++;
  while (end > start && s.charCodeAt(end - 1) <= 0x20) end--;
  const t = s.slice(start, end);
  const m = /^([+-]?)(NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?$/.exec(t);
  if (!m) return null;
  if (m[2] === 'NaN') return Number.NaN;
  const n = Number(m[2]);
  return m[1] === '-' ? -n : n;
}
