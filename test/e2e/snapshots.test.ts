/**
 * Snapshots to a shared filesystem repository and restores, on the shared cluster (3 shard nodes,
 * every service with the `snapshots` volume as FOLIO_PATH_REPO): a multi-shard index with a
 * replica is snapshotted, changed and snapshotted again (the second snapshot copies only the new
 * segment files: checked against the repository's blobs), deleted and restored from the first
 * snapshot with every document back exactly (GET replies byte for byte: `_source`, `_version`,
 * `_seq_no`), restored from the second under a new name, and the error cases answer as ES does.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
const snapshotsDir = inject('snapshotsDir');
const REPO = 'e2e_repo';
const LOCATION = `e2e-${Date.now()}`;
const INDEX = 'snap-src';
const RESTORED = 'restored-src';

afterAll(async () => {
  await http(url, 'DELETE', `/${INDEX},${RESTORED}`);
  await http(url, 'DELETE', `/_snapshot/${REPO}/snap-1,snap-2,snap-async`);
  await http(url, 'DELETE', `/_snapshot/${REPO}`);
});

/** The raw text of `GET /{index}/_doc/{id}`. */
async function rawGet(index: string, id: string, routing?: string): Promise<string> {
  const res = await request(`${url}/${index}/_doc/${encodeURIComponent(id)}${routing ? `?routing=${routing}` : ''}`);
  return res.body.text();
}

/** Every blob (`__*`) of the repository with its size, by path. */
function blobs(): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.startsWith('__')) out.set(p, statSync(p).size);
    }
  };
  walk(join(snapshotsDir, LOCATION));
  return out;
}

/** Documents with varied sources: key order, number forms, unicode, nesting, custom routing. */
const DOCS: { id: string; source: string; routing?: string }[] = Array.from({ length: 120 }, (_, i) => ({
  id: `d${i}`,
  source: `{"n":${i},"z":"ünïcødé ${i} 🙂","a":[1.0,2e3,${i}.50],"nested":{"b":true,"a":null}}`,
  ...(i % 10 === 0 ? { routing: `r${i}` } : {}),
}));

async function waitGreen(index: string): Promise<void> {
  const h = await http(url, 'GET', `/_cluster/health/${index}?wait_for_status=green&timeout=60s`);
  expect(h.body.status).toBe('green');
}

