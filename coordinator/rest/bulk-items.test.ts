import { describe, expect, it } from 'vitest';
import { BulkItems } from './bulk-items.ts';
import { parseBulkBody, parseBulkBytesSliced, parseBulkBytesToColumns } from './bulk-parse.ts';

describe('BulkItems', () => {
  it('gives back the items the parser made, field by field', async () => {
    const body =
      '{"index":{"_id":"1","routing":"r"}}\n{"a":"é"}\n{"delete":{"_id":"ü-2","_index":"other"}}\n{"create":{}}\n{"b":1}\n' +
      '{"update":{"_id":"3","if_seq_no":1,"if_primary_term":1}}\n{"doc":{"c":2}}\n{"delete":{"_id":"\\ud800x"}}\n{"delete":{"_id":""}}\n';
    const items = parseBulkBody(body, 'dflt');
    const columns = await parseBulkBytesToColumns(Buffer.from(body), 'dflt');
    expect(columns.length).toBe(items.length);
    expect(Array.from({ length: columns.length }, (_, i) => columns.get(i))).toEqual(await parseBulkBytesSliced(Buffer.from(body), 'dflt'));
    expect(columns.id(4)).toBe('\ud800x'); // a lone surrogate survives (UTF-8 cannot carry it)
    expect([0, 1, 2, 4, 5].map((i) => columns.idByteLength(i))).toEqual([1, 4, -1, 4, 0]);
    expect(columns.routing(0)).toBe('r');
    expect(columns.extra(1)).toBeUndefined();
  });

  it('fills missing ids, retargets a copy, and sets require_alias by default', () => {
    const items = BulkItems.of([
      { action: 'index', index: 'a', id: undefined, routing: undefined, source: {}, sourceText: '{}' },
      { action: 'delete', index: 'a', id: 'x', routing: undefined, source: undefined, requireAlias: false },
    ]);
    const copy = items.copy();
    copy.retarget(1, 'b', 'r1');
    expect([items.index(1), items.routing(1), copy.index(1), copy.routing(1)]).toEqual(['a', undefined, 'b', 'r1']);
    let n = 0;
    items.fillIds(() => `gen${n++}`);
    expect([items.id(0), items.id(1), n]).toEqual(['gen0', 'x', 1]);
    items.requireAliasByDefault();
    expect([items.extra(0)?.requireAlias, items.extra(1)?.requireAlias]).toEqual([true, false]);
  });

  it('keeps an empty _id apart from none, first or later, and in a copy', () => {
    const list = ['', 'a', '', undefined].map((id) => ({ action: 'index' as const, index: 'i', id, routing: undefined, source: undefined }));
    const items = BulkItems.of(list);
    const copy = BulkItems.of([list[3], list[0]]).copy();
    copy.fillIds(() => 'g');
    expect([0, 1, 2, 3].map((i) => items.id(i))).toEqual(['', 'a', '', undefined]);
    expect([0, 1, 2, 3].map((i) => items.idByteLength(i))).toEqual([0, 1, 0, -1]);
    expect([copy.id(0), copy.id(1)]).toEqual(['g', '']);
  });

  it('grows past its first capacity', () => {
    const list = Array.from({ length: 5_000 }, (_, i) => ({
      action: 'delete' as const,
      index: `i${i % 3}`,
      id: `id-${i}-${'x'.repeat(i % 40)}`,
      routing: undefined,
      source: undefined,
    }));
    const items = BulkItems.of(list);
    expect(Array.from({ length: items.length }, (_, i) => items.get(i))).toEqual(list);
  });
});

describe('BulkItems _id pieces', () => {
  it('keeps _ids that fill a piece to its end, long ones and generated ones in a copy', () => {
    // 9,000 ids of 15 bytes take three pieces of 64 Ki bytes.
    const list = Array.from({ length: 9_000 }, (_, i) => ({
      action: 'delete' as const,
      index: 'a',
      id: `id-${String(i).padStart(12, '0')}`,
      routing: undefined,
      source: undefined,
    }));
    list.push({ action: 'delete', index: 'a', id: 'ü'.repeat(600), routing: undefined, source: undefined });
    const items = BulkItems.of(list);
    expect(Array.from({ length: items.length }, (_, i) => items.id(i))).toEqual(list.map((it) => it.id));
    expect(items.idByteLength(9_000)).toBe(1_200);
    const copy = BulkItems.of([...list, { action: 'index', index: 'a', id: undefined, routing: undefined, source: {} }]).copy();
    copy.fillIds(() => 'generated');
    expect([copy.id(4_095), copy.id(4_096), copy.id(9_001)]).toEqual([list[4_095].id, list[4_096].id, 'generated']);
  });
});
