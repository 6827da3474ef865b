// The authenticator: ES's outcomes for users and API keys, the verification cache (hits skip scrypt,
// failures are never cached, concurrent first requests share one run, entries expire with the TTL
// or the key), and reloads that drop removed users and keys at once.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newApiKey, type ApiKeyRecord } from './api-keys-file.ts';
import { Authenticator, type AuthenticatorOptions } from './authenticator.ts';
import { encodeApiKey } from './credentials.ts';
import { hashSecret } from './password-hash.ts';

const FAST = { ln: 10, r: 8, p: 1 };
const basic = (u: string, p: string) => 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64');
const opened: Authenticator[] = [];
afterEach(() => opened.splice(0).forEach((a) => a.close()));

/** Files with alice/alice-pw and the given key records, and an authenticator over them on a fake clock. */
async function setup(keys: ApiKeyRecord[] = [], opts: Partial<AuthenticatorOptions> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'folio-authn-'));
  const usersFile = join(dir, 'users');
  const apiKeysFile = join(dir, 'api_keys');
  await writeFile(usersFile, `alice:${await hashSecret('alice-pw', FAST)}\n`);
  await writeFile(apiKeysFile, keys.map((k) => JSON.stringify(k) + '\n').join(''));
  const clock = { now: 1_000_000 };
  const auth = new Authenticator({ usersFile, apiKeysFile, cacheTtlMs: 60_000, reloadIntervalMs: 0, now: () => clock.now, ...opts });
  opened.push(auth);
  return { auth, clock, usersFile, apiKeysFile };
}