describe('snapshot and restore', () => {
  const before = new Map<string, string>();

  it('registers an fs repository under path.repo and verifies it', async () => {
    const put = await http(url, 'PUT', `/_snapshot/${REPO}`, { type: 'fs', settings: { location: LOCATION } });
    expect([put.status, put.body]).toEqual([200, { acknowledged: true }]);
    const got = await http(url, 'GET', `/_snapshot/${REPO}`);
    expect(got.body).toEqual({ [REPO]: { type: 'fs', settings: { location: LOCATION } } });
    expect((await http(url, 'GET', '/_snapshot')).body[REPO]).toBeDefined();
    const verify = await http(url, 'POST', `/_snapshot/${REPO}/_verify`);
    expect(verify.status).toBe(200);
    expect(Object.keys(verify.body.nodes).sort()).toEqual(['shard-0', 'shard-1', 'shard-2']); // each read the coordinator's test file
    expect(readdirSync(join(snapshotsDir, LOCATION))).toEqual([]); // and the test files are gone
  });

  it('snapshots a multi-shard index with a replica, then a second snapshot copies only the new segment files', async () => {
    expect((await http(url, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 3, number_of_replicas: 1 }, aliases: { 'snap-alias': {} } })).status).toBe(200);
    const lines = DOCS.flatMap((d) => [JSON.stringify({ index: { _index: INDEX, _id: d.id, ...(d.routing ? { routing: d.routing } : {}) } }), d.source]);
    expect((await http(url, 'POST', '/_bulk', lines.join('\n') + '\n', 'application/x-ndjson')).body.errors).toBe(false);
    // History: overwrites (versions 2 and 3) and a delete, none of it refreshed yet.
    await http(url, 'PUT', `/${INDEX}/_doc/d1`, { n: 1, again: 'once' });
    await http(url, 'PUT', `/${INDEX}/_doc/d1`, { n: 1, again: 'twice' });
    await http(url, 'DELETE', `/${INDEX}/_doc/d2`);
    await waitGreen(INDEX);
    for (const d of DOCS) before.set(d.id, await rawGet(INDEX, d.id, d.routing));
    expect(JSON.parse(before.get('d1')!)._version).toBe(3);
    expect(JSON.parse(before.get('d2')!).found).toBe(false);

    const first = await http(url, 'PUT', `/_snapshot/${REPO}/snap-1?wait_for_completion=true`, { indices: INDEX, metadata: { taken_by: 'e2e' } });
    expect(first.status).toBe(200);
    expect(first.body.snapshot).toMatchObject({
      snapshot: 'snap-1',
      repository: REPO,
      indices: [INDEX],
      state: 'SUCCESS',
      metadata: { taken_by: 'e2e' },
      shards: { total: 3, failed: 0, successful: 3 },
      failures: [],
    });
    expect(first.body.snapshot.uuid).toMatch(/^[\w-]{22}$/);
    expect(first.body.snapshot.end_time_in_millis).toBeGreaterThanOrEqual(first.body.snapshot.start_time_in_millis);
    const afterFirst = blobs();
    const status1 = (await http(url, 'GET', `/_snapshot/${REPO}/snap-1/_status`)).body.snapshots[0];
    expect(status1.stats.incremental).toEqual(status1.stats.total);
    expect(status1.stats.total.size_in_bytes).toBe([...afterFirst.values()].reduce((a, b) => a + b, 0));

    // One shard changes: a new document routed to it.
    await http(url, 'PUT', `/${INDEX}/_doc/extra?routing=r0`, { extra: true });
    const second = await http(url, 'PUT', `/_snapshot/${REPO}/snap-2?wait_for_completion=true`, { indices: [INDEX] });
    expect(second.body.snapshot).toMatchObject({ snapshot: 'snap-2', state: 'SUCCESS', shards: { total: 3, failed: 0, successful: 3 } });
    const afterSecond = blobs();
    const added = [...afterSecond].filter(([p]) => !afterFirst.has(p));
    const status2 = (await http(url, 'GET', `/_snapshot/${REPO}/snap-2/_status`)).body.snapshots[0];
    // What the second snapshot wrote is exactly the new blobs: one shard's new segment and commit point.
    expect(status2.stats.incremental).toEqual({ file_count: added.length, size_in_bytes: added.reduce((a, [, n]) => a + n, 0) });
    expect(added).toHaveLength(2);
    expect(status2.stats.incremental.size_in_bytes).toBeLessThan(status1.stats.total.size_in_bytes / 2);
    const unchanged = Object.values(status2.indices[INDEX].shards as Record<string, { stats: { incremental: { file_count: number } } }>).filter(
      (s) => s.stats.incremental.file_count === 0,
    );
    expect(unchanged).toHaveLength(2);

    const listed = await http(url, 'GET', `/_snapshot/${REPO}/_all`);
    expect(listed.body.snapshots.map((s: { snapshot: string }) => s.snapshot)).toEqual(['snap-1', 'snap-2']);
    expect(listed.body.total).toBe(2);
    const cat = await http(url, 'GET', `/_cat/snapshots/${REPO}?format=json&h=id,status,indices,total_shards`);
    expect(cat.body).toEqual([
      { id: 'snap-1', status: 'SUCCESS', indices: '1', total_shards: '3' },
      { id: 'snap-2', status: 'SUCCESS', indices: '1', total_shards: '3' },
    ]);
  });

  it('restores a deleted index from its files: every document back exactly, writes continue its versions and seq_nos', async () => {
    expect((await http(url, 'DELETE', `/${INDEX}`)).status).toBe(200);
    const res = await http(url, 'POST', `/_snapshot/${REPO}/snap-1/_restore?wait_for_completion=true`, { indices: INDEX });
    expect([res.status, res.body]).toEqual([200, { snapshot: { snapshot: 'snap-1', indices: [INDEX], shards: { total: 3, failed: 0, successful: 3 } } }]);
    await waitGreen(INDEX);
    for (const d of DOCS) expect(await rawGet(INDEX, d.id, d.routing), d.id).toBe(before.get(d.id));
    await http(url, 'POST', `/${INDEX}/_refresh`);
    expect((await http(url, 'GET', `/${INDEX}/_count`)).body.count).toBe(DOCS.length - 1);
    expect((await http(url, 'GET', `/${INDEX}/_doc/extra?routing=r0`)).body.found).toBe(false);
    const hits = await http(url, 'POST', `/${INDEX}/_search`, { query: { match: { z: 'ünïcødé' } }, size: 0 });
    expect(hits.body.hits.total.value).toBe(DOCS.length - 2); // d2 deleted, d1 overwritten without `z`
    // The alias and the replica came back with the metadata.
    expect((await http(url, 'GET', `/snap-alias/_count`)).body.count).toBe(DOCS.length - 1);
    const shards = await http(url, 'GET', `/_cat/shards/${INDEX}?format=json&h=prirep,state,docs`);
    expect(shards.body.filter((r: { prirep: string }) => r.prirep === 'r')).toHaveLength(3);
    const maxSeqNo = Math.max(...[...before.values()].map((t) => JSON.parse(t)._seq_no ?? -1));
    const update = await http(url, 'PUT', `/${INDEX}/_doc/d1?refresh=true`, { n: 1, after: 'restore' });
    expect(update.body).toMatchObject({ result: 'updated', _version: 4, _shards: { total: 2, successful: 2, failed: 0 } });
    const d3 = await http(url, 'POST', `/${INDEX}/_update/d3`, { doc: { touched: true } });
    expect(d3.body._version).toBe(2);
    const seqNos = [update.body._seq_no, d3.body._seq_no];
    expect(Math.max(...seqNos)).toBeGreaterThan(0);
    expect(update.body._seq_no).toBeGreaterThan(JSON.parse(before.get('d1')!)._seq_no);
    expect(maxSeqNo).toBeGreaterThan(0);
  });

  it('restores the second snapshot under a new name with rename_pattern, and refuses to restore over an open index', async () => {
    const over = await http(url, 'POST', `/_snapshot/${REPO}/snap-2/_restore?wait_for_completion=true`, {});
    expect(over.status).toBe(500);
    expect(over.body.error.type).toBe('snapshot_restore_exception');
    expect(over.body.error.reason).toMatch(
      new RegExp(
        `^\\[${REPO}:snap-2/[\\w-]{22}\\] cannot restore index \\[${INDEX}\\] because an open index with same name already exists in the cluster\\. Either close or delete the existing index or restore the index under a different name by providing a rename pattern and replacement name$`,
      ),
    );
    const res = await http(url, 'POST', `/_snapshot/${REPO}/snap-2/_restore?wait_for_completion=true`, {
      indices: 'snap-*',
      rename_pattern: 'snap-(.+)',
      rename_replacement: 'restored-$1',
      include_aliases: false,
      index_settings: { 'index.number_of_replicas': 0 },
    });
    expect(res.body).toEqual({ snapshot: { snapshot: 'snap-2', indices: [RESTORED], shards: { total: 3, failed: 0, successful: 3 } } });
    await waitGreen(RESTORED);
    expect((await http(url, 'GET', `/${RESTORED}/_doc/extra?routing=r0`)).body).toMatchObject({ found: true, _source: { extra: true } });
    for (const d of DOCS.slice(0, 20)) {
      const got = JSON.parse(await rawGet(RESTORED, d.id, d.routing));
      const was = JSON.parse(before.get(d.id)!);
      expect([got.found, got._version, got._seq_no], d.id).toEqual([was.found, was._version, was._seq_no]);
    }
    await http(url, 'POST', `/${RESTORED}/_refresh`);
    expect((await http(url, 'GET', `/${RESTORED}/_count`)).body.count).toBe(DOCS.length);
    expect((await http(url, 'GET', `/${RESTORED}/_settings`)).body[RESTORED].settings.index.number_of_replicas).toBe('0');
    expect((await http(url, 'GET', `/${RESTORED}/_alias`)).body[RESTORED].aliases).toEqual({});
  });

  it('answers the error cases as Elasticsearch does', async () => {
    const noRepo = await http(url, 'GET', '/_snapshot/no_such_repo');
    expect([noRepo.status, noRepo.body.error.type, noRepo.body.error.reason]).toEqual([404, 'repository_missing_exception', '[no_such_repo] missing']);
    const noRepoSnap = await http(url, 'GET', '/_snapshot/no_such_repo/snap-1');
    expect(noRepoSnap.status).toBe(404);
    const noSnap = await http(url, 'GET', `/_snapshot/${REPO}/no-such-snap`);
    expect([noSnap.status, noSnap.body.error.type, noSnap.body.error.reason]).toEqual([404, 'snapshot_missing_exception', `[${REPO}:no-such-snap] is missing`]);
    const restoreMissing = await http(url, 'POST', `/_snapshot/${REPO}/no-such-snap/_restore`);
    expect([restoreMissing.status, restoreMissing.body.error.type]).toEqual([404, 'snapshot_missing_exception']);
    const outside = await http(url, 'PUT', '/_snapshot/outside', { type: 'fs', settings: { location: '/definitely/not/under/path/repo' } });
    expect(outside.status).toBe(500);
    expect(outside.body.error).toMatchObject({
      type: 'repository_exception',
      reason: '[outside] failed to create repository',
      caused_by: {
        type: 'repository_exception',
        reason: "[outside] location [/definitely/not/under/path/repo] doesn't match any of the locations specified by path.repo",
      },
    });
    expect((await http(url, 'GET', '/_snapshot/outside')).status).toBe(404);
    const badType = await http(url, 'PUT', '/_snapshot/badtype', { type: 'nope', settings: {} });
    expect([badType.status, badType.body.error.type, badType.body.error.reason]).toEqual([
      500,
      'repository_exception',
      '[badtype] repository type [nope] does not exist',
    ]);
    const again = await http(url, 'PUT', `/_snapshot/${REPO}/snap-1?wait_for_completion=true`);
    expect([again.status, again.body.error.type, again.body.error.reason]).toEqual([
      400,
      'invalid_snapshot_name_exception',
      `[${REPO}:snap-1] Invalid snapshot name [snap-1], snapshot with the same name already exists`,
    ]);
    const missingIndex = await http(url, 'PUT', `/_snapshot/${REPO}/snap-x?wait_for_completion=true`, { indices: 'no-such-index' });
    expect([missingIndex.status, missingIndex.body.error.type]).toEqual([404, 'index_not_found_exception']);
  });

  it('without wait_for_completion a snapshot is accepted and finishes in the background', async () => {
    const accepted = await http(url, 'PUT', `/_snapshot/${REPO}/snap-async`, { indices: RESTORED });
    expect([accepted.status, accepted.body]).toEqual([200, { accepted: true }]);
    let state = '';
    for (let i = 0; i < 100 && state !== 'SUCCESS'; i++) {
      const got = await http(url, 'GET', `/_snapshot/${REPO}/snap-async`);
      state = got.body.snapshots?.[0]?.state ?? '';
      if (state !== 'SUCCESS') await new Promise((r) => setTimeout(r, 100));
    }
    expect(state).toBe('SUCCESS');
    const before = blobs().size;
    expect((await http(url, 'DELETE', `/_snapshot/${REPO}/snap-async`)).status).toBe(200);
    expect(blobs().size).toBeLessThan(before); // another index: none of its blobs is shared
  });

  it('deleting a snapshot removes only the blobs no other snapshot uses', async () => {
    const beforeDelete = blobs();
    expect((await http(url, 'DELETE', `/_snapshot/${REPO}/snap-1`)).body).toEqual({ acknowledged: true });
    expect((await http(url, 'GET', `/_snapshot/${REPO}/snap-1`)).status).toBe(404);
    const left = blobs();
    // Only the first snapshot's commit points of the changed shard go: every segment is still in snap-2.
    expect(beforeDelete.size - left.size).toBe(1);
    const status2 = (await http(url, 'GET', `/_snapshot/${REPO}/snap-2/_status`)).body.snapshots[0];
    expect(status2.stats.total.size_in_bytes).toBe([...left.values()].reduce((a, b) => a + b, 0));
    expect((await http(url, 'DELETE', `/_snapshot/${REPO}/snap-2`)).status).toBe(200);
    expect(blobs().size).toBe(0);
  });
});
