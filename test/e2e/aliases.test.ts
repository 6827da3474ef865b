/**
 * A zero-downtime reindex through an alias (issue 13), with the official `@elastic/elasticsearch`
 * client: clients search `aliases-live`; a new index `aliases-v2` (more shards) is filled by
 * `_reindex` from the alias, then one `_aliases` call moves the alias from `aliases-v1` to
 * `aliases-v2` while loops of searches run through it. Not one search fails, every search sees one
 * index whole (all its hits from one index, the full total), and each loop, once it has seen v2,
 * never sees v1 again. Uses its own `aliases-*` indices; `cities` is only read.
 */
import { Client } from '@elastic/elasticsearch';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { citiesIndex } from '../../scripts/samples/cities.ts';
import { startExtraCoordinator } from './extra-coordinator.ts';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
const client = new Client({ node: url });
/** Documents copied from `cities` into v1 (a small copy: the sample itself is never changed). */
const DOCS = 1500;

beforeAll(async () => {
  await http(url, 'DELETE', '/aliases-v1,aliases-v2,aliases-x1,aliases-x2?ignore_unavailable=true');
  await client.indices.create({
    index: 'aliases-v1',
    settings: { number_of_shards: 1, number_of_replicas: 0 },
    mappings: citiesIndex.mappings as never,
    aliases: { 'aliases-live': {} },
  });
  const copy = await client.reindex({ source: { index: 'cities' }, dest: { index: 'aliases-v1' }, max_docs: DOCS, refresh: true });
  expect(copy.created).toBe(DOCS);
});

afterAll(async () => {
  await http(url, 'DELETE', '/aliases-v1,aliases-v2,aliases-x1,aliases-x2?ignore_unavailable=true');
  await client.close();
});

/** What one search through the alias saw. */
interface Seen {
  index: string | null;
  whole: boolean;
}

/** Searches through the alias until `stop()` says so; records what each search saw, and failures. */
async function searchLoop(stop: () => boolean, seen: Seen[], failures: unknown[]): Promise<void> {
  while (!stop()) {
    try {
      const res = await client.search({ index: 'aliases-live', size: 20, sort: [{ _id: 'asc' }], track_total_hits: true, _source: false });
      const indices = new Set(res.hits.hits.map((h) => h._index));
      const total = typeof res.hits.total === 'number' ? res.hits.total : res.hits.total?.value;
      seen.push({ index: indices.size === 1 ? [...indices][0] : null, whole: indices.size === 1 && total === DOCS && res._shards.failed === 0 });
    } catch (err) {
      failures.push(err);
    }
  }
}

