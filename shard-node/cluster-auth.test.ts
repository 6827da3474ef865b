import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { CLUSTER_SECRET_HEADER, secretMatches } from '../shared/cluster-secret.ts';
import { toEsError, type ErrorBody } from '../protocol/errors.ts';
import { clusterSecretAuth } from './cluster-auth.ts';
import { loadShardNodeConfig } from './config.ts';

/** A tiny app behind the middleware, with the shard node's error handler shape. */
function guarded(secret: string | undefined): { app: Hono; reached: string[] } {
  const reached: string[] = [];
  const app = new Hono();
  app.use('/_internal/v1/*', clusterSecretAuth(secret));
  app.onError((err, c) => {
    const es = toEsError(err);
    return c.json(es.toBody(), es.status as 401);
  });
  for (const path of ['/_internal/v1/health', '/_internal/v1/stats', '/livez', '/readyz']) {
    app.get(path, (c) => {
      reached.push(path);
      return c.json({ ok: true });
    });
  }
  app.post('/_internal/v1/bulk', (c) => {
    reached.push('bulk');
    return c.json({ ok: true });
  });
  return { app, reached };
}

describe('secretMatches', () => {
  it('matches only the exact secret, whatever the lengths', () => {
    expect(secretMatches('s3cret', 's3cret')).toBe(true);
    for (const wrong of [undefined, '', 's3cre', 's3cret ', 'S3CRET', 's3cret'.repeat(100)])
      expect([wrong, secretMatches(wrong, 's3cret')]).toEqual([wrong, false]);
  });
});

describe('clusterSecretAuth', () => {
  it('answers 401 security_exception without the header and reaches no handler', async () => {
    const { app, reached } = guarded('s3cret');
    const res = await app.request('/_internal/v1/bulk', { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    const body = (await res.json()) as ErrorBody;
    expect(body.status).toBe(401);
    expect(body.error.type).toBe('security_exception');
    expect(body.error.root_cause[0].type).toBe('security_exception');
    expect(body.error.reason).toContain('missing cluster secret');
    expect(reached).toEqual([]);
  });

  it('answers 401 to a wrong secret', async () => {
    const { app, reached } = guarded('s3cret');
    const res = await app.request('/_internal/v1/stats', { headers: { [CLUSTER_SECRET_HEADER]: 'guess' } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorBody).error.reason).toContain('invalid cluster secret');
    expect(reached).toEqual([]);
  });

  it('lets the right secret through', async () => {
    const { app, reached } = guarded('s3cret');
    const res = await app.request('/_internal/v1/stats', { headers: { [CLUSTER_SECRET_HEADER]: 's3cret' } });
    expect(res.status).toBe(200);
    expect(reached).toEqual(['/_internal/v1/stats']);
  });

  it('keeps the probe paths open', async () => {
    const { app } = guarded('s3cret');
    for (const path of ['/_internal/v1/health', '/livez', '/readyz']) expect([path, (await app.request(path)).status]).toEqual([path, 200]);
  });

  it('checks nothing when the secret is undefined (FOLIO_INSECURE=true)', async () => {
    const { app } = guarded(undefined);
    expect((await app.request('/_internal/v1/stats')).status).toBe(200);
  });
});

describe('FOLIO_CLUSTER_SECRET in the shard-node config', () => {
  it('refuses to start without it unless FOLIO_INSECURE=true', () => {
    expect(() => loadShardNodeConfig({})).toThrow(/FOLIO_CLUSTER_SECRET is unset/);
    expect(() => loadShardNodeConfig({ FOLIO_INSECURE: 'yes' })).toThrow(/FOLIO_INSECURE must be true or false/);
    expect(loadShardNodeConfig({ FOLIO_INSECURE: 'true' }).clusterSecret).toBeUndefined();
    expect(loadShardNodeConfig({ FOLIO_CLUSTER_SECRET: 'abc' }).clusterSecret).toBe('abc');
  });
});
