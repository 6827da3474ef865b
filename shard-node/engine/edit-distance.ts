/**
 * Bounded edit distance over code points, the test a fuzzy query applies to each term of the
 * dictionary: Levenshtein, or with transpositions the optimal-string-alignment distance (an adjacent
 * swap is one edit), which is what Lucene's `LevenshteinAutomata` accept for `maxEdits` ≤ 2.
 *
 * Only the diagonal band of width 2k+1 of the dynamic-programming table is filled, and the walk
 * stops as soon as a whole row exceeds k, so one comparison costs O(k × length), linear in the
 * lengths for the k ≤ 2 fuzzy queries use, whatever the strings (no automaton to build, no
 * backtracking).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/automaton/LevenshteinAutomata.java
 * @see https://en.wikipedia.org/wiki/Damerau%E2%80%93Levenshtein_distance#Optimal_string_alignment_distance
 */

/** The code points of `s` (a string's UTF-16 units, surrogate pairs joined). */
export function codePoints(s: string): Int32Array {
  const out = new Int32Array(s.length);
  const n = fillCodePoints(s, out);
  return n === s.length ? out : out.subarray(0, n);
}

/** Writes the code points of `s` into `out` (at least `s.length` long); returns how many. */
export function fillCodePoints(s: string, out: Int32Array): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        out[n++] = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
        i++;
        continue;
      }
    }
    out[n++] = c;
  }
  return n;
}

/** Reusable rows of the band, grown as needed (one comparison allocates nothing). */
let rows: Int32Array[] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * The edit distance between `a[aFrom..aEnd)` and `b[bFrom..]` when it is at most `k`, else `k + 1`.
 * @param transpositions whether an adjacent swap counts as one edit (optimal string alignment).
 * @param aEnd where `a` ends (default its length: a reused buffer may be longer).
 * @example boundedEditDistance(codePoints('xylophoen'), 0, codePoints('xylophone'), 0, 1, true) // 1
 */
export function boundedEditDistance(a: Int32Array, aFrom: number, b: Int32Array, bFrom: number, k: number, transpositions: boolean, aEnd = a.length): number {
  const n = aEnd - aFrom;
  const m = b.length - bFrom;
  const over = k + 1;
  if (Math.abs(n - m) > k) return over;
  if (k === 0) {
    for (let i = 0; i < n; i++) if (a[aFrom + i] !== b[bFrom + i]) return over;
    return 0;
  }
  if (rows[0].length < m + 2) rows = [new Int32Array(m + 2), new Int32Array(m + 2), new Int32Array(m + 2)];
  let prev2 = rows[0];
  let prev = rows[1];
  let cur = rows[2];
  // Row 0: the distance from the empty prefix of a to b[0..j) is j, inside the band j ≤ k.
  const hi0 = Math.min(m, k);
  for (let j = 0; j <= hi0; j++) prev[j] = j;
  if (hi0 + 1 <= m) prev[hi0 + 1] = over;
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(0, i - k);
    const hi = Math.min(m, i + k);
    const ai = a[aFrom + i - 1];
    let rowMin = over;
    if (lo === 0) {
      cur[0] = i;
      rowMin = i;
    } else cur[lo - 1] = over;
    for (let j = Math.max(1, lo); j <= hi; j++) {
      const bj = b[bFrom + j - 1];
      let v = prev[j - 1] + (ai === bj ? 0 : 1);
      const del = prev[j] + 1;
      if (del < v) v = del;
      const ins = cur[j - 1] + 1;
      if (ins < v) v = ins;
      if (transpositions && i > 1 && j > 1 && ai === b[bFrom + j - 2] && a[aFrom + i - 2] === bj) {
        const tr = prev2[j - 2] + 1;
        if (tr < v) v = tr;
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (hi + 1 <= m) cur[hi + 1] = over;
    if (rowMin > k) return over;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m] > k ? over : prev[m];
}
