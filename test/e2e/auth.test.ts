/**
 * Authentication and TLS on the coordinator, end to end. Two coordinators of this test's own over
 * the shared shard nodes: one with a users file and an API keys file, one that also serves HTTPS
 * with a self-signed certificate made here for 127.0.0.1. Checks ES's 401 (body and both
 * `WWW-Authenticate` lines) without or with bad credentials, the same hits as the open shared
 * coordinator with good ones, open probes, `folio users add` taking effect on a running
 * coordinator, and the unmodified `@elastic/elasticsearch` client with a password, an API key and
 * a CA certificate.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, errors } from '@elastic/elasticsearch';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newApiKey } from '../../coordinator/auth/api-keys-file.ts';
import { encodeApiKey } from '../../coordinator/auth/credentials.ts';
import { hashSecret } from '../../coordinator/auth/password-hash.ts';
import { main as folio } from '../../cli/program.ts';
import { startExtraCoordinator, type ExtraCoordinator } from './extra-coordinator.ts';
import { sampleValue } from '../support/prom-text.ts';
import { http } from './http.ts';

const openUrl = inject('coordinatorUrl');
const nodes = inject('nodeUrls');
const clusterSecret = inject('clusterSecret');
const CHALLENGES = ['Basic realm="security", charset="UTF-8"', 'ApiKey'];
const PASSWORD = 'alice-secret-1';
const SEARCH = '/cities/_search?q=country:AT&size=5&sort=population:desc';

let dir = '';
let usersFile = '';
let key: { id: string; api_key: string; encoded: string };
let plain: ExtraCoordinator | undefined;
let tls: ExtraCoordinator | undefined;
let ca: Buffer;
let caAgent: Agent;

const basic = (u: string, p: string) => 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64');

/** GET with an optional Authorization header; the raw headers keep repeated lines as arrays. */
async function get(
  base: string,
  path: string,
  authorization?: string,
  dispatcher?: Agent,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  const res = await request(base + path, { method: 'GET', headers: authorization ? { authorization } : {}, dispatcher });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** ES's 401 body for a reason (and extra fields such as additional_unsuccessful_credentials). */
function unauthorized(reason: string, extra: Record<string, unknown> = {}) {
  const cause = { type: 'security_exception', reason, ...extra, header: { 'WWW-Authenticate': CHALLENGES } };
  return { error: { root_cause: [cause], ...cause }, status: 401 };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'folio-e2e-auth-'));
  usersFile = join(dir, 'users');
  const apiKeysFile = join(dir, 'api_keys');
  await writeFile(usersFile, `# test users\nalice:${await hashSecret(PASSWORD)}\n`, { mode: 0o600 });
  const made = await newApiKey('e2e-key', 'alice');
  key = made.created;
  await writeFile(apiKeysFile, JSON.stringify(made.record) + '\n', { mode: 0o600 });
  // A self-signed certificate for 127.0.0.1 (subjectAltName IP), made with openssl for this run.
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  ca = await readFile(join(dir, 'cert.pem'));
  caAgent = new Agent({ connect: { ca } });
  const probe = (dispatcher?: Agent) => (u: string) => get(u, '/readyz', undefined, dispatcher).then((r) => r.status === 200);
  const authEnv = { FOLIO_USERS_FILE: usersFile, FOLIO_API_KEYS_FILE: apiKeysFile };
  [plain, tls] = await Promise.all([
    startExtraCoordinator({ nodes, clusterSecret, etcd: inject('etcdUrl') }, authEnv, { ready: probe() }),
    startExtraCoordinator(
      { nodes, clusterSecret, etcd: inject('etcdUrl') },
      { ...authEnv, FOLIO_TLS_CERT: join(dir, 'cert.pem'), FOLIO_TLS_KEY: join(dir, 'key.pem') },
      { scheme: 'https', ready: probe(caAgent) },
    ),
  ]);
});

afterAll(async () => {
  plain?.stop();
  tls?.stop();
  await caAgent?.close();
});

describe('without credentials', () => {
  it("answers 401 with ES's body and one WWW-Authenticate line per challenge, GET / included", async () => {
    for (const path of ['/', '/_search', '/cities/_search', '/cities/_search?q=vienna&pretty', '/_cat/indices', '/metrics', '/_console']) {
      const res = await get(plain!.url, path);
      expect([path, res.status]).toEqual([path, 401]);
      expect(res.headers['www-authenticate']).toEqual(CHALLENGES);
      expect(res.body).toEqual(unauthorized(`missing authentication credentials for REST request [${path}]`));
    }
  });

  it('leaves the probes open for orchestrators', async () => {
    for (const path of ['/livez', '/readyz']) expect([path, (await get(plain!.url, path)).status]).toEqual([path, 200]);
  });

  it('opens the probes to GET and HEAD only: PUT /livez with a body is 401 and creates no index', async () => {
    const body = JSON.stringify({ settings: { number_of_shards: 1, number_of_replicas: 0 } });
    for (const method of ['PUT', 'POST']) {
      const res = await request(plain!.url + '/livez', { method: method as 'PUT', body, headers: { 'content-type': 'application/json' } });
      await res.body.dump();
      expect([method, res.statusCode]).toEqual([method, 401]);
    }
    expect((await request(plain!.url + '/readyz', { method: 'HEAD' })).statusCode).toBe(200);
    expect((await http(openUrl, 'GET', '/livez/_settings')).status).toBe(404);
  });
});

