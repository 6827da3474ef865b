import { describe, expect, it } from 'vitest';
import { applyFilterPath, parseFilterPath } from '../rest/filter-path.ts';
import { RawJson, sourceValue } from '../../shared/raw-json.ts';
import { lazyRawForFilter, reindentJson, writeJson } from './json-writer.ts';

const EXACT = '{"big": 72057594037927937, "d": 1.10, "s": "\\u00e9", "b":1,"1":2, "z": -0, "x": 1e400, "t": "\u2028é"}';

describe('writeJson', () => {
  it('splices raw texts verbatim, in order, between natively serialized values', () => {
    const body = {
      took: 1,
      hits: [
        { _id: 'a', _source: new RawJson(EXACT) },
        { _id: 'b"', _source: new RawJson('{}') },
        { _id: 'c', _score: null },
      ],
    };
    expect(writeJson(body)).toBe(`{"took":1,"hits":[{"_id":"a","_source":${EXACT}},{"_id":"b\\"","_source":{}},{"_id":"c","_score":null}]}`);
  });

  it('writes exactly what JSON.stringify writes when there is no raw text', () => {
    const body = { a: [1, -0, null, 'x\u2028'], b: { c: undefined, d: 1e21 }, e: 'é' };
    expect(writeJson(body)).toBe(JSON.stringify(body));
    expect(writeJson(body, true)).toBe(JSON.stringify(body, null, 2));
  });

  it('cannot be fooled by a document that contains a placeholder-like string', () => {
    const raw = new RawJson('{"p": "folio-raw-00000000-0000-0000-0000-000000000000"}');
    const body = { s: 'folio-raw-00000000-0000-0000-0000-000000000000', r: raw };
    expect(writeJson(body)).toBe(`{"s":"folio-raw-00000000-0000-0000-0000-000000000000","r":${raw.text}}`);
  });

  it('pretty: re-indents raw texts like JSON.stringify(…, 2), keeping every token byte for byte', () => {
    const text = '{ "n": 1.10, "a": [ ], "o": {}, "l": [1, {"k": "v, w: {x}"}], "e": "\\"q\\"" }';
    const out = writeJson({ hits: [{ _source: new RawJson(text) }] }, true);
    // Same layout as JSON.stringify of the parsed value, except the tokens keep their text (1.10).
    const parsed = JSON.stringify({ hits: [{ _source: JSON.parse(text) }] }, null, 2);
    expect(out).toBe(parsed.replace('"n": 1.1,', '"n": 1.10,'));
  });

  it('outside a writer a RawJson serializes as its parsed value', () => {
    expect(JSON.stringify({ r: new RawJson('{"d": 1.10}') })).toBe('{"r":{"d":1.1}}');
    expect(sourceValue(new RawJson('{"a":[1]}'))).toEqual({ a: [1] });
    expect(sourceValue({ a: 1 })).toEqual({ a: 1 });
  });
});

describe('reindentJson', () => {
  it('lays out nested values at a base indent', () => {
    expect(reindentJson('{"a":[1.10, 2],"b":{}}', 4)).toBe('{\n      "a": [\n        1.10,\n        2\n      ],\n      "b": {}\n    }');
    expect(reindentJson(' 12 ', 0)).toBe('12');
  });
});

describe('filter_path over raw sources', () => {
  const body = () => ({ hits: { hits: [{ _id: 'a', _source: new RawJson('{"big": 72057594037927937, "name": "x", "toJSON": 3}') }] } });
  const filtered = (fp: string) => writeJson(applyFilterPath(lazyRawForFilter(body()), parseFilterPath(fp)));

  it('keeps a whole _source byte for byte', () => {
    expect(filtered('hits.hits._source')).toBe('{"hits":{"hits":[{"_source":{"big": 72057594037927937, "name": "x", "toJSON": 3}}]}}');
    expect(filtered('-hits.hits._id')).toBe('{"hits":{"hits":[{"_source":{"big": 72057594037927937, "name": "x", "toJSON": 3}}]}}');
  });

  it('parses a _source that a path reaches into, numbers kept exact (whitespace not)', () => {
    expect(filtered('hits.hits._source.name')).toBe('{"hits":{"hits":[{"_source":{"name":"x"}}]}}');
    expect(filtered('hits.hits._source.toJSON')).toBe('{"hits":{"hits":[{"_source":{"toJSON":3}}]}}');
    expect(filtered('-hits.hits._source.name')).toBe('{"hits":{"hits":[{"_id":"a","_source":{"big":72057594037927937,"toJSON":3}}]}}');
  });
});
