/**
 * A rough estimate of the heap bytes a value holds, for byte-bounded caches. It walks the value
 * (objects, arrays, Maps, Sets, strings, numbers, typed arrays) and charges V8-like costs: a string
 * 2 bytes per character (the two-byte worst case) plus a header, a number 8 bytes, an object or
 * array a header plus 8 bytes per slot. Shared structure is counted each time it is reached, so
 * the estimate errs high. The walk stops once the estimate passes `limitBytes`, so its cost is
 * bounded by the limit, not by the value.
 */

/** Bytes charged for an object, array, Map or Set header. */
const OBJECT_HEADER_BYTES = 32;
/** Bytes charged per property, element or entry slot (a tagged pointer or a double). */
const SLOT_BYTES = 8;
/** Bytes charged for a string header. */
const STRING_HEADER_BYTES = 16;

/** Estimated heap bytes of a string: a header plus 2 bytes per UTF-16 code unit. */
export function stringBytes(s: string): number {
  return STRING_HEADER_BYTES + 2 * s.length;
}

/** Estimated heap bytes of `value`; once past `limitBytes` the walk stops and a value above it is returned. */
export function estimateBytes(value: unknown, limitBytes = Number.POSITIVE_INFINITY): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= limitBytes) {
    const v = stack.pop();
    if (typeof v === 'string') total += stringBytes(v);
    else if (typeof v === 'number' || typeof v === 'bigint') total += SLOT_BYTES;
    else if (typeof v === 'boolean' || v === null || v === undefined) total += 0;
    else if (ArrayBuffer.isView(v)) total += OBJECT_HEADER_BYTES + v.byteLength;
    else if (Array.isArray(v)) {
      total += OBJECT_HEADER_BYTES + SLOT_BYTES * v.length;
      if (total > limitBytes) break; // before touching the elements: the cost stays bounded
      for (const x of v) if (typeof x === 'object' || typeof x === 'string') stack.push(x);
    } else if (v instanceof Map) {
      total += OBJECT_HEADER_BYTES + 2 * SLOT_BYTES * v.size;
      if (total > limitBytes) break;
      for (const [k, x] of v) stack.push(k, x);
    } else if (v instanceof Set) {
      total += OBJECT_HEADER_BYTES + SLOT_BYTES * v.size;
      if (total > limitBytes) break;
      for (const x of v) stack.push(x);
    } else if (typeof v === 'object') {
      total += OBJECT_HEADER_BYTES;
      for (const k in v) {
        total += SLOT_BYTES + stringBytes(k);
        if (total > limitBytes) break;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return total;
}
