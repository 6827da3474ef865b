import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { parsePathRepo, resolveRepositoryLocation } from './repository-location.ts';

/** The EsError `fn` throws. */
function thrown(fn: () => unknown): EsError {
  try {
    fn();
  } catch (err) {
    return err as EsError;
  }
  throw new Error('did not throw');
}

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
    const outside = thrown(() => resolveRepositoryLocation('r', '/etc', ['/mnt/a']));
    expect([outside.status, outside.type, outside.message]).toEqual([
      500,
      'repository_exception',
      "[r] location [/etc] doesn't match any of the locations specified by path.repo",
    ]);
    // `..` cannot climb out, and a sibling whose name starts with the root's is not under it.
    expect(thrown(() => resolveRepositoryLocation('r', '../escape', ['/mnt/a'])).type).toBe('repository_exception');
    expect(thrown(() => resolveRepositoryLocation('r', '/mnt/ab', ['/mnt/a'])).type).toBe('repository_exception');
    expect(thrown(() => resolveRepositoryLocation('r', '/x', [])).message).toBe(
      "[r] location [/x] doesn't match any of the locations specified by path.repo because this setting is empty",
    );
    expect(thrown(() => resolveRepositoryLocation('r', undefined, ['/mnt/a'])).message).toBe('[r] missing location');
  });
});