describe('with bad credentials', () => {
  it('answers 401 for a wrong password and an unknown user, naming the user and the request', async () => {
    for (const user of ['alice', 'mallory']) {
      const res = await get(plain!.url, '/cities/_search?size=1', basic(user, user === 'alice' ? 'wrong-password' : PASSWORD));
      expect([res.status, res.headers['www-authenticate']]).toEqual([401, CHALLENGES]);
      expect(res.body).toEqual(unauthorized(`unable to authenticate user [${user}] for REST request [/cities/_search?size=1]`));
    }
  });

  it('answers 401 for a wrong API key secret, an unknown key id and a malformed key', async () => {
    const failed = 'unable to authenticate with provided credentials and anonymous access is not allowed for this request';
    const wrong = await get(plain!.url, '/', 'ApiKey ' + encodeApiKey(key.id, 'not-the-secret'));
    expect([wrong.status, wrong.body]).toEqual([
      401,
      unauthorized(failed, { additional_unsuccessful_credentials: `API key: invalid credentials for API key [${key.id}]` }),
    ]);
    const unknown = await get(plain!.url, '/', 'ApiKey ' + encodeApiKey('no-such-id', key.api_key));
    expect([unknown.status, unknown.body]).toEqual([
      401,
      unauthorized(failed, { additional_unsuccessful_credentials: 'API key: unable to find apikey with id no-such-id' }),
    ]);
    const malformed = await get(plain!.url, '/', 'ApiKey ' + Buffer.from('no-colon').toString('base64'));
    expect(malformed.status).toBe(401);
    expect(malformed.body.error).toMatchObject({
      type: 'security_exception',
      reason: 'error attempting to authenticate request',
      caused_by: { type: 'illegal_argument_exception', reason: 'invalid ApiKey value' },
    });
  });
});

describe('timing of API key failures', () => {
  /** `folio_auth_verifications_total` of the coordinator (read as alice, answered from the cache after the first read). */
  const verifications = async (): Promise<number> => {
    const res = await request(plain!.url + '/metrics', { headers: { authorization: basic('alice', PASSWORD) } });
    return sampleValue(await res.body.text(), 'folio_auth_verifications_total') ?? NaN;
  };
  /** Median ms of `n` sequential requests with `authorization`, each answered 401. */
  const median401 = async (authorization: string, n: number): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      const res = await get(plain!.url, '/_security/_authenticate', authorization);
      times.push(performance.now() - started);
      expect(res.status).toBe(401);
    }
    return times.sort((a, b) => a - b)[Math.floor(n / 2)];
  };

  it('runs the scrypt verification for an unknown key id as for a wrong secret (one each, by the counter)', async () => {
    const n = 7;
    await verifications(); // alice's own verification, then cached
    const before = await verifications();
    const unknownMs = await median401('ApiKey ' + encodeApiKey('no-such-key-id', key.api_key), n);
    const afterUnknown = await verifications();
    const wrongMs = await median401('ApiKey ' + encodeApiKey(key.id, key.api_key + 'x'), n);
    const afterWrong = await verifications();
    expect([afterUnknown - before, afterWrong - afterUnknown]).toEqual([n, n]);
    process.stdout.write(
      `auth timing: median 401 for an unknown API key id ${unknownMs.toFixed(1)} ms, for a wrong secret ${wrongMs.toFixed(1)} ms (${n} requests each)\n`,
    );
  });
});

