import { describe, expect, it } from 'vitest';
import { esErr } from '../test/support/es-error.ts';
import { decodeUtf8Strict, findInvalidUtf8 } from './utf8.ts';

const body = (bad: number[]) => Buffer.concat([Buffer.from('{"query":{"match":{"name":"'), Buffer.from(bad), Buffer.from('"}}}')]);

describe('strict UTF-8 request bodies', () => {
  it('decodes valid UTF-8 (BOM dropped) and never replaces anything', () => {
    expect(decodeUtf8Strict(Buffer.from('{"s":"é😀"}'))).toBe('{"s":"é😀"}');
    expect(decodeUtf8Strict(Buffer.from('\ufeff{}'))).toBe('{}');
    expect(findInvalidUtf8(Buffer.from('ascii é 東京 😀'))).toBeNull();
  });

  it('refuses an invalid byte with Jackson’s message at its line and column', () => {
    const e = esErr(() => decodeUtf8Strict(body([0xff])));
    expect([e.status, e.type, e.message]).toEqual([400, 'x_content_parse_exception', '[1:28] Invalid UTF-8 start byte 0xff']);
    expect(findInvalidUtf8(body([0xc3, 0x28]))?.message).toBe('Invalid UTF-8 middle byte 0x28');
    expect(findInvalidUtf8(body([0xf8, 0x88, 0x80, 0x80, 0x80]))?.message).toBe('Invalid UTF-8 start byte 0xf8');
    expect(findInvalidUtf8(body([0xed, 0xa0, 0x80]))?.message).toBe('Invalid UTF-8 middle byte 0xa0'); // a surrogate
    expect(findInvalidUtf8(body([0xc0, 0xaf]))?.message).toBe('Invalid UTF-8 start byte 0xc0'); // an overlong '/'
    expect(findInvalidUtf8(Buffer.from([0x7b, 0x0a, 0x20, 0xe2, 0x82]))).toEqual({ line: 2, column: 4, message: 'Unexpected end-of-input in VALUE_STRING' });
    expect(findInvalidUtf8(Buffer.from([0x0a, 0x0a, 0x41, 0x80]))).toEqual({ line: 3, column: 2, message: 'Invalid UTF-8 start byte 0x80' });
  });
});
