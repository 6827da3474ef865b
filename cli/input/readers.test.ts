/**
 * The input readers of `folio load`: NDJSON (plain lines, bulk action pairs, dump lines, bad
 * lines), streamed JSON arrays and CSV (header, bad rows, quoted newlines, type inference).
 */
import { Readable } from 'node:stream';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inferCell } from './csv.ts';
import { detectFormat, readRecords } from './index.ts';
import type { InputFormat } from './index.ts';
import type { InputRecord } from './record.ts';
import { bulkAction } from './ndjson.ts';

async function read(text: string | string[], format: InputFormat, opts: Parameters<typeof readRecords>[2] = {}): Promise<InputRecord[]> {
  const out: InputRecord[] = [];
  for await (const r of readRecords(Readable.from(Array.isArray(text) ? text : [text]), format, opts)) out.push(r);
  return out;
}

const brief = (rs: InputRecord[]) => rs.map((r) => (r.doc ? { at: r.position, id: r.doc._id, src: r.doc.source } : { at: r.position, error: r.error }));

describe('NDJSON', () => {
  it('reads one document per line, skipping blank lines, with line numbers', async () => {
    const rs = await read('\uFEFF{"a":1}\n\n{"a":2}\r\n{"a":3}', 'ndjson');
    expect(brief(rs)).toEqual([
      { at: 1, id: undefined, src: { a: 1 } },
      { at: 3, id: undefined, src: { a: 2 } },
      { at: 4, id: undefined, src: { a: 3 } },
    ]);
  });

  it('reports bad lines and goes on', async () => {
    const rs = await read('{"a":1}\n{"a":\n[1,2]\n"x"\nnull\n{"a":6}\n', 'ndjson');
    expect(rs.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rs[1].error).toMatch(/^invalid JSON: /);
    expect(rs[1].raw).toBe('{"a":');
    expect(rs[2].error).toBe('a document must be a JSON object, got an array');
    expect(rs[3].error).toBe('a document must be a JSON object, got string');
    expect(rs[4].error).toBe('a document must be a JSON object, got null');
    expect(rs[5].doc).toEqual({ source: { a: 6 } });
  });

  it('reads a _bulk file: action lines give the _id of the next line; update/delete are errors', async () => {
    const text = [
      '{"index":{"_index":"x","_id":"1"}}',
      '{"t":"one"}',
      '{"create":{"_id":2}}',
      '{"t":"two"}',
      '{"index":{}}',
      '{"t":"three"}',
      '{"delete":{"_id":"4"}}',
      '{"update":{"_id":"5"}}',
      '{"doc":{"t":"five"}}',
      '{"index":{"_id":"6"}}',
      'not json',
      '{"index":{"_id":"7","junk":1}}',
      '{"index":{"_id":"8"}}',
    ].join('\n');
    expect(brief(await read(text, 'ndjson'))).toEqual([
      { at: 2, id: '1', src: { t: 'one' } },
      { at: 4, id: '2', src: { t: 'two' } },
      { at: 6, id: undefined, src: { t: 'three' } },
      { at: 7, error: 'bulk action [delete] is not supported by folio load' },
      { at: 9, error: 'bulk action [update] is not supported by folio load' },
      { at: 11, error: expect.stringMatching(/^source of the \[index\] action: invalid JSON/) },
      { at: 12, id: undefined, src: { index: { _id: '7', junk: 1 } } }, // not an action line: a document
      { at: 13, error: 'bulk action [index] on the last line has no source line' },
    ]);
  });

  it('reads {_id, _source} dump lines and --id-field (dotted), which wins', async () => {
    const text = '{"_id":"a","_source":{"k":1,"m":{"n":"x"}}}\n{"k":2,"m":{"n":"y"}}\n{"k":3}\n';
    expect(brief(await read(text, 'ndjson'))).toEqual([
      { at: 1, id: 'a', src: { k: 1, m: { n: 'x' } } },
      { at: 2, id: undefined, src: { k: 2, m: { n: 'y' } } },
      { at: 3, id: undefined, src: { k: 3 } },
    ]);
    expect(brief(await read(text, 'ndjson', { idField: 'm.n' }))).toEqual([
      { at: 1, id: 'x', src: { k: 1, m: { n: 'x' } } },
      { at: 2, id: 'y', src: { k: 2, m: { n: 'y' } } },
      { at: 3, error: 'id field [m.n] is missing or not a string or number' },
    ]);
  });

  it('skips lines up to the resume point without parsing them', async () => {
    const rs = await read('{"a":1}\nbroken\n{"a":3}\n{"a":4}\n', 'ndjson', { skipThrough: 2 });
    expect(brief(rs)).toEqual([
      { at: 3, id: undefined, src: { a: 3 } },
      { at: 4, id: undefined, src: { a: 4 } },
    ]);
  });

  it('recognises only metadata-only action lines', () => {
    expect(bulkAction({ index: { _id: 1, routing: 'r' } })).toEqual({ action: 'index', id: '1' });
    expect(bulkAction({ index: { title: 'x' } })).toBeUndefined();
    expect(bulkAction({ index: 'x' })).toBeUndefined();
    expect(bulkAction({ index: {}, other: 1 })).toBeUndefined();
  });
});

