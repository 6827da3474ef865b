/**
 * The number a JSON parser reads for the number text `text`: a double, so an integer above 2^53 or a
 * decimal with more digits than a double holds comes back rounded to the nearest double
 * (`jsonNumber('9223372036854775807') === 2 ** 63`). Tests write Elasticsearch's long and double
 * values as ES's own tests do and compare them as Folio holds them.
 * @see https://www.rfc-editor.org/rfc/rfc8259#section-6
 * @throws SyntaxError when `text` is not a JSON number
 */
export function jsonNumber(text: string): number {
  const n: unknown = JSON.parse(text);
  if (typeof n !== 'number') throw new SyntaxError(`not a JSON number: ${text}`);
  return n;
}
