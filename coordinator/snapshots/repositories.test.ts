import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { EmbeddedStore } from '../../shared/state-store/embedded-store.ts';
import { parseRepositoryBody, Repositories, validateRepositoryName } from './repositories.ts';
import { esErr } from '../../test/support/es-error.ts';

describe('a PUT /_snapshot/{repo} body', () => {
  it('keeps the type and flattens the settings to strings, as ES prints them', () => {
    expect(parseRepositoryBody('r', { type: 'fs', settings: { location: 'x', compress: true, chunk: { size: 5 } } })).toEqual({
      type: 'fs',
      settings: { location: 'x', compress: 'true', 'chunk.size': '5' },
    });
  });

  it("answers ES's errors for a missing or unknown type and a bad name", () => {
    const missing = esErr(() => parseRepositoryBody('r', { settings: {} }));
    expect([missing.status, missing.type, missing.message]).toEqual([400, 'action_request_validation_exception', 'Validation Failed: 1: type is missing;']);
    const unknown = esErr(() => parseRepositoryBody('r', { type: 's3' }));
    expect([unknown.status, unknown.type, unknown.message]).toEqual([500, 'repository_exception', '[r] repository type [s3] does not exist']);
    expect(esErr(() => validateRepositoryName('a#b')).message).toBe("[a#b] must not contain '#'");
    expect(esErr(() => validateRepositoryName('a/b')).message).toMatch(/^\[a\/b\] must not contain the following characters/);
  });
});

describe('repositories in the cluster state', () => {
  it('registers, lists, resolves and deletes repositories; a location outside path.repo is refused before anything is stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-repos-'));
    const store = await EmbeddedStore.open({ dir });
    const tmpRoot = mkdtempSync(join(tmpdir(), 'folio-repo-root-'));
    const repos = new Repositories(() => store, [tmpRoot]);
    await repos.put('one', { type: 'fs', settings: { location: tmpRoot + '/one' } });
    await repos.put('two', { type: 'fs', settings: { location: tmpRoot + '/two' } });
    expect([...(await repos.resolve('_all')).keys()]).toEqual(['one', 'two']);
    expect([...(await repos.resolve('t*')).keys()]).toEqual(['two']);
    expect(repos.location('one', await repos.get('one'))).toBe(join(tmpRoot, 'one'));
    expect(existsSync(join(tmpRoot, 'two'))).toBe(true); // created at registration
    const outside = await repos.put('bad', { type: 'fs', settings: { location: '/etc' } }).catch((e: EsError) => e);
    expect(outside).toMatchObject({ status: 500, type: 'repository_exception', message: '[bad] failed to create repository' });
    expect((outside as EsError).causedBy?.reason).toBe("[bad] location [/etc] doesn't match any of the locations specified by path.repo");
    const badRate = await repos.put('bad', { type: 'fs', settings: { location: 'x', max_snapshot_bytes_per_sec: 'fast' } }).catch((e: EsError) => e);
    expect((badRate as EsError).causedBy).toMatchObject({ type: 'parse_exception' });
    expect(repos.rates({ type: 'fs', settings: { max_restore_bytes_per_sec: '10mb' } })).toEqual({ snapshot: 40 * 1024 * 1024, restore: 10 * 1024 * 1024 });
    await expect(repos.get('bad')).rejects.toMatchObject({ status: 404, type: 'repository_missing_exception', message: '[bad] missing' });
    await repos.delete('one');
    expect([...(await repos.all()).keys()]).toEqual(['two']);
    await expect(repos.resolve('one')).rejects.toMatchObject({ type: 'repository_missing_exception' });
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(tmpRoot, { recursive: true, force: true });
  });
});
