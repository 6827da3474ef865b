/**
 * The one HTTP call the CLI and the sample loader make: undici `request()` with explicit
 * deadlines, the body always consumed, JSON parsed when it is JSON.
 */
import { Agent, request } from 'undici';

/** Deadline of one HTTP call (headers and body each), generous for large bulk batches. */
export const REQUEST_TIMEOUT_MS = 120_000;

/** A reply: status, raw text and the parsed JSON body (undefined when not JSON). */
export interface Reply {
  status: number;
  json: unknown;
  text: string;
}

/** HTTP methods the CLI uses. */
export type Method = 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';

/**
 * Sends one request and returns status and body; the body is always consumed.
 * A string `body` is sent as is with `contentType`; any other defined body is sent as JSON.
 * @example await call(agent, 'POST', 'http://127.0.0.1:9200/cities/_refresh')
 */
export async function call(dispatcher: Agent, method: Method, url: string, body?: unknown, contentType = 'application/json'): Promise<Reply> {
  const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
  const { target, authorization } = splitCredentials(url);
  const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': contentType };
  if (authorization) headers.authorization = authorization;
  const res = await request(target, {
    method,
    dispatcher,
    body: payload,
    headers,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  const text = method === 'HEAD' ? (await res.body.dump(), '') : await res.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, text };
}

/**
 * A cluster URL with credentials (`https://user:password@host:9200`, percent-encoded as URLs
 * require) as the URL without them and a Basic `Authorization` value; undici ignores userinfo.
 * @example splitCredentials('http://a:b@h:9200/x') // {target: 'http://h:9200/x', authorization: 'Basic YTpi'}
 */
export function splitCredentials(url: string): { target: string; authorization?: string } {
  const u = new URL(url);
  if (u.username === '' && u.password === '') return { target: url };
  const authorization = 'Basic ' + Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`, 'utf8').toString('base64');
  u.username = '';
  u.password = '';
  return { target: u.toString(), authorization };
}

/** An HTTP reply the caller did not expect, with the method, path and the start of the body. */
export class HttpError extends Error {
  readonly status: number;
  constructor(method: string, path: string, reply: Reply) {
    super(`${method} ${path} returned HTTP ${reply.status}: ${reply.text.slice(0, 2000)}`);
    this.name = 'HttpError';
    this.status = reply.status;
  }
}

/** Calls and throws {@link HttpError} unless the status is 200 (or one of `ok`); returns the JSON body. */
export async function callOk<T = unknown>(dispatcher: Agent, method: Method, base: string, path: string, body?: unknown, ok: number[] = [200]): Promise<T> {
  const reply = await call(dispatcher, method, base + path, body);
  if (!ok.includes(reply.status)) throw new HttpError(method, path, reply);
  return reply.json as T;
}

/** `base` without trailing slashes. */
export function trimUrl(base: string): string {
  return base.replace(/\/+$/, '');
}
