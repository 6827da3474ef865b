/**
 * ES's rules for destructive and long-lived requests and for index sizes, on the shared cluster:
 * `action.destructive_requires_name` (DELETE /_all, /* and wildcard deletes refused by default),
 * `search.max_keep_alive` (PIT and scroll keep-alives above 24h refused), the index shard bounds
 * and `cluster.max_shards_per_node`, and `_cluster/settings` itself: a change made through one
 * coordinator is seen by another, also after that one restarts (the settings live on the shard
 * nodes). Scratch indices are `abuse-settings-*`; every setting changed here is reset at the end.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startExtraCoordinator, type ExtraCoordinator } from './extra-coordinator.ts';
import { deleteIndices, http } from './http.ts';

const url = inject('coordinatorUrl');
const nodes = inject('nodeUrls');
const clusterSecret = inject('clusterSecret');
const PREFIX = 'abuse-settings-';
/** Every request of an abuse case answers within this (ms). */
const BUDGET_MS = 1_000;
/** The settings this file changes, reset in afterAll. */
const TOUCHED = ['action.destructive_requires_name', 'search.max_keep_alive', 'cluster.max_shards_per_node'];

let extra: ExtraCoordinator | undefined;

/** `http` with the time it took. */
async function timed(base: string, method: string, path: string, body?: unknown) {
  const started = performance.now();
  const res = await http(base, method, path, body);
  return { ...res, ms: performance.now() - started };
}

/** ES's error essentials. */
const errorOf = (res: { status: number; body: any }) => ({
  status: res.status,
  type: res.body?.error?.type,
  reason: res.body?.error?.reason,
  root: res.body?.error?.root_cause?.[0]?.type,
});

async function resetSettings(base: string): Promise<void> {
  const nulls = Object.fromEntries(TOUCHED.map((k) => [k, null]));
  const res = await http(base, 'PUT', '/_cluster/settings', { persistent: nulls, transient: nulls });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  await deleteIndices(url, `${PREFIX}*`);
  extra = await startExtraCoordinator({ nodes, clusterSecret, etcd: inject('etcdUrl') });
});

afterAll(async () => {
  await resetSettings(url);
  await deleteIndices(url, `${PREFIX}*`);
  extra?.stop();
});

describe('action.destructive_requires_name', () => {
  it("refuses DELETE /_all, /* and wildcard deletes by default with ES 8's error, and deletes nothing", async () => {
    for (const name of ['a', 'b'])
      expect((await http(url, 'PUT', `/${PREFIX}${name}`, { settings: { number_of_shards: 1, number_of_replicas: 0 } })).status).toBe(200);
    for (const path of ['/_all', '/*', `/${PREFIX}*`, `/cities,${PREFIX}*`, '/_all,cities']) {
      const res = await timed(url, 'DELETE', path);
      expect([path, errorOf(res)]).toEqual([
        path,
        { status: 400, type: 'illegal_argument_exception', reason: 'Wildcard expressions or all indices are not allowed', root: 'illegal_argument_exception' },
      ]);
      expect(res.ms).toBeLessThan(BUDGET_MS);
    }
    for (const index of ['cities', 'mails', `${PREFIX}a`, `${PREFIX}b`])
      expect([index, (await http(url, 'GET', `/${index}/_settings`)).status]).toEqual([index, 200]);
  });

  it('allows a wildcard delete while the setting is false (through any coordinator), and refuses again once reset', async () => {
    const set = await http(url, 'PUT', '/_cluster/settings', { persistent: { action: { destructive_requires_name: false } } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ acknowledged: true, persistent: { action: { destructive_requires_name: 'false' } }, transient: {} });
    try {
      // The other coordinator reads the setting fresh before a destructive delete.
      const res = await http(extra!.url, 'DELETE', `/${PREFIX}*`);
      expect([res.status, res.body]).toEqual([200, { acknowledged: true }]);
      expect((await http(extra!.url, 'GET', `/${PREFIX}a/_settings`)).status).toBe(404);
      // The first coordinator's view of the indices catches up within its reload interval (about 1 s).
      let seen = 200;
      for (let i = 0; i < 50 && seen !== 404; i++) {
        await new Promise((r) => setTimeout(r, 100));
        seen = (await http(url, 'GET', `/${PREFIX}a/_settings`)).status;
      }
      expect(seen).toBe(404);
    } finally {
      expect((await http(url, 'PUT', '/_cluster/settings', { persistent: { 'action.destructive_requires_name': null } })).body).toEqual({
        acknowledged: true,
        persistent: {},
        transient: {},
      });
    }
    expect(errorOf(await http(extra!.url, 'DELETE', '/*')).reason).toBe('Wildcard expressions or all indices are not allowed');
    expect((await http(url, 'GET', '/cities/_settings')).status).toBe(200);
  });
});

