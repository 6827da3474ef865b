/**
 * `number_of_replicas` on the shared cluster (3 shard nodes): writes reach every in-sync copy, and
 * the setting is dynamic: raising it places a new replica on another node, which recovers from its
 * primary (INITIALIZING, the index yellow) and then serves (STARTED, green) with every document,
 * deletes and versions included; lowering it drops the copy again.
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
  it('is a dynamic setting: a replica added later recovers from its primary, then takes writes and serves; removing it drops it', async () => {
    expect((await http(url, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } })).status).toBe(200);
    const first = await http(url, 'PUT', `/${INDEX}/_doc/1?refresh=true`, { n: 1 });
    expect(first.body._shards).toEqual({ total: 1, successful: 1, failed: 0 });
    // History the recovery must carry over: overwrites (versions), a delete, unrefreshed writes.
    const lines = Array.from({ length: 300 }, (_, i) => [JSON.stringify({ index: { _index: INDEX, _id: `b${i}` } }), JSON.stringify({ n: 100 + i })]).flat();
    expect((await http(url, 'POST', '/_bulk?refresh=true', lines.join('\n') + '\n', 'application/x-ndjson')).body.errors).toBe(false);
    await http(url, 'PUT', `/${INDEX}/_doc/b7`, { n: 7000 });
    await http(url, 'DELETE', `/${INDEX}/_doc/b8`);
    expect((await http(url, 'GET', `/_cluster/health/${INDEX}`)).body.status).toBe('green');

    expect((await http(url, 'PUT', `/${INDEX}/_settings`, { index: { number_of_replicas: 1 } })).status).toBe(200);
    expect((await http(url, 'GET', `/${INDEX}/_settings`)).body[INDEX].settings.index.number_of_replicas).toBe('1');
    const placed = await copies();
    expect(placed[0].slice(0, 3)).toEqual(['p', 'STARTED', null]);
    // The new copy is out of sync until its recovery finishes: INITIALIZING (or already STARTED on a fast machine).
    expect(['INITIALIZING', 'STARTED']).toContain(placed[1][1]);
    expect(placed[1][0]).toBe('r');
    const health = await http(url, 'GET', `/_cluster/health/${INDEX}?wait_for_status=green&timeout=30s`);
    expect(health.body).toMatchObject({ status: 'green', active_shards: 2, initializing_shards: 0, unassigned_shards: 0 });
    const started = await copies();
    expect(started.map((r) => r.slice(0, 3))).toEqual([
      ['p', 'STARTED', null],
      ['r', 'STARTED', null],
    ]);
    expect(started[0][3]).not.toBe(started[1][3]);
    // Both copies hold the same documents (the docs column counts each copy's own).
    await http(url, 'POST', `/${INDEX}/_refresh`);
    const docs = await http(url, 'GET', `/_cat/shards/${INDEX}?format=json&h=prirep,docs`);
    expect(docs.body).toEqual([
      { prirep: 'p', docs: '300' },
      { prirep: 'r', docs: '300' },
    ]);
    // Writes now reach both copies, and continue the versions the recovery carried over.
    const second = await http(url, 'PUT', `/${INDEX}/_doc/b7?refresh=true`, { n: 7001 });
    expect([second.body._shards, second.body._version]).toEqual([{ total: 2, successful: 2, failed: 0 }, 3]);
    const again = await http(url, 'PUT', `/${INDEX}/_doc/b8?refresh=true`, { n: 8 });
    expect(again.body._version).toBe(3); // the delete's tombstone (version 2) was copied too
    const found = await http(url, 'POST', `/${INDEX}/_search`, { track_total_hits: true });
    expect([found.body.hits.total.value, found.body._shards.failed]).toEqual([301, 0]);

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
        expect(rows.map((r) => [r.prirep, r.state])).toEqual([
          ['p', 'STARTED'],
          ['r', 'STARTED'],
          ['r', 'STARTED'],
        ]);
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