describe('Authenticator outcomes', () => {
  it("authenticates a file user and refuses a wrong password and an unknown user with ES's user failure", async () => {
    const { auth } = await setup();
    expect(await auth.authenticate(basic('alice', 'alice-pw'), '/')).toEqual({ ok: true, principal: { username: 'alice', realm: 'file' } });
    expect(await auth.authenticate(basic('alice', 'nope'), '/_search?q=x')).toEqual({
      ok: false,
      failure: { kind: 'user', username: 'alice', uri: '/_search?q=x' },
    });
    expect(await auth.authenticate(basic('mallory', 'alice-pw'), '/')).toEqual({ ok: false, failure: { kind: 'user', username: 'mallory', uri: '/' } });
    expect(auth.stats.failures.user).toBe(2);
  });

  it('reports missing and malformed credentials without verifying anything', async () => {
    const { auth } = await setup();
    expect(await auth.authenticate(undefined, '/cities/_search')).toEqual({ ok: false, failure: { kind: 'missing', uri: '/cities/_search' } });
    expect(await auth.authenticate('Bearer abc', '/')).toEqual({ ok: false, failure: { kind: 'missing', uri: '/' } });
    expect(await auth.authenticate('ApiKey ' + Buffer.from('nocolon').toString('base64'), '/')).toEqual({
      ok: false,
      failure: { kind: 'malformed', reason: 'error attempting to authenticate request', cause: 'invalid ApiKey value' },
    });
    expect(auth.stats.verifications).toBe(0);
  });

  it("authenticates an API key as its owner, and gives ES's detail for unknown, wrong, invalidated and expired keys", async () => {
    const good = await newApiKey('ci', 'alice', { params: FAST });
    const revoked = await newApiKey('old', 'alice', { params: FAST });
    const expiring = await newApiKey('short', 'bob', { params: FAST, expiration: 1_000_000 + 10_000 });
    const { auth, clock } = await setup([good.record, { ...revoked.record, invalidated: true }, expiring.record]);
    expect(await auth.authenticate('ApiKey ' + good.created.encoded, '/')).toEqual({
      ok: true,
      principal: { username: 'alice', realm: 'api_key', apiKey: { id: good.created.id, name: 'ci' } },
    });
    const detail = async (header: string) => {
      const o = await auth.authenticate(header, '/');
      return o.ok ? 'ok' : o.failure.kind === 'api_key' ? o.failure.detail : o.failure.kind;
    };
    expect(await detail('ApiKey ' + encodeApiKey('unknown-id', 'x'))).toBe('unable to find apikey with id unknown-id');
    expect(await detail('ApiKey ' + encodeApiKey(good.created.id, good.created.api_key + 'x'))).toBe(`invalid credentials for API key [${good.created.id}]`);
    expect(await detail('ApiKey ' + revoked.created.encoded)).toBe(`api key [${revoked.created.id}] has been invalidated`);
    expect(await detail('ApiKey ' + expiring.created.encoded)).toBe('ok');
    clock.now += 10_000;
    expect(await detail('ApiKey ' + expiring.created.encoded)).toBe('api key is expired');
  });

  it('runs one scrypt verification for an unknown or invalidated key id and an unknown user, as for a wrong secret (no timing oracle)', async () => {
    const good = await newApiKey('ci', 'alice', { params: FAST });
    const revoked = await newApiKey('old', 'alice', { params: FAST });
    const verified: string[] = [];
    const { auth } = await setup([good.record, { ...revoked.record, invalidated: true }], {
      cacheTtlMs: 0,
      verify: async (secret, hash) => {
        verified.push(secret);
        return (await import('./password-hash.ts')).verifySecret(secret, hash);
      },
    });
    const cases: [string, string][] = [
      ['ApiKey ' + encodeApiKey('unknown-id', 'secret-1'), 'secret-1'],
      ['ApiKey ' + encodeApiKey(good.created.id, 'secret-2'), 'secret-2'],
      ['ApiKey ' + encodeApiKey(revoked.created.id, 'secret-3'), 'secret-3'],
      [basic('mallory', 'secret-4'), 'secret-4'],
      [basic('alice', 'secret-5'), 'secret-5'],
    ];
    for (const [header, secret] of cases) {
      expect((await auth.authenticate(header, '/')).ok).toBe(false);
      expect(verified.at(-1)).toBe(secret);
    }
    expect([verified.length, auth.stats.verifications]).toEqual([5, 5]);
  });

  it('refuses to start on an invalid file, naming the variable and the line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'folio-authn-'));
    await writeFile(join(dir, 'users'), 'alice:plaintext\n');
    expect(() => new Authenticator({ usersFile: join(dir, 'users'), cacheTtlMs: 0, reloadIntervalMs: 0 })).toThrow(
      /FOLIO_USERS_FILE \[.*users\] is invalid:\n {2}line 1: user \[alice\]/,
    );
    expect(() => new Authenticator({ apiKeysFile: join(dir, 'absent'), cacheTtlMs: 0, reloadIntervalMs: 0 })).toThrow(
      /FOLIO_API_KEYS_FILE \[.*absent\] cannot be read/,
    );
  });
});