describe('search.max_keep_alive', () => {
  const tooLarge =
    'Keep alive for request (1d) is too large. It must be less than (1d). This limit can be set by changing the [search.max_keep_alive] cluster level setting.';

  it('refuses a 25h keep-alive for opening a PIT, searching with one, starting and continuing a scroll', async () => {
    const expectRefused = (res: { status: number; body: any; ms: number }, what: string) => {
      expect([what, errorOf(res)]).toEqual([what, { status: 400, type: 'illegal_argument_exception', reason: tooLarge, root: 'illegal_argument_exception' }]);
      expect(res.ms).toBeLessThan(BUDGET_MS);
    };
    expectRefused(await timed(url, 'POST', '/cities/_pit?keep_alive=25h'), 'open PIT');
    expectRefused(await timed(url, 'POST', '/cities/_search?scroll=25h', { size: 1 }), 'start scroll');
    const pit = await http(url, 'POST', '/cities/_pit?keep_alive=1m');
    const scroll = await http(url, 'POST', '/cities/_search?scroll=1m', { size: 1 });
    try {
      expect([pit.status, scroll.status]).toEqual([200, 200]);
      expectRefused(await timed(url, 'POST', '/_search', { size: 1, pit: { id: pit.body.id, keep_alive: '25h' } }), 'PIT search');
      expectRefused(await timed(url, 'POST', '/_search/scroll', { scroll: '25h', scroll_id: scroll.body._scroll_id }), 'continue scroll');
      // 24h itself is allowed (the check is strictly greater).
      expect((await http(url, 'POST', '/_search', { size: 1, pit: { id: pit.body.id, keep_alive: '24h' } })).status).toBe(200);
    } finally {
      await http(url, 'DELETE', '/_pit', { id: pit.body.id });
      await http(url, 'DELETE', '/_search/scroll', { scroll_id: scroll.body._scroll_id });
    }
  });

  it('follows the setting, transient over persistent, on every coordinator', async () => {
    // search.default_keep_alive (5m) must stay at most search.max_keep_alive (ES validates both together).
    const set = await http(url, 'PUT', '/_cluster/settings', {
      persistent: { 'search.max_keep_alive': '1h' },
      transient: { search: { max_keep_alive: '2m', default_keep_alive: '1m' } },
    });
    expect(set.body).toEqual({
      acknowledged: true,
      persistent: { search: { max_keep_alive: '1h' } },
      transient: { search: { max_keep_alive: '2m', default_keep_alive: '1m' } },
    });
    // The other coordinator's cache is at most about a second old.
    let res = await http(extra!.url, 'POST', '/cities/_pit?keep_alive=3m');
    for (let i = 0; i < 30 && res.status === 200; i++) {
      await http(extra!.url, 'DELETE', '/_pit', { id: res.body.id });
      await new Promise((r) => setTimeout(r, 100));
      res = await http(extra!.url, 'POST', '/cities/_pit?keep_alive=3m');
    }
    expect(errorOf(res).reason).toMatch(/^Keep alive for request \(3m\) is too large\. It must be less than \(2m\)\./);
    await http(url, 'PUT', '/_cluster/settings', { transient: { 'search.max_keep_alive': null, 'search.default_keep_alive': null } });
    const pit = await http(url, 'POST', '/cities/_pit?keep_alive=59m');
    expect(pit.status).toBe(200);
    await http(url, 'DELETE', '/_pit', { id: pit.body.id });
    expect(errorOf(await http(url, 'POST', '/cities/_pit?keep_alive=61m')).reason).toMatch(/It must be less than \(1h\)/);
    await resetSettings(url);
  });
});