describe('with good credentials', () => {
  it('serves the same hits as the open coordinator, with a password and with an API key', async () => {
    const expected = (await http(openUrl, 'GET', SEARCH)).body;
    expect(expected.hits.hits).toHaveLength(5);
    for (const authorization of [basic('alice', PASSWORD), 'ApiKey ' + key.encoded]) {
      const res = await get(plain!.url, SEARCH, authorization);
      expect(res.status).toBe(200);
      expect([res.body.hits.total, res.body.hits.hits]).toEqual([expected.hits.total, expected.hits.hits]);
    }
  });

  it('answers _authenticate for a user and for an API key', async () => {
    expect((await get(plain!.url, '/_security/_authenticate', basic('alice', PASSWORD))).body).toMatchObject({
      username: 'alice',
      authentication_realm: { name: 'default_file', type: 'file' },
      authentication_type: 'realm',
    });
    expect((await get(plain!.url, '/_security/_authenticate', 'ApiKey ' + key.encoded)).body).toMatchObject({
      username: 'alice',
      authentication_type: 'api_key',
      api_key: { id: key.id, name: 'e2e-key' },
    });
  });

  it('picks up `folio users add` and `folio users remove` on the running coordinator', async () => {
    const until = async (check: () => Promise<boolean>, what: string) => {
      const deadline = Date.now() + 15_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`${what} within 15 s`);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const quiet = { err: () => undefined, out: () => undefined };
    expect(await folio(['node', 'folio', 'users', 'add', 'bob', '--password', 'bob-secret-1', '--file', usersFile], quiet)).toBe(0);
    await until(async () => (await get(plain!.url, '/', basic('bob', 'bob-secret-1'))).status === 200, 'bob was not accepted');
    expect(await folio(['node', 'folio', 'users', 'remove', 'bob', '--file', usersFile], quiet)).toBe(0);
    await until(async () => (await get(plain!.url, '/', basic('bob', 'bob-secret-1'))).status === 401, 'bob was still accepted');
    expect((await get(plain!.url, '/', basic('alice', PASSWORD))).status).toBe(200);
  });
});

describe('the official @elastic/elasticsearch client', () => {
  it('connects with auth: {username, password} and gets the same hits', async () => {
    const client = new Client({ node: plain!.url, auth: { username: 'alice', password: PASSWORD } });
    try {
      expect((await client.info()).version.number).toMatch(/^8\./);
      const res = await client.search({ index: 'cities', q: 'country:AT', size: 5, sort: 'population:desc' });
      const expected = (await http(openUrl, 'GET', SEARCH)).body;
      expect(res.hits.hits.map((h) => h._id)).toEqual(expected.hits.hits.map((h: { _id: string }) => h._id));
      expect((await client.security.authenticate()).username).toBe('alice');
    } finally {
      await client.close();
    }
  });

  it('connects with auth: {apiKey} (encoded and as {id, api_key}) and creates a key that works at once', async () => {
    for (const apiKey of [key.encoded, { id: key.id, api_key: key.api_key }]) {
      const client = new Client({ node: plain!.url, auth: { apiKey } });
      try {
        expect((await client.count({ index: 'cities', q: 'country:AT' })).count).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    }
    const admin = new Client({ node: plain!.url, auth: { username: 'alice', password: PASSWORD } });
    const created = await admin.security.createApiKey({ name: 'made-by-client', expiration: '1h' });
    await admin.close();
    const withNew = new Client({ node: plain!.url, auth: { apiKey: created.encoded } });
    try {
      expect(await withNew.security.authenticate()).toMatchObject({ username: 'alice', api_key: { id: created.id, name: 'made-by-client' } });
    } finally {
      await withNew.close();
    }
  });

  it("surfaces the 401 as a ResponseError with ES's body", async () => {
    const client = new Client({ node: plain!.url, auth: { username: 'alice', password: 'wrong-password' } });
    try {
      const err = await client.info().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(errors.ResponseError);
      expect((err as errors.ResponseError).statusCode).toBe(401);
      expect((err as errors.ResponseError).body).toEqual(unauthorized('unable to authenticate user [alice] for REST request [/]'));
    } finally {
      await client.close();
    }
  });
});

describe('TLS', () => {
  it('serves HTTPS with the configured certificate', async () => {
    const { port } = new URL(tls!.url);
    const peer = await new Promise<Buffer>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), ca }, () => {
        resolve(socket.getPeerCertificate().raw);
        socket.end();
      });
      socket.on('error', reject);
    });
    expect(new X509Certificate(peer).fingerprint256).toBe(new X509Certificate(ca).fingerprint256);
    const res = await get(tls!.url, '/', basic('alice', PASSWORD), caAgent);
    expect([res.status, res.body.tagline]).toEqual([200, 'You Know, for Search']);
    const denied = await get(tls!.url, '/', undefined, caAgent);
    expect([denied.status, denied.headers['www-authenticate']]).toEqual([401, CHALLENGES]);
  });

  it('is refused by a client that does not trust the certificate, and does not speak plain HTTP', async () => {
    const untrusted = await request(tls!.url + '/livez').then(
      () => 'connected',
      (e: NodeJS.ErrnoException) => e.code ?? e.message,
    );
    expect(untrusted).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/);
    const cleartext = await request(tls!.url.replace('https:', 'http:') + '/livez').then(
      (r) => r.statusCode,
      () => 'failed',
    );
    expect(cleartext).not.toBe(200);
  });

  it('lets the official client connect with tls: {ca} and basic auth', async () => {
    const client = new Client({ node: tls!.url, tls: { ca }, auth: { username: 'alice', password: PASSWORD } });
    try {
      expect((await client.info()).tagline).toBe('You Know, for Search');
      expect((await client.count({ index: 'cities', q: 'country:AT' })).count).toBe((await http(openUrl, 'GET', '/cities/_count?q=country:AT')).body.count);
    } finally {
      await client.close();
    }
  });
});