describe('Authenticator cache', () => {
  it('verifies a header once, then answers from the cache until the TTL', async () => {
    const { auth, clock } = await setup();
    for (let i = 0; i < 50; i++) expect((await auth.authenticate(basic('alice', 'alice-pw'), '/')).ok).toBe(true);
    expect([auth.stats.verifications, auth.stats.cacheHits]).toEqual([1, 49]);
    clock.now += 60_000;
    expect((await auth.authenticate(basic('alice', 'alice-pw'), '/')).ok).toBe(true);
    expect(auth.stats.verifications).toBe(2);
  });

  it('shares one verification between concurrent first requests', async () => {
    const { auth } = await setup();
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(basic('alice', 'alice-pw'), '/')));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(auth.stats.verifications).toBe(1);
  });

  it("never caches a failure, and a shared failure names each request's own path", async () => {
    const { auth } = await setup();
    await auth.authenticate(basic('alice', 'wrong'), '/');
    await auth.authenticate(basic('alice', 'wrong'), '/');
    expect(auth.stats.verifications).toBe(2);
    const [a, b] = await Promise.all([auth.authenticate(basic('alice', 'wrong'), '/a'), auth.authenticate(basic('alice', 'wrong'), '/b')]);
    expect([a, b].map((o) => (!o.ok && o.failure.kind === 'user' ? o.failure.uri : 'ok'))).toEqual(['/a', '/b']);
  });

  it('keys the cache on the whole header: a cached user with another password is verified (and refused)', async () => {
    const { auth } = await setup();
    await auth.authenticate(basic('alice', 'alice-pw'), '/');
    expect((await auth.authenticate(basic('alice', 'alice-pw2'), '/')).ok).toBe(false);
    expect(auth.stats.verifications).toBe(2);
  });

  it('expires a cached API key at its own expiration, before the TTL', async () => {
    const key = await newApiKey('short', 'alice', { params: FAST, expiration: 1_000_000 + 5_000 });
    const { auth, clock } = await setup([key.record]);
    expect((await auth.authenticate('ApiKey ' + key.created.encoded, '/')).ok).toBe(true);
    clock.now += 5_000;
    expect(await auth.authenticate('ApiKey ' + key.created.encoded, '/')).toMatchObject({ ok: false, failure: { detail: 'api key is expired' } });
  });

  it('with a TTL of 0 verifies every request', async () => {
    const { auth } = await setup([], { cacheTtlMs: 0 });
    await Promise.all([1, 2, 3].map(() => auth.authenticate(basic('alice', 'alice-pw'), '/')));
    expect([auth.stats.verifications, auth.stats.cacheHits]).toEqual([3, 0]);
  });
});

describe('Authenticator reload', () => {
  it('drops a removed user and a removed key at once, though both were cached', async () => {
    const key = await newApiKey('ci', 'alice', { params: FAST });
    const { auth, usersFile, apiKeysFile } = await setup([key.record]);
    expect((await auth.authenticate(basic('alice', 'alice-pw'), '/')).ok).toBe(true);
    expect((await auth.authenticate('ApiKey ' + key.created.encoded, '/')).ok).toBe(true);
    await writeFile(usersFile, `bob:${await hashSecret('bob-pw', FAST)}\n`);
    await writeFile(apiKeysFile, '');
    await auth.reload();
    expect((await auth.authenticate(basic('alice', 'alice-pw'), '/')).ok).toBe(false);
    expect((await auth.authenticate('ApiKey ' + key.created.encoded, '/')).ok).toBe(false);
    expect((await auth.authenticate(basic('bob', 'bob-pw'), '/')).ok).toBe(true);
  });

  it('skips bad lines on reload (keeping the good ones) and treats a deleted file as empty', async () => {
    const { auth, usersFile } = await setup();
    await writeFile(usersFile, `broken line\nbob:${await hashSecret('bob-pw', FAST)}\n`);
    await auth.reload();
    expect(auth.counts().users).toBe(1);
    expect((await auth.authenticate(basic('bob', 'bob-pw'), '/')).ok).toBe(true);
    await rm(usersFile);
    await auth.reload();
    expect(auth.counts().users).toBe(0);
  });

  it('polls the files and reloads on change', async () => {
    const { auth, usersFile } = await setup([], { reloadIntervalMs: 50 });
    await writeFile(usersFile, `carol:${await hashSecret('carol-pw', FAST)}\n`);
    const deadline = Date.now() + 5_000;
    while (auth.counts().users !== 1 || (await auth.authenticate(basic('carol', 'carol-pw'), '/')).ok !== true) {
      if (Date.now() > deadline) throw new Error('the users file was not reloaded within 5 s');
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await auth.authenticate(basic('alice', 'alice-pw'), '/')).ok).toBe(false);
  });

  it('loads a key created through createApiKey at once and appends it to the file', async () => {
    const { auth, apiKeysFile } = await setup();
    const created = await auth.createApiKey('made-here', 'alice', undefined);
    expect(await auth.authenticate('ApiKey ' + created.encoded, '/')).toMatchObject({
      ok: true,
      principal: { username: 'alice', apiKey: { name: 'made-here' } },
    });
    expect(await readFile(apiKeysFile, 'utf8')).toContain(`"id":"${created.id}"`);
  });
});