describe('index shard limits', () => {
  it("refuses number_of_shards 0 and 1025 with ES's texts", async () => {
    for (const [n, reason] of [
      [0, 'Failed to parse value [0] for setting [index.number_of_shards] must be >= 1'],
      [1025, 'Failed to parse value [1025] for setting [index.number_of_shards] must be <= 1024'],
    ] as const) {
      const res = await timed(url, 'PUT', `/${PREFIX}shards`, { settings: { number_of_shards: n } });
      expect(errorOf(res)).toMatchObject({ status: 400, type: 'illegal_argument_exception', reason });
      expect(res.ms).toBeLessThan(BUDGET_MS);
    }
    expect(errorOf(await http(url, 'PUT', `/${PREFIX}shards`, { settings: { number_of_replicas: -1 } })).reason).toBe(
      'Failed to parse value [-1] for setting [index.number_of_replicas] must be >= 0',
    );
    expect((await http(url, 'GET', `/${PREFIX}shards/_settings`)).status).toBe(404);
  });

  it('refuses creating an index or raising its replicas beyond cluster.max_shards_per_node × data nodes', async () => {
    // 1024 primaries × (1 + 2) = 3072 copies > 1000 × 3 nodes.
    const big = await timed(url, 'PUT', `/${PREFIX}big`, { settings: { number_of_shards: 1024, number_of_replicas: 2 } });
    expect(errorOf(big)).toMatchObject({ status: 400, type: 'validation_exception', root: 'validation_exception' });
    expect(errorOf(big).reason).toMatch(
      /^Validation Failed: 1: this action would add \[3072\] shards, but this cluster currently has \[\d+\]\/\[3000\] maximum normal shards open;$/,
    );
    expect(big.ms).toBeLessThan(BUDGET_MS);
    expect((await http(url, 'GET', `/${PREFIX}big/_settings`)).status).toBe(404);
    // An existing index whose replicas would go beyond it: refused, unchanged.
    expect((await http(url, 'PUT', `/${PREFIX}rep`, { settings: { number_of_shards: 2, number_of_replicas: 0 } })).status).toBe(200);
    const raise = await timed(url, 'PUT', `/${PREFIX}rep/_settings`, { index: { number_of_replicas: 100_000 } });
    expect(errorOf(raise).reason).toMatch(
      /^Validation Failed: 1: this action would add \[200000\] shards, but this cluster currently has \[\d+\]\/\[3000\] maximum normal shards open;$/,
    );
    expect(raise.ms).toBeLessThan(BUDGET_MS);
    expect((await http(url, 'GET', `/${PREFIX}rep/_settings`)).body[`${PREFIX}rep`].settings.index.number_of_replicas).toBe('0');
    // A lower limit through the cluster settings applies at once on this coordinator.
    await http(url, 'PUT', '/_cluster/settings', { transient: { 'cluster.max_shards_per_node': 1 } });
    try {
      expect(errorOf(await http(url, 'PUT', `/${PREFIX}one`, { settings: { number_of_shards: 1, number_of_replicas: 0 } })).reason).toMatch(
        /this action would add \[1\] shards, but this cluster currently has \[\d+\]\/\[3\] maximum normal shards open;$/,
      );
      // Lowering replicas is never refused.
      expect((await http(url, 'PUT', `/${PREFIX}rep/_settings`, { index: { number_of_replicas: 0 } })).status).toBe(200);
    } finally {
      await http(url, 'PUT', '/_cluster/settings', { transient: { 'cluster.max_shards_per_node': null } });
    }
  });

  it('keeps _cat/shards bounded by the real copies for an index with many unassignable replicas', async () => {
    expect((await http(url, 'PUT', `/${PREFIX}cat`, { settings: { number_of_shards: 1, number_of_replicas: 500 } })).status).toBe(200);
    const res = await timed(url, 'GET', `/_cat/shards/${PREFIX}cat?format=json&h=prirep,state,unassigned.reason`);
    expect(res.status).toBe(200);
    // 3 nodes: a primary and 2 replicas placed, then at most 3 unassigned rows.
    expect(res.body.length).toBeLessThanOrEqual(6);
    expect(res.body.filter((r: any) => r.state === 'UNASSIGNED').length).toBe(3);
    expect(res.ms).toBeLessThan(BUDGET_MS);
    const health = await http(url, 'GET', `/_cluster/health/${PREFIX}cat`);
    expect(health.body.unassigned_shards).toBe(498);
  });
});

