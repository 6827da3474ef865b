import { describe, expect, it } from 'vitest';
import { chooseRecoveryType, chunksOf, FILE_RECOVERY_MIN_OPS } from './file-recovery.ts';

describe('chooseRecoveryType', () => {
  it('files for an empty or far-behind target, ops for one within the threshold', () => {
    expect(chooseRecoveryType(-1, 50_000)).toBe('files');
    expect(chooseRecoveryType(100, 100 + FILE_RECOVERY_MIN_OPS + 1)).toBe('files');
    expect(chooseRecoveryType(100, 100 + FILE_RECOVERY_MIN_OPS)).toBe('ops');
    expect(chooseRecoveryType(-1, 3_000)).toBe('ops');
    expect(chooseRecoveryType(-1, 20, 10)).toBe('files');
  });
});

describe('chunksOf', () => {
  it('cuts each file into chunks, the last of a file flagged; an empty file has none', () => {
    const chunks = chunksOf(
      [
        { name: 'a', length: 10 },
        { name: 'b', length: 4 },
        { name: 'c', length: 0 },
      ],
      4,
    );
    expect(chunks).toEqual([
      { file: 'a', offset: 0, length: 4, last: false },
      { file: 'a', offset: 4, length: 4, last: false },
      { file: 'a', offset: 8, length: 2, last: true },
      { file: 'b', offset: 0, length: 4, last: true },
    ]);
  });
});
