/**
 * `number_of_replicas` on the shared cluster (3 shard nodes): writes reach every in-sync copy, and
 * the setting is dynamic: raising it places a new replica on another node (out of sync until it
 * has recovered from its primary, so the index is yellow and writes are not sent to it yet), and
 * lowering it drops the copy again.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
const INDEX = 'replicas-dyn';

afterAll(async () => {
  await http(url, 'DELETE', `/${INDEX}`);
});

/** `_cat/shards` rows of the index: [prirep, state, unassigned reason, node]. */
async function copies(): Promise<(string | null)[][]> {
  const res = await http(url, 'GET', `/_cat/shards/${INDEX}?format=json&h=prirep,state,ur,node`);
  return (res.body as Record<string, string | null>[]).map((r) => [r.prirep, r.state, r.ur, r.node]);
}

describe('number_of_replicas', () => {
  it('is a dynamic setting: a replica added later is placed on another node and starts out of sync; removing it drops it', async () => {
    expect((await http(url, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } })).status).toBe(200);
    const first = await http(url, 'PUT', `/${INDEX}/_doc/1?refresh=true`, { n: 1 });
    expect(first.body._shards).toEqual({ total: 1, successful: 1, failed: 0 });
    expect((await http(url, 'GET', `/_cluster/health/${INDEX}`)).body.status).toBe('green');

    expect((await http(url, 'PUT', `/${INDEX}/_settings`, { index: { number_of_replicas: 1 } })).status).toBe(200);
    expect((await http(url, 'GET', `/${INDEX}/_settings`)).body[INDEX].settings.index.number_of_replicas).toBe('1');
    const placed = await copies();
    expect(placed.map((r) => r.slice(0, 3))).toEqual([['p', 'STARTED', null], ['r', 'UNASSIGNED', 'ALLOCATION_FAILED']]);
    expect((await http(url, 'GET', `/_cluster/health/${INDEX}`)).body).toMatchObject({ status: 'yellow', active_shards: 1, unassigned_shards: 1 });
    // Writes go on; the copy that is not in sync is not counted as having them.
    const second = await http(url, 'PUT', `/${INDEX}/_doc/2?refresh=true`, { n: 2 });
    expect(second.body._shards).toEqual({ total: 2, successful: 1, failed: 0 });
    const found = await http(url, 'POST', `/${INDEX}/_search`, { track_total_hits: true });
    expect([found.body.hits.total.value, found.body._shards.failed]).toEqual([2, 0]);

    expect((await http(url, 'PUT', `/${INDEX}/_settings`, { index: { number_of_replicas: 0 } })).status).toBe(200);
    expect((await copies()).map((r) => r.slice(0, 2))).toEqual([['p', 'STARTED']]);
    expect((await http(url, 'GET', `/_cluster/health/${INDEX}`)).body.status).toBe('green');
  });

  it('a new index with replicas has every copy in sync and on its own node; writes reach them all', async () => {
    const name = `${INDEX}-2`;
    expect((await http(url, 'PUT', `/${name}`, { settings: { number_of_shards: 2, number_of_replicas: 2 } })).status).toBe(200);
    try {
      const res = await http(url, 'PUT', `/${name}/_doc/a?refresh=true`, { n: 1 });
      expect(res.body._shards).toEqual({ total: 3, successful: 3, failed: 0 });
      const cat = await http(url, 'GET', `/_cat/shards/${name}?format=json&h=shard,prirep,state,node`);
      for (const shard of ['0', '1']) {
        const rows = (cat.body as Record<string, string>[]).filter((r) => r.shard === shard);
        expect(rows.map((r) => [r.prirep, r.state])).toEqual([['p', 'STARTED'], ['r', 'STARTED'], ['r', 'STARTED']]);
        expect(new Set(rows.map((r) => r.node)).size).toBe(3);
      }
      expect((await http(url, 'GET', `/_cluster/health/${name}`)).body).toMatchObject({ status: 'green', active_shards: 6 });
      const refreshed = await http(url, 'POST', `/${name}/_refresh`);
      expect(refreshed.body._shards).toEqual({ total: 6, successful: 6, failed: 0 });
    } finally {
      await http(url, 'DELETE', `/${name}`);
    }
  });
});
