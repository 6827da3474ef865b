/**
 * The sort value of a numeric (number, date, boolean) field per document under a sort clause's
 * `mode` and `numeric_type`, as ES's `MultiValueMode` picks it from the document's sorted values:
 * `min` and `max` read the segment's min/max columns as they are (no copy, no per-hit cost);
 * `sum`, `avg` and `median` are computed once per segment, field and clause into a column.
 *
 * Long-based fields (integers, `date`, `boolean`, or any field read with `numeric_type: long|date|
 * date_nanos`) follow the `long` arithmetic of `MultiValueMode.pick(SortedNumericDocValues)`: the sum
 * wraps around at 2^63 like a Java long, `avg` and an even `median` round the double quotient
 * (`Math.round`). Floating fields (or `numeric_type: double`) use the double arithmetic of
 * `pick(SortedNumericDoubleValues)`: the sum in ascending value order, `total / count`, `(a + b) / 2`.
 * Folio holds values as doubles, so a sum near 2^63 wraps at the double nearest the exact one.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/MultiValueMode.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/sort-search-results.html#_sort_mode_option
 */
import type { FieldMapping } from '../../protocol/mapping.ts';
import type { SortField } from '../../protocol/sort.ts';
import type { NumericField } from './segment.ts';
import type { NumericColumn } from './columns/columns.ts';

/** Field types whose doc values are doubles in ES (`NumericType.DOUBLE`, `FLOAT`, `HALF_FLOAT`, scaled floats). */
const FLOATING_TYPES: ReadonlySet<string> = new Set(['double', 'float', 'half_float', 'scaled_float']);

const TWO_63 = 2 ** 63;
const TWO_64 = 2 ** 64;

/** Wraps an integral sum into Java's long range, as `long` addition overflows. */
function wrapLong(sum: number): number {
  if (sum >= TWO_63) return sum - TWO_64;
  if (sum < -TWO_63) return sum + TWO_64;
  return sum;
}

/** How a stored value is converted before it is picked: `numeric_type` across mapped types. */
type Conversion = 'none' | 'trunc' | 'millisToNanos';

/**
 * The conversion `numeric_type` asks of a field of type `type` (ES `IndexNumericFieldData.sortField`
 * with a target type): `long` truncates a floating field's values (a Java `(long)` cast), `date_nanos`
 * reads a millisecond `date` in nanoseconds; every other pair keeps the values.
 */
function conversionOf(type: string, numericType: SortField['numericType']): Conversion {
  if (numericType === 'long' && FLOATING_TYPES.has(type)) return 'trunc';
  if (numericType === 'date_nanos' && type === 'date') return 'millisToNanos';
  return 'none';
}

/** True when the clause reads the field as a long (integral arithmetic), false for doubles. */
function isLongBased(type: string, numericType: SortField['numericType']): boolean {
  if (numericType !== undefined) return numericType !== 'double';
  return !FLOATING_TYPES.has(type);
}

/** Columns computed per numeric field (segments are immutable), keyed by mode, conversion and arithmetic. */
const computed = new WeakMap<NumericField, Map<string, Float64Array>>();

/**
 * The per-document values a numeric sort clause compares in one segment (valid where `nf.has[d]`):
 * the field's min or max column itself when `mode` is `min`/`max` without conversion, else a column
 * computed once and cached with the segment.
 * @param fm the field's mapping in this index (its type decides the arithmetic and conversions).
 */
export function numericSortValues(nf: NumericField, fm: FieldMapping, sf: SortField): NumericColumn {
  const conversion = conversionOf(fm.type, sf.numericType);
  if ((sf.mode === 'min' || sf.mode === 'max') && conversion === 'none') return sf.mode === 'max' ? nf.max : nf.min;
  const longBased = isLongBased(fm.type, sf.numericType);
  const key = `${sf.mode}/${conversion}/${longBased ? 'long' : 'double'}`;
  let byKey = computed.get(nf);
  if (!byKey) {
    byKey = new Map();
    computed.set(nf, byKey);
  }
  let col = byKey.get(key);
  if (!col) byKey.set(key, (col = computeColumn(nf, sf.mode, conversion, longBased)));
  return col;
}

/** The document's values in ascending order (Lucene `SORTED_NUMERIC` order, duplicates kept). */
function valuesOf(nf: NumericField, d: number, scratch: number[]): readonly number[] {
  const all = nf.multi.get(d);
  if (all) return all;
  scratch.length = 0;
  scratch.push(nf.min[d]);
  if (nf.max[d] !== nf.min[d]) scratch.push(nf.max[d]);
  return scratch;
}

function computeColumn(nf: NumericField, mode: SortField['mode'], conversion: Conversion, longBased: boolean): Float64Array {
  const n = nf.has.length;
  const out = new Float64Array(n);
  const scratch: number[] = [];
  const convert = conversion === 'trunc' ? Math.trunc : conversion === 'millisToNanos' ? (v: number) => v * 1e6 : null;
  for (let d = 0; d < n; d++) {
    if (!nf.has[d]) continue;
    let values = valuesOf(nf, d, scratch);
    if (convert) values = values.map(convert);
    out[d] = pick(values, mode, longBased);
  }
  return out;
}

/**
 * `MultiValueMode.pick` over one document's ascending values.
 * @example pick([1, 9223372036854775807], 'sum', true) // -9223372036854775808 (long overflow)
 */
export function pick(values: readonly number[], mode: SortField['mode'], longBased: boolean): number {
  const count = values.length;
  switch (mode) {
    case 'min':
      return values[0];
    case 'max':
      return values[count - 1];
    case 'sum':
    case 'avg': {
      let total = 0;
      for (const v of values) total += v;
      if (longBased) total = wrapLong(total);
      if (mode === 'sum' || count === 1) return total;
      return longBased ? Math.round(total / count) : total / count;
    }
    case 'median': {
      const mid = count >> 1;
      if (count % 2 === 1) return values[mid];
      const half = (values[mid - 1] + values[mid]) / 2;
      return longBased ? Math.round(half) : half;
    }
  }
}