describe('JSON array', () => {
  it('streams elements split across chunks, with element numbers; non-objects are errors', async () => {
    const rs = await read(['[{"a":1},', ' 7, {"_id":"z","_sou', 'rce":{"b":2}}, {"c":"', '3"}]'], 'json');
    expect(brief(rs)).toEqual([
      { at: 1, id: undefined, src: { a: 1 } },
      { at: 2, error: 'a document must be a JSON object, got number' },
      { at: 3, id: 'z', src: { b: 2 } },
      { at: 4, id: undefined, src: { c: '3' } },
    ]);
  });

  it('skips elements up to the resume point and fails on a syntax error', async () => {
    expect(brief(await read('[{"a":1},{"a":2},{"a":3}]', 'json', { skipThrough: 2 }))).toEqual([{ at: 3, id: undefined, src: { a: 3 } }]);
    await expect(read('[{"a":1},{"a":', 'json')).rejects.toThrow();
  });
});

describe('CSV', () => {
  const csv = 'id,name,pop\n1,Vienna,1900000\n2,"Graz, Styria",290000\n3,short\n4,"Multi\nline",5\n5,a,b,c\n\n6,Linz,\n';

  it('reads rows as string fields with line numbers; bad rows are errors and the read goes on', async () => {
    expect(brief(await read(csv, 'csv'))).toEqual([
      { at: 2, id: undefined, src: { id: '1', name: 'Vienna', pop: '1900000' } },
      { at: 3, id: undefined, src: { id: '2', name: 'Graz, Styria', pop: '290000' } },
      { at: 4, error: expect.stringMatching(/^invalid CSV record: Invalid Record Length/) },
      { at: 6, id: undefined, src: { id: '4', name: 'Multi\nline', pop: '5' } },
      { at: 7, error: expect.stringMatching(/^invalid CSV record: Invalid Record Length/) },
      { at: 9, id: undefined, src: { id: '6', name: 'Linz', pop: '' } },
    ]);
  });

  it('infers types on request and takes ids from a column', async () => {
    const rs = await read(csv, 'csv', { inferTypes: true, idField: 'id' });
    expect(brief(rs).filter((r) => 'src' in r)).toEqual([
      { at: 2, id: '1', src: { id: 1, name: 'Vienna', pop: 1900000 } },
      { at: 3, id: '2', src: { id: 2, name: 'Graz, Styria', pop: 290000 } },
      { at: 6, id: '4', src: { id: 4, name: 'Multi\nline', pop: 5 } },
      { at: 9, id: '6', src: { id: 6, name: 'Linz', pop: null } },
    ]);
    expect(brief(await read(csv, 'csv', { skipThrough: 6 })).map((r) => r.at)).toEqual([7, 9]);
  });

  it('reads TSV and types cells conservatively', async () => {
    expect(brief(await read('a\tb\nx y\t2\n', 'tsv'))).toEqual([{ at: 2, id: undefined, src: { a: 'x y', b: '2' } }]);
    expect(['12', '-3.5', '1e3', '007', '12345678901234567890', 'true', 'false', '', 'NaN', ' 1'].map(inferCell)).toEqual([
      12,
      -3.5,
      1000,
      '007',
      '12345678901234567890',
      true,
      false,
      null,
      'NaN',
      ' 1',
    ]);
  });
});

describe('detectFormat', () => {
  it('uses the extension, else sniffs for a JSON array', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'folio-detect-'));
    const file = async (name: string, text: string) => (await writeFile(join(dir, name), text), join(dir, name));
    expect(await detectFormat(await file('a.csv', 'x'))).toBe('csv');
    expect(await detectFormat(await file('a.jsonl', '['))).toBe('ndjson');
    expect(await detectFormat(await file('a.json', '  \n [{"a":1}]'))).toBe('json');
    expect(await detectFormat(await file('b.json', '{"a":1}\n{"a":2}'))).toBe('ndjson');
    expect(await detectFormat(await file('c.data', '\uFEFF['))).toBe('json');
  });
});
