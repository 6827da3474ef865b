// The Authorization header as ES reads it: Basic and ApiKey, case-insensitive schemes, Java's strict
// base64, ES's messages for malformed values, and other schemes carrying no credentials.
import { describe, expect, it } from 'vitest';
import { encodeApiKey, javaBase64Decode, parseAuthorization } from './credentials.ts';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe('parseAuthorization: Basic', () => {
  it('splits at the first colon: the password may contain colons', () => {
    expect(parseAuthorization('Basic ' + b64('alice:pa:ss'))).toEqual({ kind: 'basic', username: 'alice', password: 'pa:ss' });
    expect(parseAuthorization('Basic ' + b64('alice:'))).toEqual({ kind: 'basic', username: 'alice', password: '' });
    expect(parseAuthorization('Basic ' + b64(':pw'))).toEqual({ kind: 'basic', username: '', password: 'pw' });
  });

  it('matches the scheme case-insensitively and trims the value, as ES', () => {
    expect(parseAuthorization('bAsIc   ' + b64('u:p') + '  ')).toEqual({ kind: 'basic', username: 'u', password: 'p' });
  });

  it('decodes UTF-8 credentials', () => {
    expect(parseAuthorization('Basic ' + b64('jürgen:päss'))).toEqual({ kind: 'basic', username: 'jürgen', password: 'päss' });
  });

  it("answers ES's reasons for a value without colon and for bad base64", () => {
    expect(parseAuthorization('Basic ' + b64('nocolon'))).toEqual({ kind: 'malformed', scheme: 'basic', reason: 'invalid basic authentication header value' });
    expect(parseAuthorization('Basic a_b=')).toEqual({
      kind: 'malformed',
      scheme: 'basic',
      reason: 'invalid basic authentication header encoding',
      cause: 'Illegal base64 character 5f',
    });
    expect(parseAuthorization('Basic  ')).toEqual({ kind: 'malformed', scheme: 'basic', reason: 'invalid basic authentication header value' });
  });
});

describe('parseAuthorization: ApiKey', () => {
  it('reads base64(id:api_key), the form encodeApiKey writes', () => {
    expect(parseAuthorization('ApiKey ' + encodeApiKey('VuaCfGcBCdbkQm-e5aOx', 'ui2lp2axTNmsyakw9tvNnw'))).toEqual({
      kind: 'api_key',
      id: 'VuaCfGcBCdbkQm-e5aOx',
      key: 'ui2lp2axTNmsyakw9tvNnw',
    });
    expect(parseAuthorization('apikey ' + b64('id:k:with:colons'))).toEqual({ kind: 'api_key', id: 'id', key: 'k:with:colons' });
  });

  it("encodes as ES's documented example", () => {
    // https://www.elastic.co/guide/en/elasticsearch/reference/current/security-api-create-api-key.html
    expect(encodeApiKey('VuaCfGcBCdbkQm-e5aOx', 'ui2lp2axTNmsyakw9tvNnw')).toBe('VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw==');
  });

  it("refuses a value without an id before the colon, and non-standard base64, with ES's cause", () => {
    for (const v of [b64('nocolon'), b64(':secret')]) {
      expect(parseAuthorization('ApiKey ' + v)).toEqual({
        kind: 'malformed',
        scheme: 'api_key',
        reason: 'error attempting to authenticate request',
        cause: 'invalid ApiKey value',
      });
    }
    expect(parseAuthorization('ApiKey ab-c')).toMatchObject({ kind: 'malformed', cause: 'Illegal base64 character 2d' });
  });
});

describe('parseAuthorization: no credentials', () => {
  it('treats absent, empty and other schemes as no credentials (Folio has no token service)', () => {
    for (const h of [undefined, '', '   ', 'Bearer abc', 'Digest x', 'Basic', 'Basicx ' + b64('a:b'), 'ApiKey'])
      expect([h, parseAuthorization(h)]).toEqual([h, { kind: 'none' }]);
  });
});

describe('javaBase64Decode', () => {
  it('accepts padded and unpadded standard base64', () => {
    expect(String(javaBase64Decode('YTpi'))).toBe('a:b');
    expect(String(javaBase64Decode('YTpiYw=='))).toBe('a:bc');
    expect(String(javaBase64Decode('YTpiYw'))).toBe('a:bc');
  });

  it("rejects what Java rejects, with Java's messages", () => {
    expect(javaBase64Decode('YTp*')).toBe('Illegal base64 character 2a');
    expect(javaBase64Decode('YTpiY')).toBe('Last unit does not have enough valid bits');
    expect(javaBase64Decode('YTpiYw=')).toBe('Input byte array has wrong 4-byte ending unit');
    expect(javaBase64Decode('YTpi=')).toBe('Input byte array has wrong 4-byte ending unit');
    expect(javaBase64Decode('YQ==YQ')).toBe('Input byte array has incorrect ending byte at 4');
    expect(javaBase64Decode('YQ===')).toBe('Input byte array has incorrect ending byte at 4');
  });
});
