/**
 * `folio users add|remove` and `folio api-key create|invalidate` on temporary files: what they write
 * verifies with the coordinator's own parsers, the key JSON is ES's create API key response, bad
 * input exits 1 with the reason, the password can come from stdin, and a cluster URL with
 * `user:password@` becomes a Basic header.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseApiKeysFile } from '../coordinator/auth/api-keys-file.ts';
import { parseAuthorization } from '../coordinator/auth/credentials.ts';
import { verifySecret } from '../coordinator/auth/password-hash.ts';
import { parseUsersFile } from '../coordinator/auth/users-file.ts';
import { splitCredentials } from './http.ts';
import { main } from './program.ts';
import { REPO_ROOT } from '../scripts/local-services.ts';

const run = async (...args: string[]) => {
  let err = '';
  let out = '';
  const code = await main(['node', 'folio', ...args], { err: (t) => (err += t), out: (t) => (out += t) });
  return { code, err, out };
};
const tmp = () => mkdtemp(join(tmpdir(), 'folio-cli-auth-'));

describe('folio users', () => {
  it('adds users with scrypt hashes that verify, refuses duplicates without --force, and removes them', async () => {
    const file = join(await tmp(), 'users');
    expect(await run('users', 'add', 'alice', '--password', 'alice-pw', '--file', file)).toMatchObject({ code: 0, err: `user [alice] added in ${file}\n` });
    expect((await run('users', 'add', 'bob', '-p', 'bob-pw-1', '--file', file)).code).toBe(0);
    expect(await run('users', 'add', 'alice', '-p', 'other-pw', '--file', file)).toMatchObject({
      code: 1,
      err: expect.stringContaining('user [alice] already exists'),
    });
    expect((await run('users', 'add', 'alice', '-p', 'alice-pw2', '--force', '--file', file)).code).toBe(0);
    let parsed = parseUsersFile(await readFile(file, 'utf8'));
    expect(parsed.errors).toEqual([]);
    expect(await verifySecret('alice-pw2', parsed.entries.get('alice')!)).toBe(true);
    expect(await verifySecret('alice-pw', parsed.entries.get('alice')!)).toBe(false);
    expect(await verifySecret('bob-pw-1', parsed.entries.get('bob')!)).toBe(true);
    expect((await run('users', 'remove', 'alice', '--file', file)).code).toBe(0);
    parsed = parseUsersFile(await readFile(file, 'utf8'));
    expect([...parsed.entries.keys()]).toEqual(['bob']);
  });

  it("exits 1 with ES's reasons for a short password, a bad name, a missing file", async () => {
    const file = join(await tmp(), 'users');
    expect(await run('users', 'add', 'alice', '-p', '12345', '--file', file)).toMatchObject({
      code: 1,
      err: 'folio: passwords must be at least [6] characters long\n',
    });
    expect(await run('users', 'add', 'a:b', '-p', '123456', '--file', file)).toMatchObject({
      code: 1,
      err: 'folio: invalid username [a:b]: must not contain [:]\n',
    });
    expect(await run('users', 'add', 'alice', '-p', '123456')).toMatchObject({ code: 1, err: 'folio: no file: pass --file or set FOLIO_USERS_FILE\n' });
    expect(await run('users', 'remove', 'nobody', '--file', file)).toMatchObject({ code: 1, err: expect.stringContaining('user [nobody] is not in') });
  });

  it('reads the password from stdin when --password is absent (the folio executable, piped)', async () => {
    const file = join(await tmp(), 'users');
    await new Promise<void>((resolve, reject) => {
      const child = execFile(process.execPath, ['cli/folio.ts', 'users', 'add', 'carol', '--file', file], { cwd: REPO_ROOT }, (err: Error | null) =>
        err ? reject(err) : resolve(),
      );
      child.stdin!.end('carol pw from stdin\n');
    });
    const parsed = parseUsersFile(await readFile(file, 'utf8'));
    expect(await verifySecret('carol pw from stdin', parsed.entries.get('carol')!)).toBe(true);
  });
});

describe('folio api-key', () => {
  it("prints ES's create API key response and stores only the hash", async () => {
    const file = join(await tmp(), 'api_keys');
    const res = await run('api-key', 'create', 'ingest', '--owner', 'alice', '--expiration', '30d', '--file', file);
    expect(res.code).toBe(0);
    const created = JSON.parse(res.out);
    expect(Object.keys(created)).toEqual(['id', 'name', 'expiration', 'api_key', 'encoded']);
    expect(Math.abs(created.expiration - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);
    expect(parseAuthorization('ApiKey ' + created.encoded)).toEqual({ kind: 'api_key', id: created.id, key: created.api_key });
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(created.api_key);
    const entry = parseApiKeysFile(text).entries.get(created.id)!;
    expect(entry).toMatchObject({ name: 'ingest', username: 'alice', expiration: created.expiration });
    expect(await verifySecret(created.api_key, entry.hash)).toBe(true);
  });

  it('defaults the owner to the key name, invalidates by id, and rejects a bad expiration', async () => {
    const file = join(await tmp(), 'api_keys');
    const created = JSON.parse((await run('api-key', 'create', 'nightly', '--file', file)).out);
    expect(parseApiKeysFile(await readFile(file, 'utf8')).entries.get(created.id)).toMatchObject({ username: 'nightly', expiration: undefined });
    expect((await run('api-key', 'invalidate', created.id, '--file', file)).code).toBe(0);
    expect(parseApiKeysFile(await readFile(file, 'utf8')).entries.get(created.id)?.invalidated).toBe(true);
    expect(await run('api-key', 'create', 'x', '--expiration', 'soon', '--file', file)).toMatchObject({
      code: 1,
      err: expect.stringContaining('failed to parse setting [expiration] with value [soon]'),
    });
    expect((await run('api-key', 'invalidate', 'nope', '--file', file)).code).toBe(1);
  });
});

describe('cluster URLs with credentials', () => {
  it('turns user:password@ into a Basic header and strips it from the URL', () => {
    expect(splitCredentials('https://alice:p%40ss@search.example:9200/_bulk')).toEqual({
      target: 'https://search.example:9200/_bulk',
      authorization: 'Basic ' + Buffer.from('alice:p@ss').toString('base64'),
    });
    expect(splitCredentials('http://127.0.0.1:9200/x')).toEqual({ target: 'http://127.0.0.1:9200/x' });
  });
});
