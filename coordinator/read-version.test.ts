import { describe, expect, it } from 'vitest';
import { esErr } from '../test/support/es-error.ts';
import { parseReadVersion, readVersionConflict } from './read-version.ts';

describe('read version (GET, mget items)', () => {
  it('parses version and version_type; no version: no check', () => {
    expect(parseReadVersion(undefined, undefined)).toBeUndefined();
    expect(parseReadVersion('2', undefined)).toEqual({ version: 2, type: 'internal' });
    expect(parseReadVersion(5, 'external_gte')).toEqual({ version: 5, type: 'external_gte' });
  });
  it('refuses bad values with ES texts', () => {
    expect(esErr(() => parseReadVersion('x', undefined)).message).toBe('Failed to parse long parameter [version] with value [x]');
    expect(esErr(() => parseReadVersion('1', 'force')).message).toBe('No version type match [force]');
    expect(esErr(() => parseReadVersion('-5', 'external')).message).toBe('Validation Failed: 1: illegal version value [-5] for version type [EXTERNAL];');
    expect(esErr(() => parseReadVersion(undefined, 'external')).message).toBe('Validation Failed: 1: illegal version value [-3] for version type [EXTERNAL];');
  });
  it('conflicts (409) unless the document has exactly that version, for every version type', () => {
    expect(readVersionConflict(undefined, 3, 'a', 'i', 0, 'u')).toBeNull();
    expect(readVersionConflict({ version: 3, type: 'external' }, 3, 'a', 'i', 0, 'u')).toBeNull();
    const c = readVersionConflict({ version: 10, type: 'external_gte' }, 3, 'a', 'i', 1, 'u')!;
    expect(c.toBody()).toMatchObject({
      status: 409,
      error: { type: 'version_conflict_engine_exception', reason: '[a]: version conflict, current version [3] is different than the one provided [10]', index: 'i', shard: '1', index_uuid: 'u' },
    });
  });
});
