/**
 * Compact doc-value columns: the narrowest typed array that holds a column exactly, and one shared
 * array for equal presence flags. Lucene's doc-values formats do the same with bit packing
 * (`DirectWriter` picks bits per value from the range).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/packed/DirectWriter.java
 */

/** A numeric doc-value column: `Int32Array` when every value is an int32, else `Float64Array`. */
export type NumericColumn = Float64Array | Int32Array;

/** Keyword doc values: per doc its term's rank + 1 (0 = no value), in 1, 2 or 4 bytes. */
export type RankColumn = Uint8Array | Uint16Array | Uint32Array;

/** A column of whole numbers (versions, seq_nos): the narrowest of these that holds every value exactly. */
export type IntegerColumn = Uint8Array | Uint16Array | Int32Array | Float64Array;

/**
 * `values` in the narrowest of `Uint8Array`, `Uint16Array` and `Int32Array` that holds every value
 * exactly (whole, no -0, in range), else `values` itself. Lucene's doc values pack a column to the
 * bits its range needs in the same way (`DirectWriter`).
 */
export function narrowIntegers(values: Float64Array): IntegerColumn {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if ((v | 0) !== v || (v === 0 && 1 / v < 0)) return values;
    if (v < lo) lo = v;
    else if (v > hi) hi = v;
  }
  if (lo >= 0 && hi <= 0xff) return converted(new Uint8Array(values.length), values);
  if (lo >= 0 && hi <= 0xffff) return converted(new Uint16Array(values.length), values);
  return converted(new Int32Array(values.length), values);
}

/** `out` filled with `values` (each exact in `out`'s type): `set` converts natively, `from` element by element. */
function converted<A extends Uint8Array | Uint16Array | Int32Array>(out: A, values: Float64Array): A {
  out.set(values);
  return out;
}

/** `values` as an `Int32Array` when that is exact (no fraction, no -0, in int32 range), else itself. */
export function narrowNumbers(values: Float64Array): NumericColumn {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if ((v | 0) !== v || (v === 0 && 1 / v < 0)) return values;
  }
  return converted(new Int32Array(values.length), values);
}

/** A zeroed rank column for `n` docs whose ranks + 1 go up to `terms` (the dictionary size). */
export function rankColumn(n: number, terms: number): RankColumn {
  if (terms < 0xff) return new Uint8Array(n);
  if (terms < 0xffff) return new Uint16Array(n);
  return new Uint32Array(n);
}

/** Hands out one array per distinct content, so equal presence flags of a segment are stored once. */
export class PresencePool {
  private readonly distinct: Uint8Array[] = [];

  /** `bits`, or an earlier array with the same content. */
  share(bits: Uint8Array): Uint8Array {
    const seen = Buffer.from(bits.buffer, bits.byteOffset, bits.byteLength);
    for (const c of this.distinct) if (seen.equals(c)) return c;
    this.distinct.push(bits);
    return bits;
  }
}
