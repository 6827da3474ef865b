/**
 * Parsing JSON without losing numbers: a number whose text a double would not give back (an integer
 * above 2^53, `1.10`, `1e400`) stays its original text, which `JSON.stringify` writes back as is.
 * Elasticsearch keeps `_source` numbers exact when it filters a source (its parser keeps big
 * integers and decimals as such); Folio's filters work on values parsed this way.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-source-field.html
 */

/**
 * `JSON.rawJSON`, `JSON.isRawJSON` and the reviver's source-text argument (TC39 "JSON.parse source
 * text access", shipped in V8 11.4, so in every Node ≥ 21); TypeScript's ES2024 lib does not declare
 * them yet.
 * @see https://github.com/tc39/proposal-json-parse-with-source
 */
interface JsonWithSource {
  rawJSON(text: string): object;
  isRawJSON(value: unknown): boolean;
  parse(text: string, reviver: (key: string, value: unknown, context: { source?: string }) => unknown): unknown;
}
const jsonWithSource = JSON as unknown as JsonWithSource;

/** Whether `value` is a number kept as its JSON text by {@link parseExact}. */
export function isExactNumber(value: unknown): boolean {
  return value !== null && typeof value === 'object' && jsonWithSource.isRawJSON(value);
}

/**
 * Parses a `_source` text keeping every number whose text a double would not give back (integers
 * above 2^53, `1.10`, `1e400`) as a raw JSON value, which `JSON.stringify` writes as the original
 * text; other numbers are plain numbers. Callers that walk the result treat such values as scalars
 * ({@link isExactNumber}).
 * @example JSON.stringify(parseExact('{"big":72057594037927937,"d":1.10,"n":2}')) // '{"big":72057594037927937,"d":1.10,"n":2}'
 */
export function parseExact(text: string): unknown {
  return jsonWithSource.parse(text, (_key, value, context) =>
    typeof value === 'number' && context.source !== undefined && String(value) !== context.source ? jsonWithSource.rawJSON(context.source) : value,
  );
}

/** Whether `value` is an object or array to walk into: not null, not a scalar, not an exact number. */
export function isJsonContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !jsonWithSource.isRawJSON(value);
}
