/**
 * A tiny HTTP client for the end-to-end tests (undici, JSON in and out, status kept).
 */
import { request } from 'undici';

/** A reply: status, headers and the parsed body (text when not JSON). */
export interface Reply<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

/** Sends `method path` to the coordinator with an optional JSON (or raw string) body. */
export async function http<T = any>(base: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Reply<T>> {
  const res = await request(base + path, {
    method: method as 'GET',
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    headers: body === undefined ? {} : { 'content-type': contentType },
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  const text = await res.body.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.statusCode, headers: res.headers, body: parsed as T };
}

/**
 * Deletes the indices a wildcard `pattern` matches, by name: `DELETE /{pattern}` itself is refused
 * while `action.destructive_requires_name` is true (ES 8's default). Missing indices are fine.
 */
export async function deleteIndices(base: string, pattern: string): Promise<void> {
  const found = await http<Record<string, unknown>>(base, 'GET', `/${pattern}`);
  const names = found.status === 200 && found.body ? Object.keys(found.body) : [];
  if (names.length > 0) await http(base, 'DELETE', `/${names.join(',')}`);
}
