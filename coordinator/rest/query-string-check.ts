/**
 * ES's refusal of a query string it cannot URL-decode. `RestRequest.request` decodes every
 * parameter with `RestUtils.decodeComponent` before any handler (or authentication) runs, and a
 * malformed `%` escape fails the whole request with 400 `bad_parameter_exception`, whose reason is the
 * Java `IllegalArgumentException` as text and whose cause is that exception. The reply is then sent
 * without the request's parameters: no `?pretty`, no `?filter_path`.
 *
 * `%%` decodes to `%` (as ES); bytes that are not valid UTF-8 decode to U+FFFD, which is no error.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/RestUtils.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/RestRequest.java
 */
import { EsError } from '../../protocol/errors.ts';

function isHex(c: string | undefined): boolean {
  return c !== undefined && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
}

/** The `IllegalArgumentException` message `decodeComponent(s)` throws, or null when `s` decodes. */
function decodeProblem(s: string): string | null {
  for (let i = s.indexOf('%'); i !== -1; i = s.indexOf('%', i)) {
    if (i === s.length - 1) return `unterminated escape sequence at end of string: ${s}`;
    const c = s[i + 1];
    if (c === '%') {
      i += 2;
      continue;
    }
    if (i + 1 === s.length - 1) return `partial escape sequence at end of string: ${s}`;
    const c2 = s[i + 2];
    if (!isHex(c) || !isHex(c2)) return `invalid escape sequence \`%${c}${c2}' at index ${i} of: ${s}`;
    i += 3;
  }
  return null;
}

/**
 * The error ES answers for a query string (after `?`, without it) with a malformed `%` escape in a
 * parameter name or value, or null when every parameter decodes. Parameters are split at `&` and
 * `;`, names from values at the first `=`, as `RestUtils.decodeQueryString`; linear in the length.
 * @example queryStringError('filter_path=%')?.message // 'java.lang.IllegalArgumentException: unterminated escape sequence at end of string: %'
 */
export function queryStringError(query: string): EsError | null {
  if (!query.includes('%')) return null;
  for (const param of query.split(/[&;]/)) {
    const eq = param.indexOf('=');
    const parts = eq === -1 ? [param] : [param.slice(0, eq), param.slice(eq + 1)];
    for (const part of parts) {
      const problem = decodeProblem(part);
      if (problem !== null) {
        return new EsError(400, 'bad_parameter_exception', `java.lang.IllegalArgumentException: ${problem}`, {
          causedBy: { type: 'illegal_argument_exception', reason: problem },
        });
      }
    }
  }
  return null;
}

/** The raw query string of a request URL (after `?`, before any `#`), or '' when there is none. */
export function rawQueryString(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return '';
  const hash = url.indexOf('#', q);
  return url.slice(q + 1, hash === -1 ? undefined : hash);
}
