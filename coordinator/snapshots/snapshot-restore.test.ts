import { describe, expect, it } from 'vitest';
import { renameIndices, selectIndices } from './snapshot-restore.ts';
import { validateSnapshotName } from './snapshot-service.ts';
import { esErr } from '../../test/support/es-error.ts';

const info = { snapshot: 'snap', uuid: 'U' };

describe("a restore's indices", () => {
  const available = ['logs-1', 'logs-2', 'users'];

  it('selects all by default, names, wildcards and exclusions, in the snapshot order', () => {
    expect(selectIndices(available, [], false)).toEqual(available);
    expect(selectIndices(available, ['_all'], false)).toEqual(available);
    expect(selectIndices(available, ['users', 'logs-*'], false)).toEqual(available);
    expect(selectIndices(available, ['logs-*', '-logs-2'], false)).toEqual(['logs-1']);
    expect(selectIndices(available, ['nope', 'users'], true)).toEqual(['users']);
    const missing = esErr(() => selectIndices(available, ['nope'], false));
    expect([missing.status, missing.type, missing.message]).toEqual([404, 'index_not_found_exception', 'no such index [nope]']);
  });

  it("renames with Java's replaceAll semantics and refuses two indices renamed into one", () => {
    const renamed = renameIndices('repo', info, ['logs-1', 'users'], { rename_pattern: 'logs-(\\d)', rename_replacement: 'restored-$1' });
    expect([...renamed]).toEqual([
      ['logs-1', 'restored-1'],
      ['users', 'users'],
    ]);
    expect([...renameIndices('repo', info, ['a-a'], { rename_pattern: 'a', rename_replacement: 'b' })]).toEqual([['a-a', 'b-b']]);
    const clash = esErr(() => renameIndices('repo', info, ['logs-1', 'logs-2'], { rename_pattern: 'logs-.', rename_replacement: 'x' }));
    expect([clash.status, clash.type, clash.message]).toEqual([
      500,
      'snapshot_restore_exception',
      '[repo:snap/U] indices [logs-1] and [logs-2] are renamed into the same index [x]',
    ]);
    expect(esErr(() => renameIndices('repo', info, ['a'], { rename_pattern: '(', rename_replacement: 'x' })).status).toBe(400);
  });
});

describe('snapshot names', () => {
  it("follows ES's checks with its invalid_snapshot_name_exception texts", () => {
    expect(() => validateSnapshotName('r', 'snap-2024.01')).not.toThrow();
    const cases: [string, string][] = [
      ['', 'cannot be empty'],
      ['a b', 'must not contain whitespace'],
      ['a,b', "must not contain ','"],
      ['a#b', "must not contain '#'"],
      ['_a', "must not start with '_'"],
      ['Snap', 'must be lowercase'],
    ];
    for (const [name, why] of cases) {
      const e = esErr(() => validateSnapshotName('r', name));
      expect([e.status, e.type, e.message]).toEqual([400, 'invalid_snapshot_name_exception', `[r:${name}] Invalid snapshot name [${name}], ${why}`]);
    }
  });
});
