/** A coordinator call for the bench scripts. */
import { request } from 'undici';

/**
 * A JSON call to a coordinator for the bench scripts, with 10-minute timeouts (a health wait, a
 * large bulk). `T` is the shape of the reply fields the caller reads.
 * @throws Error for a status of 300 or more, except a health wait that timed out (408 with the
 *   health body, as ES answers)
 */
export async function es<T = unknown>(url: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
  const res = await request(`${url}${path}`, {
    method: method as 'GET',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' || body === undefined ? body : JSON.stringify(body),
    headersTimeout: 600_000,
    bodyTimeout: 600_000,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300 && !(res.statusCode === 408 && path.startsWith('/_cluster/health')))
    throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}
