import { describe, expect, it } from 'vitest';
import type { EsError } from '../../protocol/errors.ts';
import { esErr } from '../../test/support/es-error.ts';
import { jsonNumber } from '../../test/support/json-number.ts';
import { decodeBulkBody, parseBulkBody, parseBulkBodySliced, parseBulkBytesSliced, trimJsonWhitespace } from './bulk-parse.ts';

function reject(body: string): EsError {
  return esErr(() => parseBulkBody(body, undefined));
}

describe('parseBulkBody', () => {
  it('reads action and source lines, defaults the index, tolerates CRLF and blank lines', () => {
    const body =
      '{"index":{"_id":"1"}}\r\n{"a":1}\n\n{"delete":{"_index":"x","_id":"2"}}\n{"update":{"_id":"3","routing":"r"}}\n{"doc":{"b":2}}\n{"create":{}}\n{"c":3}\n';
    const items = parseBulkBody(body, 'def');
    expect(items).toEqual([
      { action: 'index', index: 'def', id: '1', routing: undefined, source: { a: 1 }, sourceText: '{"a":1}' },
      { action: 'delete', index: 'x', id: '2', routing: undefined, source: undefined },
      {
        action: 'update',
        index: 'def',
        id: '3',
        routing: 'r',
        source: { doc: { b: 2 } },
        update: { doc: { b: 2 }, docAsUpsert: false, detectNoop: true, script: false },
      },
      { action: 'create', index: 'def', id: undefined, routing: undefined, source: { c: 3 }, sourceText: '{"c":3}' },
    ]);
  });

  it('rejects malformed lines with ES texts', () => {
    expect(reject('"x"\n').message).toBe('Malformed action/metadata line [1], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]');
    expect(reject('{"foo":{}}\n').message).toBe('Malformed action/metadata line [1], expected field [create], [delete], [index] or [update] but found [foo]');
    expect(reject('{"index":{"_id":"1","bogus":1}}\n{}\n').message).toBe('Action/metadata line [1] contains an unknown parameter [bogus]');
    expect(reject('{"index":{}}\n{}\n{}\n').message).toBe('Malformed action/metadata line [3], expected FIELD_NAME but found [END_OBJECT]');
    expect(reject('{"index":{}}').message).toBe('The bulk request must be terminated by a newline [\\n]');
    expect(reject('{"index":{}}\n{bad json}\n').type).toBe('x_content_parse_exception');
    expect(reject('').message).toBe('Validation Failed: 1: no requests added;');
    for (const b of ['"x"\n', '{"index":{}}\n{bad json}\n', '']) expect(reject(b).status).toBe(400);
  });
});