describe('zero-downtime reindex through an alias', () => {
  it('fills v2 from the alias, swaps the alias in one call under search load: 0 failed searches, each sees v1 or v2 whole', async () => {
    expect(await client.indices.existsAlias({ name: 'aliases-live' })).toBe(true);
    // 1. the new index, with more shards; filled from the alias (the reindex reads the alias's index)
    await client.indices.create({ index: 'aliases-v2', settings: { number_of_shards: 2, number_of_replicas: 0 }, mappings: citiesIndex.mappings as never });
    const filled = await client.reindex({ source: { index: 'aliases-live' }, dest: { index: 'aliases-v2' }, refresh: true });
    expect(filled.created).toBe(DOCS);
    expect((await client.count({ index: 'aliases-v2' })).count).toBe(DOCS);

    // 2. searches run through the alias while it moves
    const seen: Seen[][] = [[], [], []];
    const failures: unknown[] = [];
    let swapped = false;
    let afterSwap = 0;
    const stop = () => swapped && ++afterSwap > 150;
    const loops = seen.map((s) => searchLoop(stop, s, failures));
    // every loop searches v1 a few times first (however loaded the machine is)
    while (seen.some((s) => s.length < 5) && failures.length === 0) await new Promise((r) => setTimeout(r, 20));
    const swap = await client.indices.updateAliases({
      actions: [{ remove: { index: 'aliases-v1', alias: 'aliases-live' } }, { add: { index: 'aliases-v2', alias: 'aliases-live' } }],
    });
    swapped = true;
    await Promise.all(loops);

    expect(swap).toMatchObject({ acknowledged: true, errors: false });
    expect(failures).toEqual([]);
    const all = seen.flat();
    const on = (i: string) => all.filter((s) => s.index === i).length;
    process.stdout.write(`alias swap under load: ${all.length} searches (${on('aliases-v1')} saw v1, ${on('aliases-v2')} saw v2), ${failures.length} failed\n`);
    expect(all.every((s) => s.whole)).toBe(true);
    expect(all.some((s) => s.index === 'aliases-v1')).toBe(true);
    expect(all.some((s) => s.index === 'aliases-v2')).toBe(true);
    for (const loop of seen) {
      // a loop's searches run one after another: once one saw v2, no later one sees v1
      const firstV2 = loop.findIndex((s) => s.index === 'aliases-v2');
      expect(firstV2).toBeGreaterThanOrEqual(0);
      expect(loop.slice(firstV2).every((s) => s.index === 'aliases-v2')).toBe(true);
    }

    // 3. the alias now names v2 alone: reads, writes and the admin views agree
    expect(await client.indices.getAlias({ name: 'aliases-live' })).toEqual({ 'aliases-v2': { aliases: { 'aliases-live': {} } } });
    const written = await client.index({ index: 'aliases-live', id: 'after-swap', document: { name: 'Neuville' }, refresh: true });
    expect(written._index).toBe('aliases-v2');
    expect((await client.count({ index: 'aliases-live' })).count).toBe(DOCS + 1);
    const cat = await client.cat.aliases({ name: 'aliases-live', format: 'json' });
    expect(cat).toEqual([{ alias: 'aliases-live', index: 'aliases-v2', filter: '-', 'routing.index': '-', 'routing.search': '-', is_write_index: '-' }]);
    // 4. the old index can go; the alias is untouched
    await client.indices.delete({ index: 'aliases-v1' });
    expect((await client.count({ index: 'aliases-live' })).count).toBe(DOCS + 1);
  });

  it("a filtered alias over the copy answers the official client's alias calls as ES does", async () => {
    await client.indices.putAlias({ index: 'aliases-v2', name: 'aliases-fr', filter: { term: { country: 'FR' } } });
    const fr = (await client.count({ index: 'aliases-v2', query: { term: { country: 'FR' } } })).count;
    expect((await client.count({ index: 'aliases-fr' })).count).toBe(fr);
    const hits = await client.search({ index: 'aliases-fr', size: 50, _source: ['country'] });
    expect(hits.hits.hits.every((h) => (h._source as { country: string }).country === 'FR')).toBe(true);
    await client.indices.deleteAlias({ index: 'aliases-v2', name: 'aliases-fr' });
    expect(await client.indices.existsAlias({ name: 'aliases-fr' })).toBe(false);
  });

  it('an alias added through one coordinator is served at once by another, and its name cannot become an index there', async () => {
    const other = await startExtraCoordinator({ nodes: inject('nodeUrls'), clusterSecret: inject('clusterSecret'), etcd: inject('etcdUrl') });
    try {
      const b = other.url;
      // b learns of the index before the alias exists, so the alias is the one thing new to it
      await http(url, 'PUT', '/aliases-x1', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
      expect((await http(b, 'GET', '/aliases-x1/_count')).body.count).toBe(0);
      await http(url, 'POST', '/_aliases', { actions: [{ add: { index: 'aliases-x1', alias: 'aliases-xa', is_write_index: true } }] });
      const written = await http(b, 'PUT', '/aliases-xa/_doc/1?refresh=true', { n: 1 });
      expect([written.status, written.body._index]).toEqual([201, 'aliases-x1']);
      expect((await http(b, 'GET', '/aliases-xa/_count')).body.count).toBe(1);
      const taken = await http(b, 'PUT', '/aliases-xa', {});
      expect([taken.status, taken.body.error?.type]).toEqual([400, 'invalid_index_name_exception']);
      // and the other way round: an index created through b, an alias of its name through a
      await http(b, 'PUT', '/aliases-x2', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
      const clash = await http(url, 'PUT', '/aliases-x1/_alias/aliases-x2');
      expect([clash.status, clash.body.error?.type]).toEqual([400, 'invalid_alias_name_exception']);
    } finally {
      other.stop();
    }
  });
});
