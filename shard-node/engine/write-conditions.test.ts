import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { checkWriteConditions, mergeUpdate, nextVersion } from './write-conditions.ts';

const live = { version: 3, seqNo: 6, deleted: false };
const tombstone = { version: 6, seqNo: 9, deleted: true };

describe('checkWriteConditions: if_seq_no and if_primary_term (ES InternalEngine)', () => {
  it('passes when both match the live document', () => {
    expect(() => checkWriteConditions('1', { ifSeqNo: 6, ifPrimaryTerm: 1 }, live, 1)).not.toThrow();
  });
  it('a different seq_no or term is a 409 with ES text', () => {
    const e = esErr(() => checkWriteConditions('1', { ifSeqNo: 5, ifPrimaryTerm: 1 }, live, 1));
    expect([e.status, e.type, e.message]).toEqual([
      409,
      'version_conflict_engine_exception',
      '[1]: version conflict, required seqNo [5], primary term [1]. current document has seqNo [6] and primary term [1]',
    ]);
    expect(esErr(() => checkWriteConditions('1', { ifSeqNo: 6, ifPrimaryTerm: 1 }, live, 2)).message).toBe(
      '[1]: version conflict, required seqNo [6], primary term [1]. current document has seqNo [6] and primary term [2]',
    );
  });
  it('a missing or deleted document is a conflict: but no document was found', () => {
    for (const current of [undefined, tombstone]) {
      expect(esErr(() => checkWriteConditions('x', { ifSeqNo: 9, ifPrimaryTerm: 1 }, current, 1)).message).toBe(
        '[x]: version conflict, required seqNo [9], primary term [1]. but no document was found',
      );
    }
  });
});

describe('checkWriteConditions: external versions (ES VersionType)', () => {
  it('external needs a higher version than the current one, a tombstone included', () => {
    expect(() => checkWriteConditions('1', { version: 4, versionType: 'external' }, live, 1)).not.toThrow();
    const e = esErr(() => checkWriteConditions('1', { version: 3, versionType: 'external' }, live, 1));
    expect([e.status, e.message]).toEqual([409, '[1]: version conflict, current version [3] is higher or equal to the one provided [3]']);
    expect(esErr(() => checkWriteConditions('1', { version: 5, versionType: 'external' }, tombstone, 1)).message).toBe(
      '[1]: version conflict, current version [6] is higher or equal to the one provided [5]',
    );
  });
  it('external_gte accepts an equal version', () => {
    expect(() => checkWriteConditions('1', { version: 3, versionType: 'external_gte' }, live, 1)).not.toThrow();
    expect(() => checkWriteConditions('1', { version: 6, versionType: 'external_gte' }, tombstone, 1)).not.toThrow();
    expect(esErr(() => checkWriteConditions('1', { version: 2, versionType: 'external_gte' }, live, 1)).message).toBe(
      '[1]: version conflict, current version [3] is higher than the one provided [2]',
    );
  });
  it('an unknown document accepts any external version, 0 included', () => {
    expect(() => checkWriteConditions('1', { version: 0, versionType: 'external' }, undefined, 1)).not.toThrow();
  });
  it('no condition never conflicts', () => {
    expect(() => checkWriteConditions('1', {}, live, 1)).not.toThrow();
  });
});

describe('nextVersion (ES VersionType.updateVersion)', () => {
  it('internal: current + 1 (a tombstone continues the sequence), or 1', () => {
    expect(nextVersion({}, live)).toBe(4);
    expect(nextVersion({}, tombstone)).toBe(7);
    expect(nextVersion({}, undefined)).toBe(1);
  });
  it('external: the version given', () => {
    expect(nextVersion({ version: 42, versionType: 'external' }, live)).toBe(42);
    expect(nextVersion({ version: 0, versionType: 'external_gte' }, undefined)).toBe(0);
  });
});

describe('mergeUpdate (ES XContentHelper.update)', () => {
  it('merges objects recursively and replaces arrays and scalars', () => {
    const { merged, modified } = mergeUpdate({ a: { b: 1, c: 2 }, t: [1, 2], s: 'x' }, { a: { b: 5 }, t: [3] }, true);
    expect(merged).toEqual({ a: { b: 5, c: 2 }, t: [3], s: 'x' });
    expect(modified).toBe(true);
  });
  it('detect_noop: equal values change nothing, whatever the key order of objects', () => {
    const base = { a: { b: 1, c: [{ x: 1, y: 2 }] }, s: 'x' };
    expect(mergeUpdate(base, { a: { c: [{ y: 2, x: 1 }] }, s: 'x' }, true).modified).toBe(false);
    expect(mergeUpdate(base, { s: 'y' }, true).modified).toBe(true);
    expect(mergeUpdate(base, { n: null }, true).modified).toBe(true); // a new field
  });
  it('without detect_noop any field given is a change, an empty doc is not', () => {
    expect(mergeUpdate({ s: 'x' }, { s: 'x' }, false).modified).toBe(true);
    expect(mergeUpdate({ s: 'x' }, {}, false).modified).toBe(false);
  });
  it('treats __proto__ and constructor as fields', () => {
    const base = JSON.parse('{"__proto__":{"a":1}}') as Record<string, unknown>;
    const { merged, modified } = mergeUpdate(base, JSON.parse('{"__proto__":{"b":2},"constructor":1}') as Record<string, unknown>, true);
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"a":1,"b":2},"constructor":1}');
    expect(modified).toBe(true);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });
});
