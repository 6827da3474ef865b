/**
 * Coordinators are stateless: a second coordinator started later against the same shard nodes
 * rebuilds its view (indices, shard counts, placement, mappings) from the nodes and answers every
 * page exactly as the first one does.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startExtraCoordinator, type ExtraCoordinator } from './extra-coordinator.ts';
import { http } from './http.ts';

const first = inject('coordinatorUrl');
let second = '';
let extra: ExtraCoordinator | undefined;

beforeAll(async () => {
  extra = await startExtraCoordinator({ nodes: inject('nodeUrls'), clusterSecret: inject('clusterSecret'), etcd: inject('etcdUrl') });
  second = extra.url;
});

afterAll(() => extra?.stop());

describe('a second coordinator', () => {
  it('sees the same indices and mappings', async () => {
    const a = await http(first, 'GET', '/cities,mails/_mapping');
    const b = await http(second, 'GET', '/cities,mails/_mapping');
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });

  it('answers pages identically, including deep ones', async () => {
    for (const path of [
      '/cities/_search?sort=population:desc&size=20&from=40',
      '/cities/_search?sort=name.keyword&from=5000&size=7',
      '/mails/_search?q=money&size=15',
    ]) {
      const a = await http(first, 'GET', path);
      const b = await http(second, 'GET', path);
      expect(b.status).toBe(200);
      expect(b.body.hits).toEqual(a.body.hits);
    }
  });

  it('finds an index created through the first coordinator after it started', async () => {
    await http(first, 'PUT', '/late-index/_doc/1?refresh=true', { v: 1 });
    const res = await http(second, 'GET', '/late-index/_search');
    expect(res.status).toBe(200);
    expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['1']);
    const write = await http(second, 'PUT', '/late-index/_doc/2?refresh=true', { v: 2 });
    expect(write.status).toBe(201);
    expect((await http(first, 'GET', '/late-index/_count')).body.count).toBe(2);
  });

  it('agrees on a closed index and on index.hidden, both stored in the cluster state', async () => {
    await http(first, 'PUT', '/state-index/_doc/1?refresh=true', { v: 1 });
    expect((await http(first, 'POST', '/state-index/_close')).body).toEqual({
      acknowledged: true,
      shards_acknowledged: true,
      indices: { 'state-index': { closed: true } },
    });
    // the shard nodes refuse it too, so even a coordinator that has not seen the change yet cannot read it
    for (const url of [first, second]) {
      const search = await http(url, 'GET', '/state-index/_search');
      expect([url, search.status, JSON.stringify(search.body)]).toEqual([url, 400, expect.stringContaining('index_closed_exception')]);
      expect((await http(url, 'PUT', '/state-index/_doc/2', { v: 2 })).body.error.type).toBe('index_closed_exception');
    }
    expect((await http(second, 'POST', '/state-index/_open')).body).toEqual({ acknowledged: true, shards_acknowledged: true });
    expect((await http(first, 'GET', '/state-index/_count')).body.count).toBe(1);
    await http(second, 'PUT', '/state-index/_settings', { index: { hidden: true } });
    const seen = async (url: string) => Object.keys((await http(url, 'GET', '/state-*/_settings')).body);
    expect(await seen(second)).toEqual([]);
    // the other coordinator follows the stored change through its watch of the cluster state
    const deadline = Date.now() + 2_000;
    while ((await seen(first)).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await seen(first)).toEqual([]);
    await http(first, 'DELETE', '/state-index');
  });
});