describe('_cluster/settings', () => {
  it("answers in ES's shapes and refuses unknown settings with ES's text", async () => {
    const unknown = await timed(url, 'PUT', '/_cluster/settings', { persistent: { 'indices.nope': 1 } });
    expect(errorOf(unknown)).toEqual({
      status: 400,
      type: 'illegal_argument_exception',
      reason: 'persistent setting [indices.nope], not recognized',
      root: 'illegal_argument_exception',
    });
    expect(errorOf(await http(url, 'PUT', '/_cluster/settings', { transient: { 'indices.nope': null } })).reason).toBe(
      'transient setting [indices.nope], not recognized',
    );
    expect(errorOf(await http(url, 'PUT', '/_cluster/settings', { persistent: { 'cluster.max_shards_per_node': 'many' } })).reason).toBe(
      'Failed to parse value [many] for setting [cluster.max_shards_per_node]',
    );
    expect(errorOf(await http(url, 'PUT', '/_cluster/settings', {})).reason).toBe('Validation Failed: 1: no settings to update;');
    const defaults = await http(url, 'GET', '/_cluster/settings?include_defaults=true&flat_settings=true');
    expect(defaults.body.defaults).toMatchObject({
      'action.destructive_requires_name': 'true',
      'search.max_keep_alive': '24h',
      'cluster.max_shards_per_node': '1000',
    });
  });

  it('round-trips through another coordinator, also after that coordinator restarts', async () => {
    const set = await http(url, 'PUT', '/_cluster/settings?flat_settings=true', {
      persistent: { 'cluster.max_shards_per_node': 2000 },
      transient: { 'search.max_keep_alive': '12h' },
    });
    expect(set.body).toEqual({ acknowledged: true, persistent: { 'cluster.max_shards_per_node': '2000' }, transient: { 'search.max_keep_alive': '12h' } });
    const expected = (body: any) => {
      expect(body.persistent).toMatchObject({ cluster: { max_shards_per_node: '2000' } });
      expect(body.transient).toMatchObject({ search: { max_keep_alive: '12h' } });
    };
    expected((await http(extra!.url, 'GET', '/_cluster/settings')).body);
    extra!.stop();
    extra = await startExtraCoordinator({ nodes, clusterSecret, etcd: inject('etcdUrl') });
    const after = await http(extra.url, 'GET', '/_cluster/settings?include_defaults=true');
    expected(after.body);
    expect(after.body.defaults?.cluster?.max_shards_per_node).toBeUndefined();
    // And the restarted coordinator enforces them.
    expect(errorOf(await http(extra.url, 'POST', '/cities/_pit?keep_alive=13h')).reason).toMatch(/It must be less than \(12h\)/);
    await resetSettings(extra.url);
    const reset = await http(url, 'GET', '/_cluster/settings?flat_settings=true');
    for (const k of TOUCHED) expect([k, reset.body.persistent[k], reset.body.transient[k]]).toEqual([k, undefined, undefined]);
  });
});
