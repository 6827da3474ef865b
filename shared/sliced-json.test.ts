import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isNdjsonContentType, ndjsonSliced, parseNdjsonSliced, stringifyItemsPieces, stringifySliced } from './sliced-json.ts';

const items = Array.from({ length: 5003 }, (_, i) => ({ _id: `d${i}`, status: i % 2 ? 201 : 404, error: i % 7 ? undefined : { type: 'x', reason: 'é"\n😀' } }));
const objects = [
  { node: 'n1', index: 'i', shard: 0, items, forcedRefresh: false, replicaOps: items.slice(0, 1001), skipped: undefined },
  { items: [] },
  { a: [1, null, 'x'], b: { c: [undefined] } },
  {},
];

/** `text` cut into chunks of `n` bytes, as a stream would deliver it. */
function chunked(text: string, n: number): Readable {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += n) chunks.push(bytes.subarray(i, i + n));
  return Readable.from(chunks);
}

describe('stringifySliced', () => {
  it('gives the text JSON.stringify gives', async () => {
    for (const obj of objects) expect(await stringifySliced(obj)).toBe(JSON.stringify(obj));
  });

  it('cuts arrays of elements of any size (chunks adapt to the time a call takes) into the same text', async () => {
    const large = 'x"é\n'.repeat(2_500); // 10 KB with escapes
    const mixed = Array.from({ length: 1_200 }, (_, i) => (i % 300 < 60 ? { _id: `m${i}`, json: large } : i % 3 ? `s${i}` : undefined));
    for (const obj of [{ ops: mixed }, { ops: mixed.slice(0, 64) }, { ops: mixed.slice(0, 65) }, { a: 1, ops: mixed.slice(0, 1_000), b: [undefined, null] }]) {
      expect(await stringifySliced(obj)).toBe(JSON.stringify(obj));
    }
  });
});

describe('stringifyItemsPieces', () => {
  it('gives the text JSON.stringify gives of the head with the items built one at a time', async () => {
    const big = Array.from({ length: 20_000 }, (_, i) => ({
      delete: { _index: 'i', _id: `é"${i}\u2028`, status: 404, error: i % 7 ? undefined : { type: 'x' } },
    }));
    for (const [head, list] of [
      [{ errors: true, took: 3 }, big],
      [{ errors: false, took: 0, skipped: undefined }, items],
      [{}, [1, 'x', null]],
      [{ took: 1 }, []],
    ] as const) {
      const pieces: string[] = [];
      for await (const piece of stringifyItemsPieces(head, 'items', list.length, (i) => list[i])) pieces.push(piece);
      expect(pieces.join('')).toBe(JSON.stringify({ ...head, items: list }));
      if (list === big) expect(pieces.length).toBeGreaterThan(1);
    }
  });
});

describe('NDJSON in slices', () => {
  const values = [{ node: 'n', items: 3 }, ...items, 'x', 7, null, [1, { a: '\n' }]];

  it('ndjsonSliced writes one JSON.stringify per line, each ending with \\n', async () => {
    expect(await ndjsonSliced(values)).toBe(values.map((v) => JSON.stringify(v) + '\n').join(''));
    expect(await ndjsonSliced([])).toBe('');
  });

  it('parseNdjsonSliced gives what one-shot parsing gives, however the chunks cut the lines and characters', async () => {
    const text = await ndjsonSliced(values);
    const oneShot = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    for (const n of [1, 3, 7, 64, 1000, 1 << 20]) {
      const { values: parsed, bytes } = await parseNdjsonSliced(chunked(text, n));
      expect(parsed).toEqual(oneShot);
      expect(bytes).toBe(Buffer.byteLength(text));
    }
  });

  it('parseNdjsonSliced takes CRLF, blank lines and a last line without \\n; refuses a line that is not JSON', async () => {
    expect((await parseNdjsonSliced(chunked('{"a":1}\r\n\n  \n[2]', 3))).values).toEqual([{ a: 1 }, [2]]);
    await expect(parseNdjsonSliced(chunked('{"a":1}\n{"a":\n', 4))).rejects.toThrow(SyntaxError);
  });

  it('isNdjsonContentType', () => {
    expect([
      isNdjsonContentType('application/x-ndjson'),
      isNdjsonContentType('Application/X-NDJSON; charset=utf-8'),
      isNdjsonContentType('application/json'),
      isNdjsonContentType(undefined),
    ]).toEqual([true, true, false, false]);
  });
});
