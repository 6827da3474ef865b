import { describe, expect, it } from 'vitest';
import type { EsError } from '../shared/errors.ts';
import { esErr } from '../test/support/es-error.ts';
import { parseBulkBody } from './bulk-parse.ts';

function reject(body: string): EsError {
  return esErr(() => parseBulkBody(body, undefined));
}

describe('parseBulkBody', () => {
  it('reads action and source lines, defaults the index, tolerates CRLF and blank lines', () => {
    const body = '{"index":{"_id":"1"}}\r\n{"a":1}\n\n{"delete":{"_index":"x","_id":"2"}}\n{"update":{"_id":"3","routing":"r"}}\n{"doc":{"b":2}}\n{"create":{}}\n{"c":3}\n';
    const items = parseBulkBody(body, 'def');
    expect(items).toEqual([
      { action: 'index', index: 'def', id: '1', routing: undefined, source: { a: 1 } },
      { action: 'delete', index: 'x', id: '2', routing: undefined, source: undefined },
      { action: 'update', index: 'def', id: '3', routing: 'r', source: { doc: { b: 2 } } },
      { action: 'create', index: 'def', id: undefined, routing: undefined, source: { c: 3 } },
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
