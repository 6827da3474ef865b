import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { parseReadVersion, readVersionConflict, readVersionFromQuery } from './read-version.ts';

const q = (params: Record<string, string>) => (name: string) => params[name];

describe('read version (GET, mget items)', () => {
  it('parses version and version_type; no version: no check', () => {
    expect(parseReadVersion(undefined, undefined)).toBeUndefined();
    expect(parseReadVersion('2', undefined)).toEqual({ version: 2, versionType: 'internal' });
    expect(parseReadVersion(5, 'external_gte')).toEqual({ version: 5, versionType: 'external_gte' });
    expect(parseReadVersion('0', 'external_gt')).toEqual({ version: 0, versionType: 'external' });
    // VersionType.validateVersionForReads: MATCH_ANY (no version) is valid for every type.
    expect(parseReadVersion(undefined, 'external')).toBeUndefined();
    expect(parseReadVersion(-3, 'external')).toBeUndefined();
  });
  it('from a URL', () => {
    expect(readVersionFromQuery(q({ version: '2' }))).toEqual({ version: 2, versionType: 'internal' });
    expect(readVersionFromQuery(q({}))).toBeUndefined();
  });
  it('refuses bad values with ES texts', () => {
    expect(esErr(() => parseReadVersion('x', undefined)).message).toBe('Failed to parse long parameter [version] with value [x]');
    expect(esErr(() => parseReadVersion(1.5, undefined)).message).toBe('Failed to parse long parameter [version] with value [1.5]');
    expect(esErr(() => parseReadVersion('1', 'force')).message).toBe('No version type match [force]');
    expect(esErr(() => parseReadVersion(undefined, 'force')).message).toBe('No version type match [force]');
    expect(esErr(() => parseReadVersion('-5', 'external')).message).toBe('Validation Failed: 1: illegal version value [-5] for version type [EXTERNAL];');
    expect(esErr(() => readVersionFromQuery(q({ version: '0' }))).message).toBe('Validation Failed: 1: illegal version value [0] for version type [INTERNAL];');
  });
  it('conflicts (409) unless the document has exactly that version, for every version type', () => {
    expect(readVersionConflict(undefined, 3, 'a', 'i', 0, 'u')).toBeNull();
    expect(readVersionConflict({ version: 3, versionType: 'external' }, 3, 'a', 'i', 0, 'u')).toBeNull();
    expect(readVersionConflict({ version: 2, versionType: 'external' }, 2, '1', 'i', 0, 'u')).toBeNull();
    const c = readVersionConflict({ version: 10, versionType: 'external_gte' }, 3, 'a', 'i', 1, 'u')!;
    expect(c.toBody()).toMatchObject({
      status: 409,
      error: {
        type: 'version_conflict_engine_exception',
        reason: '[a]: version conflict, current version [3] is different than the one provided [10]',
        index: 'i',
        shard: '1',
        index_uuid: 'u',
      },
    });
  });
});