describe('parseBulkBody: write parameters of action lines', () => {
  it('reads concurrency, pipeline, retry_on_conflict and _source', () => {
    const body =
      '{"index":{"_id":"1","if_seq_no":3,"if_primary_term":"1","pipeline":"p"}}\n{"a":1}\n{"update":{"_id":"2","retry_on_conflict":2,"_source":["a"]}}\n{"doc":{"a":2},"detect_noop":false}\n{"delete":{"_id":"3","version":7,"version_type":"external_gte"}}\n';
    const items = parseBulkBody(body, 'i');
    expect(items.map((it) => it.params)).toEqual([
      { ifSeqNo: 3, ifPrimaryTerm: 1, pipeline: 'p' },
      { retryOnConflict: 2, fetchSource: { includes: ['a'], excludes: [] } },
      { version: 7, versionType: 'external_gte' },
    ]);
    expect(items[1].update).toEqual({ doc: { a: 2 }, docAsUpsert: false, detectNoop: false, script: false });
  });

  it('an index action with op_type create is a create', () => {
    const items = parseBulkBody('{"index":{"op_type":"create"}}\n{"f":5}\n{"index":{"op_type":"index"}}\n{"f":6}\n', 'i');
    expect(items.map((it) => it.action)).toEqual(['create', 'index']);
  });

  it('refuses the whole request for a bad version type or update body, as ES parses them in the REST layer', () => {
    expect(reject('{"index":{"_id":"1","version_type":"force"}}\n{}\n').message).toBe('No version type match [force]');
    const e = reject('{"update":{"_id":"1"}}\n{"dac":{}}\n');
    expect([e.status, e.type]).toEqual([400, 'x_content_parse_exception']);
    expect(e.message).toMatch(/\[UpdateRequest\] unknown field \[dac\] did you mean \[doc\]\?$/);
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
    expect(items[0].source).toEqual({ big: jsonNumber('72057594037927937'), d: 1.1, s: 'é' });
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

describe('invalid UTF-8 in a _bulk body', () => {
  const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  it('fails only the item whose document line is invalid (ES parses sources on the shard)', async () => {
    const { text, badLines } = await decodeBulkBody(bytes('{"index":{"_id":"1"}}\n{"s":"', [0xff], '"}\n{"index":{"_id":"2"}}\n{"s":"é"}\n'));
    expect([...badLines.keys()]).toEqual([2]);
    const items = parseBulkBody(text, 'idx', badLines);
    expect(items[0].failure?.toBody().error).toMatchObject({
      type: 'document_parsing_exception',
      reason: '[1:7] failed to parse: Invalid UTF-8 start byte 0xff',
    });
    expect(items[1]).toMatchObject({ id: '2', sourceText: '{"s":"é"}' });
    expect(items[1].failure).toBeUndefined();
  });

  it('refuses the whole request for a bad action line or update body (parsed by the REST layer)', async () => {
    const action = await decodeBulkBody(bytes('{"index":{"_id":"', [0xc3, 0x28], '"}}\n{}\n'));
    expect(esErr(() => parseBulkBody(action.text, 'idx', action.badLines)).message).toBe('[1:19] Invalid UTF-8 middle byte 0x28');
    const update = await decodeBulkBody(bytes('{"index":{}}\n{}\n{"update":{"_id":"1"}}\n{"doc":{"a":"', [0xff], '"}}\n'));
    const e = esErr(() => parseBulkBody(update.text, 'idx', update.badLines));
    expect([e.status, e.type, e.message]).toEqual([400, 'x_content_parse_exception', '[4:14] Invalid UTF-8 start byte 0xff']);
  });

  it('a valid body decodes in one go', async () => {
    expect(await decodeBulkBody(bytes('{"index":{}}\n{"s":"😀"}\n'))).toEqual({ text: '{"index":{}}\n{"s":"😀"}\n', badLines: new Map() });
  });
});

describe('parseBulkBodySliced', () => {
  it('gives the items and errors of parseBulkBody, yielding to the event loop on a large body', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      lines.push(JSON.stringify({ index: { _id: `d${i}` } }), `{"n": ${i}.10, "s": "é"}`);
      if (i % 3 === 0) lines.push(JSON.stringify({ delete: { _id: `x${i}` } }));
    }
    const body = lines.join('\n') + '\n';
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    const sliced = await parseBulkBodySliced(body, 'idx');
    clearInterval(ticker);
    expect(sliced).toEqual(parseBulkBody(body, 'idx'));
    expect(sliced).toHaveLength(20_000 + 6_667);
    expect(ticks).toBeGreaterThan(0); // timers ran while it parsed
    for (const bad of ['', '{"index":{}}', '{"nope":{}}\n', '{"index":{}}\n']) {
      const syncError = (() => {
        try {
          parseBulkBody(bad, 'idx');
        } catch (e) {
          return (e as Error).message;
        }
      })();
      await expect(parseBulkBodySliced(bad, 'idx')).rejects.toThrow(syncError);
    }
  });
});

describe('require_alias per item', () => {
  it("reads the action line's require_alias as a boolean", () => {
    const items = parseBulkBody(
      '{"index":{"_index":"a","require_alias":true}}\n{}\n{"index":{"_index":"b","require_alias":"false"}}\n{}\n{"index":{"_index":"c"}}\n{}\n',
      undefined,
    );
    expect(items.map((i) => i.requireAlias)).toEqual([true, false, undefined]);
  });
});

describe('parseBulkBytesSliced: a body parsed from its bytes line by line', () => {
  /** What the route did before: the whole body decoded, then parsed (items, or the error's type and reason). */
  async function viaText(bytes: Buffer): Promise<unknown> {
    try {
      const { text, badLines } = await decodeBulkBody(bytes);
      return await parseBulkBodySliced(text, 'dflt', badLines);
    } catch (err) {
      return { error: (err as Error).message };
    }
  }
  async function viaBytes(bytes: Buffer | undefined): Promise<unknown> {
    try {
      return await parseBulkBytesSliced(bytes, 'dflt');
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  it('gives the items and errors the decoded text gives', async () => {
    const bodies = [
      '{"index":{"_id":"1"}}\n{"a":"é😀"}\n{"delete":{"_id":"2"}}\n',
      '\uFEFF{"delete":{"_id":"bom"}}\r\n\r\n  \n{"create":{"_index":"x","_id":"3"}}\r\n { "b" : 1 } \r\n',
      '{"delete":{"_id":"no-newline"}}',
      '\uFEFF',
      '\n\n',
      '{"delete":{"_id":"1"}}\n{"bad"\n',
      '{"index":{}}\n',
    ].map((b) => Buffer.from(b));
    bodies.push(Buffer.concat([Buffer.from('{"index":{"_id":"u"}}\n{"s":"'), Buffer.from([0xff]), Buffer.from('"}\n{"delete":{"_id":"v"}}\n')]));
    const big = Array.from({ length: 30_000 }, (_, i) => `{"delete":{"_id":"g-${i}-é"}}\n`).join('');
    bodies.push(Buffer.from(big));
    for (const bytes of bodies) expect(await viaBytes(bytes), bytes.toString().slice(0, 60)).toEqual(await viaText(bytes));
    expect(await viaBytes(undefined)).toEqual({ error: 'Validation Failed: 1: no requests added;' });
  });
});
