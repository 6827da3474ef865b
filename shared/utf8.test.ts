import { describe, expect, it } from 'vitest';
import { esErr } from '../test/support/es-error.ts';
import { decodeUtf8Strict, decodeUtf8StrictSliced, findInvalidUtf8, pieceEnd } from './utf8.ts';

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

describe('decodeUtf8StrictSliced', () => {
  /** Every cut of `bytes` into pieces of `n` bytes for n = 4..12: the pieces meet inside every kind of sequence. */
  const pieceSizes = [4, 5, 6, 7, 8, 9, 10, 11, 12];
  const errorOf = async (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: Error) => e.message,
    );
  const oneShot = (bytes: Uint8Array) => {
    try {
      return decodeUtf8Strict(bytes);
    } catch (e) {
      return (e as Error).message;
    }
  };

  it('gives the text of decodeUtf8Strict, however the pieces fall (BOM dropped)', async () => {
    const text = '{"s":"é😀 東京\n ascii ü"}\n'.repeat(5);
    for (const bytes of [Buffer.from(text), Buffer.from('\ufeff' + text)]) {
      for (const n of pieceSizes) expect(await decodeUtf8StrictSliced(bytes, n)).toBe(decodeUtf8Strict(bytes));
    }
  });

  it('refuses invalid bytes split across pieces with the one-shot error (line and column in the whole body)', async () => {
    const head = Buffer.from('{"a":\n "é😀');
    const cases = [
      [0xe2, 0x82], // truncated at the end of the body
      [0xe2, 0x82, 0x41], // a middle byte missing
      [0xf0, 0x90, 0x80, 0x80, 0x80], // one continuation byte too many
      [0xc3, 0x80, 0x80, 0x80, 0x80], // four continuation bytes after a complete sequence
      [0xed, 0xa0, 0x80], // a surrogate
      [0xc0, 0xaf], // an overlong
      [0xff],
    ];
    for (const bad of cases) {
      for (const tail of [Buffer.alloc(0), Buffer.from('"}\n')]) {
        const bytes = Buffer.concat([head, Buffer.from(bad), tail]);
        const expected = oneShot(bytes);
        expect(expected).toMatch(/^\[\d+:\d+\] (Invalid UTF-8|Unexpected end-of-input)/);
        for (const n of pieceSizes) expect(await errorOf(decodeUtf8StrictSliced(bytes, n)), `${bad.join(',')} in pieces of ${n}`).toBe(expected);
      }
    }
  });

  it('ends a piece only where a UTF-8 sequence starts', () => {
    const bytes = Buffer.from('aé😀b');
    // a é(2) 😀(4) b: sequences start at 0, 1, 3, 7.
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((end) => pieceEnd(bytes, end))).toEqual([1, 1, 3, 3, 3, 3, 7, 8]);
  });
});
