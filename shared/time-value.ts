/**
 * ES `TimeValue.toString()` for a duration in milliseconds: the largest unit (d, h, m, s, ms) in
 * which the value is at least 1, with one fraction digit *truncated* and dropped when it is 0, as
 * `TimeValue.toHumanReadableString(1)` prints it in error messages: 86,400,000 → `1d`,
 * 90,000,000 (25 h) → `1d`, 5,400,000 → `1.5h`, 0 → `0s`, negative values as the bare number.
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/core/src/main/java/org/elasticsearch/core/TimeValue.java
 * @example formatTimeValue(86_400_000) // '1d'
 */
export function formatTimeValue(ms: number): string {
  if (ms < 0) return String(ms);
  if (ms === 0) return '0s';
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1_000, 's'],
  ];
  const [size, suffix] = units.find(([u]) => ms >= u) ?? [1, 'ms'];
  const whole = Math.floor(ms / size);
  const tenth = Math.floor(((ms % size) * 10) / size);
  return `${whole}${tenth === 0 ? '' : `.${tenth}`}${suffix}`;
}
