/**
 * Byte sizes rendered as Elasticsearch renders them (`ByteSizeValue.toString()`), shared by the
 * `_cat` tables and the circuit breaker's messages.
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/core/src/main/java/org/elasticsearch/core/Strings.java
 */

/** ES's byte-size units from the largest down, suffix and bytes. */
export const BYTE_SIZE_UNITS: readonly (readonly [suffix: string, bytes: number])[] = [
  ['pb', 1024 ** 5],
  ['tb', 1024 ** 4],
  ['gb', 1024 ** 3],
  ['mb', 1024 ** 2],
  ['kb', 1024],
];

/**
 * ES `ByteSizeValue.toString()`: the largest unit not above the value, one decimal truncated and
 * dropped when 0 (`Strings.format1Decimals`): `225b`, `1kb`, `31.1mb`.
 */
export function formatByteSize(bytes: number): string {
  for (const [suffix, unit] of BYTE_SIZE_UNITS) {
    if (bytes >= unit) return format1Decimals(bytes / unit, suffix);
  }
  return format1Decimals(bytes, 'b');
}

function format1Decimals(value: number, suffix: string): string {
  const p = String(value);
  const dot = p.indexOf('.');
  if (dot < 0 || p[dot + 1] === '0') return (dot < 0 ? p : p.slice(0, dot)) + suffix;
  return p.slice(0, dot + 2) + suffix;
}
