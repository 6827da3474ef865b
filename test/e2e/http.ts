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
