/**
 * The `Authorization` header as Elasticsearch reads it: `Basic base64(username:password)` (the
 * scheme matched case-insensitively) and `ApiKey base64(id:api_key)`. Any other scheme, or no
 * header, carries no credentials. Base64 is decoded as strictly as Java's `Base64.getDecoder()`,
 * so the same headers are rejected, with the same reasons.
 * @see https://github.com/elastic/elasticsearch/blob/main/x-pack/plugin/core/src/main/java/org/elasticsearch/xpack/core/security/authc/support/UsernamePasswordToken.java
 * @see https://github.com/elastic/elasticsearch/blob/main/x-pack/plugin/security/src/main/java/org/elasticsearch/xpack/security/authc/ApiKeyService.java (parseApiKey)
 */

/** What a request presents: nothing usable, a user and password, an API key, or a malformed header. */
export type Credentials =
  | { kind: 'none' }
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'api_key'; id: string; key: string }
  | { kind: 'malformed'; scheme: 'basic' | 'api_key'; reason: string; cause?: string };

const BASIC = 'basic ';
const API_KEY = 'apikey ';

/**
 * Decodes standard base64 the way Java's `Base64.getDecoder()` does: padding optional, any
 * character outside `A–Z a–z 0–9 + /` rejected (URL-safe `-`/`_` included), a dangling single
 * character rejected. Returns the bytes, or Java's exception message.
 * @example javaBase64Decode('YTpi') // Buffer 'a:b'; javaBase64Decode('a_b') // 'Illegal base64 character 5f'
 */
export function javaBase64Decode(text: string): Buffer | string {
  const eq = text.indexOf('=');
  const body = eq < 0 ? text : text.slice(0, eq);
  const pad = eq < 0 ? '' : text.slice(eq);
  for (let i = 0; i < body.length; i++) {
    const ch = body.charCodeAt(i);
    const ok = (ch >= 65 && ch <= 90) || (ch >= 97 && ch <= 122) || (ch >= 48 && ch <= 57) || ch === 43 || ch === 47;
    if (!ok) return `Illegal base64 character ${ch.toString(16)}`;
  }
  if (pad !== '') {
    const extra = pad.search(/[^=]/);
    if (extra >= 0) return `Input byte array has incorrect ending byte at ${eq + extra}`;
    const needed = body.length % 4 === 2 ? 2 : body.length % 4 === 3 ? 1 : 0;
    if (needed === 0 || pad.length < needed) return 'Input byte array has wrong 4-byte ending unit';
    if (pad.length > needed) return `Input byte array has incorrect ending byte at ${eq + needed}`;
  }
  if (body.length % 4 === 1) return 'Last unit does not have enough valid bits';
  return Buffer.from(body, 'base64');
}

/** UTF-8 text of the decoded bytes (malformed sequences become U+FFFD, as Java's decoder). */
function utf8(bytes: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/**
 * Reads the credentials of one `Authorization` header value (undefined when absent).
 * @example parseAuthorization('Basic ' + btoa('alice:pw')) // {kind: 'basic', username: 'alice', password: 'pw'}
 * @example parseAuthorization('Bearer x') // {kind: 'none'}: Folio has no token service
 */
export function parseAuthorization(header: string | undefined): Credentials {
  if (header === undefined || header.trim() === '') return { kind: 'none' };
  const lower = header.slice(0, API_KEY.length).toLowerCase();
  if (lower.startsWith(BASIC)) {
    const raw = header.slice(BASIC.length).trim();
    if (raw === '') return { kind: 'malformed', scheme: 'basic', reason: 'invalid basic authentication header value' };
    const bytes = javaBase64Decode(raw);
    if (typeof bytes === 'string') return { kind: 'malformed', scheme: 'basic', reason: 'invalid basic authentication header encoding', cause: bytes };
    const text = utf8(bytes);
    const colon = text.indexOf(':');
    if (colon < 0) return { kind: 'malformed', scheme: 'basic', reason: 'invalid basic authentication header value' };
    return { kind: 'basic', username: text.slice(0, colon), password: text.slice(colon + 1) };
  }
  if (lower === API_KEY && header.length > API_KEY.length) {
    const bytes = javaBase64Decode(header.slice(API_KEY.length).trim());
    if (typeof bytes === 'string') return { kind: 'malformed', scheme: 'api_key', reason: 'error attempting to authenticate request', cause: bytes };
    const text = utf8(bytes);
    const colon = text.indexOf(':');
    if (colon < 1) return { kind: 'malformed', scheme: 'api_key', reason: 'error attempting to authenticate request', cause: 'invalid ApiKey value' };
    return { kind: 'api_key', id: text.slice(0, colon), key: text.slice(colon + 1) };
  }
  return { kind: 'none' };
}

/**
 * The `encoded` form of an API key, as ES's create API key response gives it and as clients send
 * it after `ApiKey `: standard base64 (with padding) of `id:api_key`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/security-api-create-api-key.html
 */
export function encodeApiKey(id: string, key: string): string {
  return Buffer.from(`${id}:${key}`, 'utf8').toString('base64');
}
