import { describe, expect, it } from 'vitest';
import type { EsError } from '../shared/errors.ts';
import { esErr } from '../test/support/es-error.ts';
import { parseBulkBody, trimJsonWhitespace } from './bulk-parse.ts';

function reject(body: string): EsError {
  return esErr(() => parseBulkBody(body, undefined));
}

describe('parseBulkBody', () => {
  it('reads action and source lines, defaults the index, tolerates CRLF and blank lines', () => {
    const body = '{"index":{"_id":"1"}}\r\n{"a":1}\n\n{"delete":{"_index":"x","_id":"2"}}\n{"update":{"_id":"3","routing":"r"}}\n{"doc":{"b":2}}\n{"create":{}}\n{"c":3}\n';
    const items = parseBulkBody(body, 'def');
    expect(items).toEqual([
      { action: 'index', index: 'def', id: '1', routing: undefined, source: { a: 1 }, sourceText: '{"a":1}' },
      { action: 'delete', index: 'x', id: '2', routing: undefined, source: undefined },
      { action: 'update', index: 'def', id: '3', routing: 'r', source: { doc: { b: 2 } } },
      { action: 'create', index: 'def', id: undefined, routing: undefined, source: { c: 3 }, sourceText: '{"c":3}' },
    ]);
  });

  it('rejects malformed lines with ES texts', () => {
    expect(reject('"x"\n').message).toBe('Malformed action/metadata line [1], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]');
    expect(reject('{"foo":{}}\n').message).toBe('Malformed action/metadata line [1], expected field [create], [delete], [index] or [update] but found [foo]');
    expect(reject('{"index":{"_id":"1","bogus":1}}\n{}\n').message).toBe('Action/metadata line [1] contains an unknown parameter [bogus]');
    expect(reject('{"index":{}}').message).toBe('The bulk request must be terminated by a newline [\\n]');
    expect(reject('{"index":{}}\n{bad json}\n').type).toBe('x_content_parse_exception');
    expect(reject('').message).toBe('Validation Failed: 1: no requests added;');
    for (const b of ['"x"\n', '{"index":{}}\n{bad json}\n', '']) expect(reject(b).status).toBe(400);
  });
});

describe('parseBulkBody: exact source texts', () => {
  const docs = [
    '{"big": 72057594037927937, "d": 1.10, "s": "é"}',
    '{"s":"\\u00e9\\ud83d\\ude00","q":"a\\"b\\\\"}',
    '{"b":1,"1":2}',
    '{"z":-0,"x":1e400,"y":-1.5E-7}',
    '{ "spaced" :\t[ 1 , 2 ] }',
  ];

  it('keeps each index/create document as its line without surrounding whitespace', () => {
    const body = docs.map((d, i) => `{"${i % 2 ? 'create' : 'index'}":{"_id":"${i}"}}\n \t${d}\t \r\n`).join('');
    const items = parseBulkBody(body, 'idx');
    expect(items.map((it) => it.sourceText)).toEqual(docs);
    // Still parsed for routing, mapping and validation.
    expect(items[0].source).toEqual({ big: 72057594037927937, d: 1.1, s: 'é' });
    expect(Object.keys(items[2].source!)).toEqual(['1', 'b']); // what JSON.parse does; the text keeps "b" first
  });

  it('an update keeps only the parsed body (the shard re-serializes the merged document)', () => {
    const [item] = parseBulkBody('{"update":{"_id":"1"}}\n{"doc":{"d":1.10}}\n', 'idx');
    expect(item.sourceText).toBeUndefined();
    expect(item.source).toEqual({ doc: { d: 1.1 } });
  });
});

describe('trimJsonWhitespace', () => {
  it('trims only JSON whitespace', () => {
    expect(trimJsonWhitespace(' \t\r\n{}\n ')).toBe('{}');
    expect(trimJsonWhitespace('\u00a0{}')).toBe('\u00a0{}');
    expect(trimJsonWhitespace('{"a": 1}')).toBe('{"a": 1}');
  });
});
