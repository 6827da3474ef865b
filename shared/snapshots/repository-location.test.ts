import { describe, expect, it } from 'vitest';
import { parsePathRepo, resolveRepositoryLocation } from './repository-location.ts';
import { esErr } from '../../test/support/es-error.ts';

describe('path.repo (FOLIO_PATH_REPO)', () => {
  it('parses a comma-separated list of roots into absolute paths', () => {
    expect(parsePathRepo('/a, /b/c ,,')).toEqual(['/a', '/b/c']);
    expect(parsePathRepo(undefined)).toEqual([]);
    expect(parsePathRepo('')).toEqual([]);
  });

  it('resolves a relative location against the first root and accepts an absolute one under any root', () => {
    expect(resolveRepositoryLocation('r', 'backups', ['/mnt/a', '/mnt/b'])).toBe('/mnt/a/backups');
    expect(resolveRepositoryLocation('r', '/mnt/b/x/y', ['/mnt/a', '/mnt/b'])).toBe('/mnt/b/x/y');
    expect(resolveRepositoryLocation('r', '/mnt/a', ['/mnt/a'])).toBe('/mnt/a');
  });

  it("refuses a location outside every root with ES's repository_exception texts", () => {
    const outside = esErr(() => resolveRepositoryLocation('r', '/etc', ['/mnt/a']));
    expect([outside.status, outside.type, outside.message]).toEqual([
      500,
      'repository_exception',
      "[r] location [/etc] doesn't match any of the locations specified by path.repo",
    ]);
    // `..` cannot climb out, and a sibling whose name starts with the root's is not under it.
    expect(esErr(() => resolveRepositoryLocation('r', '../escape', ['/mnt/a'])).type).toBe('repository_exception');
    expect(esErr(() => resolveRepositoryLocation('r', '/mnt/ab', ['/mnt/a'])).type).toBe('repository_exception');
    expect(esErr(() => resolveRepositoryLocation('r', '/x', [])).message).toBe(
      "[r] location [/x] doesn't match any of the locations specified by path.repo because this setting is empty",
    );
    expect(esErr(() => resolveRepositoryLocation('r', undefined, ['/mnt/a'])).message).toBe('[r] missing location');
  });
});
