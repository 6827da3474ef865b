/**
 * Lookups and writes keyed by names that come from requests (field names, paths) on plain objects,
 * safe for names that are `Object.prototype` members. `obj['constructor']` reads the inherited
 * `Object` function and `obj['__proto__'] = v` replaces the prototype instead of adding a field;
 * Elasticsearch has no such names, every one of them is an ordinary field
 * (`{"constructor": "x", "__proto__": {"a": 1}}` is a document with two fields).
 * @see https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Object/hasOwn
 * @see https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Object/proto
 */

/**
 * The value `record` holds under `key` itself, never an inherited one.
 * @example ownValue({}, 'constructor') // undefined (where `{}['constructor']` is `Object`)
 */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Sets `record[key] = value` as an own enumerable data property, also for `__proto__` (which plain
 * assignment would treat as the prototype setter). JSON.stringify and Object.entries see it as a field.
 * @example setOwn(out, '__proto__', { a: 1 }); JSON.stringify(out) // '{"__proto__":{"a":1}}'
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
  else record[key] = value;
}
