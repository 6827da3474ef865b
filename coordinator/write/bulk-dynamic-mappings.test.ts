import { describe, expect, it } from 'vitest';
import type { Mapping } from '../../protocol/mapping.ts';
import { inferBulkMappingUpdate } from './bulk-dynamic-mappings.ts';

describe("inferBulkMappingUpdate (a bulk's dynamic mapping, inferred from the stored mapping)", () => {
  it('adds each new field once, typed by the first item that has it', () => {
    const failures = new Map<number, unknown>();
    const update = inferBulkMappingUpdate(
      { properties: {} },
      [
        [0, { x: 1 }],
        [1, { x: 1.5, y: 'a' }],
      ],
      failures,
    );
    expect(update?.properties).toEqual({ x: { type: 'long' }, y: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } });
    expect(failures.size).toBe(0);
  });

  it('a field the stored mapping has already (a concurrent bulk added it) is not inferred again: no conflict', () => {
    const stored: Mapping = { properties: { x: { type: 'long' } } };
    const failures = new Map<number, unknown>();
    expect(
      inferBulkMappingUpdate(
        stored,
        [
          [0, { x: 1.5 }],
          [1, { x: { a: 1 } }],
        ],
        failures,
      ),
    ).toBeNull();
    expect(failures.size).toBe(0); // values that do not fit are the shard's per-item document_parsing_exception
    expect(inferBulkMappingUpdate(stored, [[0, { x: 1.5, n: { a: true } }]], failures)?.properties).toEqual({
      n: { type: 'object', properties: { a: { type: 'boolean' } } },
    });
  });

  it('an item that cannot add its field (dynamic: strict) fails alone', () => {
    const failures = new Map<number, unknown>();
    const update = inferBulkMappingUpdate(
      { dynamic: 'strict', properties: { a: { type: 'keyword' } } },
      [
        [3, { a: 'x' }],
        [5, { b: 1 }],
      ],
      failures,
    );
    expect(update).toBeNull();
    expect([...failures.keys()]).toEqual([5]);
    expect(failures.get(5)).toMatchObject({ status: 400, type: 'strict_dynamic_mapping_exception' });
  });
});
