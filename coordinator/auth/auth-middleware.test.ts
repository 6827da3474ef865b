// The coordinator app with authentication on, in process: ES's 401 (body and challenges) on every
// path but the probes (`GET /`, unknown paths, `/metrics`, `/_console` included), HEAD without a
// body, `_authenticate` and `POST /_security/api_key`, the auth metrics, and the app with
// authentication off (everything open, `_security` answering ES's security-disabled error).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logger.ts';
import { openTestClusterState, type TestClusterState } from '../../test/support/cluster-state.ts';
import { createCoordinatorApp } from '../app.ts';
import { ClusterView } from '../cluster/cluster-view.ts';
import { loadCoordinatorConfig } from '../config.ts';
import { ShardClient } from '../transport/shard-client.ts';
import { newApiKey } from './api-keys-file.ts';
import { authFailureBody } from './auth-errors.ts';
import { hashSecret } from './password-hash.ts';
import { SECURITY_DISABLED_REASON } from './security-routes.ts';

const FAST = { ln: 10, r: 8, p: 1 };
const CHALLENGES = ['Basic realm="security", charset="UTF-8"', 'ApiKey'];
const basic = (u: string, p: string) => ({ authorization: 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64') });
const silent = createLogger('test', 'silent', {});
const clients: ShardClient[] = [];
const states: TestClusterState[] = [];

/** A coordinator app over one (never contacted) shard node with `env` on top of the defaults. */
async function appWith(env: Record<string, string>): Promise<Hono> {
  const config = loadCoordinatorConfig({ FOLIO_NODES: 'http://127.0.0.1:1', ...env });
  const client = new ShardClient(config.nodes, { connectionsPerNode: 1, maxResponseBytes: 1 << 20 });
  clients.push(client);
  const state = await openTestClusterState();
  states.push(state);
  return createCoordinatorApp({ config, view: new ClusterView(client, 1_000, state.access), client, log: silent, clusterUuid: 'auth-test' });
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(states.map((s) => s.close()));
});

describe('authentication on', () => {
  let app: Hono;
  let apiKey: { id: string; encoded: string };
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'folio-auth-app-'));
    const key = await newApiKey('ci', 'alice', { params: FAST });
    apiKey = key.created;
    await writeFile(join(dir, 'users'), `alice:${await hashSecret('alice-pw', FAST)}\n`);
    await writeFile(join(dir, 'api_keys'), JSON.stringify(key.record) + '\n');
    app = await appWith({ FOLIO_USERS_FILE: join(dir, 'users'), FOLIO_API_KEYS_FILE: join(dir, 'api_keys') });
  });

  it("answers ES's 401 body and both challenges without credentials, on every path but the probes", async () => {
    for (const path of [
      '/',
      '/_search',
      '/cities/_search?q=x',
      '/no-such-index/_doc/1',
      '/metrics',
      '/_console',
      '/_folio/stats',
      '/_security/_authenticate',
      '/_cluster/health',
    ]) {
      const res = await app.request(path);
      expect([path, res.status]).toEqual([path, 401]);
      expect(res.headers.get('www-authenticate')).toBe(CHALLENGES.join(', '));
      expect(res.headers.get('x-elastic-product')).toBe('Elasticsearch');
      const reason = `missing authentication credentials for REST request [${path}]`;
      const header = { 'WWW-Authenticate': CHALLENGES };
      expect(await res.json()).toEqual({
        error: { root_cause: [{ type: 'security_exception', reason, header }], type: 'security_exception', reason, header },
        status: 401,
      });
    }
    for (const path of ['/livez', '/readyz']) expect([path, (await app.request(path)).status]).toEqual([path, 200]);
  });

  it('keeps the probes open for GET and HEAD only: any other method on them needs credentials', async () => {
    for (const path of ['/livez', '/readyz']) {
      expect([path, (await app.request(path, { method: 'HEAD' })).status]).toEqual([path, 200]);
      for (const method of ['PUT', 'POST', 'DELETE']) {
        const res = await app.request(path, {
          method,
          headers: { 'content-type': 'application/json' },
          body: method === 'DELETE' ? undefined : '{"settings":{"number_of_shards":1024}}',
        });
        expect([method, path, res.status]).toEqual([method, path, 401]);
      }
    }
    // Exactly the probe paths: a longer path is not a probe.
    expect((await app.request('/livez/_doc/1')).status).toBe(401);
  });

  it('answers HEAD with 401 and the challenges, without a body', async () => {
    const res = await app.request('/', { method: 'HEAD' });
    expect([res.status, res.headers.get('www-authenticate'), await res.text()]).toEqual([401, CHALLENGES.join(', '), '']);
  });

  it('names the user and the whole request URI for a bad password or an unknown user', async () => {
    for (const [user, pw] of [
      ['alice', 'wrong'],
      ['mallory', 'alice-pw'],
    ]) {
      const res = await app.request('/cities/_search?size=1&pretty', { headers: basic(user, pw) });
      expect(res.status).toBe(401);
      const body = (await res.json()) as any;
      expect(body.error.reason).toBe(`unable to authenticate user [${user}] for REST request [/cities/_search?size=1&pretty]`);
      expect(body.error.root_cause[0].reason).toBe(body.error.reason);
    }
  });

  it("answers ES's API key failure with additional_unsuccessful_credentials", async () => {
    const res = await app.request('/', { headers: { authorization: 'ApiKey ' + Buffer.from(`${apiKey.id}:wrong`).toString('base64') } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(authFailureBody({ kind: 'api_key', detail: `invalid credentials for API key [${apiKey.id}]` }));
    const body = authFailureBody({ kind: 'api_key', detail: 'x' });
    expect(Object.keys(body.error)).toEqual(['root_cause', 'type', 'reason', 'additional_unsuccessful_credentials', 'header']);
    expect(body.error.reason).toBe('unable to authenticate with provided credentials and anonymous access is not allowed for this request');
  });

  it('puts the cause of a malformed header in caused_by (not in the root cause), before the header field', async () => {
    const res = await app.request('/', { headers: { authorization: 'Basic not_base64' } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(401);
    expect(Object.keys(body.error)).toEqual(['root_cause', 'type', 'reason', 'caused_by', 'header']);
    expect(body.error.reason).toBe('invalid basic authentication header encoding');
    expect(body.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'Illegal base64 character 5f' });
    expect(body.error.root_cause[0].caused_by).toBeUndefined();
  });

  it('serves a user and an API key, and _authenticate says who they are', async () => {
    expect((await app.request('/', { headers: basic('alice', 'alice-pw') })).status).toBe(200);
    const user = await app.request('/_security/_authenticate', { headers: basic('alice', 'alice-pw') });
    expect(await user.json()).toEqual({
      username: 'alice',
      roles: ['superuser'],
      full_name: null,
      email: null,
      metadata: {},
      enabled: true,
      authentication_realm: { name: 'default_file', type: 'file' },
      lookup_realm: { name: 'default_file', type: 'file' },
      authentication_type: 'realm',
    });
    const key = await app.request('/_security/_authenticate', { headers: { authorization: 'ApiKey ' + apiKey.encoded } });
    expect(await key.json()).toMatchObject({
      username: 'alice',
      roles: [],
      authentication_realm: { name: '_es_api_key', type: '_es_api_key' },
      authentication_type: 'api_key',
      api_key: { id: apiKey.id, name: 'ci' },
    });
  });

  it('creates an API key for a user, usable at once; refuses derived keys, restrictions and a missing name', async () => {
    const post = (body: unknown, headers: Record<string, string>) =>
      app.request('/_security/api_key', { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
    const res = await post({ name: 'made-over-http', expiration: '1d' }, basic('alice', 'alice-pw'));
    expect(res.status).toBe(200);
    const created = (await res.json()) as any;
    expect(Object.keys(created)).toEqual(['id', 'name', 'expiration', 'api_key', 'encoded']);
    expect(created.expiration - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    const me = await app.request('/_security/_authenticate', { headers: { authorization: 'ApiKey ' + created.encoded } });
    expect(await me.json()).toMatchObject({ username: 'alice', api_key: { id: created.id, name: 'made-over-http' } });

    const derived = await post({ name: 'child' }, { authorization: 'ApiKey ' + apiKey.encoded });
    expect([derived.status, ((await derived.json()) as any).error.reason]).toEqual([
      400,
      'creating derived api keys requires an explicit role descriptor that is empty (has no privileges)',
    ]);
    const restricted = await post({ name: 'ro', role_descriptors: { r: { indices: [] } } }, basic('alice', 'alice-pw'));
    expect([restricted.status, ((await restricted.json()) as any).error.type]).toEqual([400, 'illegal_argument_exception']);
    const nameless = await post({}, basic('alice', 'alice-pw'));
    expect([nameless.status, ((await nameless.json()) as any).error.reason]).toEqual([400, 'Validation Failed: 1: api key name is required;']);
  });

  it('counts failures and cache hits in /metrics', async () => {
    await app.request('/');
    const text = await (await app.request('/metrics', { headers: basic('alice', 'alice-pw') })).text();
    expect(text).toMatch(/^folio_auth_failures_total\{kind="missing",service="coordinator"\} [1-9]\d*$/m);
    expect(text).toMatch(/^folio_auth_cache_hits_total\{service="coordinator"\} [1-9]\d*$/m);
    expect(text).toMatch(/^folio_auth_verifications_total\{service="coordinator"\} [1-9]\d*$/m);
  });

  it('opens /metrics with FOLIO_METRICS_PUBLIC=true, and only /metrics', async () => {
    const open = await appWith({ FOLIO_USERS_FILE: join(dir, 'users'), FOLIO_METRICS_PUBLIC: 'true' });
    expect((await open.request('/metrics')).status).toBe(200);
    expect((await open.request('/')).status).toBe(401);
  });
});

describe('authentication off', () => {
  it("serves every path without credentials and answers ES's security-disabled error on _security", async () => {
    const app = await appWith({});
    expect((await app.request('/')).status).toBe(200);
    expect((await app.request('/metrics')).status).toBe(200);
    const res = await app.request('/_security/_authenticate');
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: { root_cause: [{ type: 'exception', reason: SECURITY_DISABLED_REASON }], type: 'exception', reason: SECURITY_DISABLED_REASON },
      status: 500,
    });
  });
});

describe('config', () => {
  it('reads the auth and TLS variables with their defaults and rejects half a TLS pair', () => {
    expect(loadCoordinatorConfig({})).toMatchObject({
      usersFile: undefined,
      apiKeysFile: undefined,
      authCacheTtlMs: 300_000,
      metricsPublic: false,
      tlsCertFile: undefined,
      tlsKeyFile: undefined,
    });
    expect(
      loadCoordinatorConfig({
        FOLIO_USERS_FILE: '/u',
        FOLIO_API_KEYS_FILE: '/k',
        FOLIO_AUTH_CACHE_TTL_MS: '0',
        FOLIO_METRICS_PUBLIC: 'true',
        FOLIO_TLS_CERT: '/c',
        FOLIO_TLS_KEY: '/k2',
      }),
    ).toMatchObject({ usersFile: '/u', apiKeysFile: '/k', authCacheTtlMs: 0, metricsPublic: true, tlsCertFile: '/c', tlsKeyFile: '/k2' });
    expect(() => loadCoordinatorConfig({ FOLIO_TLS_CERT: '/c' })).toThrow('set both FOLIO_TLS_CERT and FOLIO_TLS_KEY');
    expect(() => loadCoordinatorConfig({ FOLIO_METRICS_PUBLIC: 'yes' })).toThrow('FOLIO_METRICS_PUBLIC must be true or false, got [yes]');
    expect(() => loadCoordinatorConfig({ FOLIO_AUTH_CACHE_TTL_MS: '-1' })).toThrow('must not be negative');
  });
});
