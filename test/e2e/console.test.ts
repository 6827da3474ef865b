/**
 * The search console (`GET /_console`) in a real browser: Debian's chromium (`/usr/bin/chromium`,
 * installed by .ci/run) driven by playwright-core, against the e2e cluster's coordinator. On
 * `cities` sorted by population desc it searches, pages forward and back, jumps to page 5,000,
 * and goes to the last page; each time the `_id`s in the table, in order, must equal what
 * `_search` answers for the same `from`/`size`/sort over plain HTTP, and the total and its
 * relation must match. It also runs a `q` query and a JSON DSL query, groups the hits by a
 * collapse field (groups, their sizes and the group count as the API's), shows highlighted
 * snippets, shows a facet's counts on the query (the API's `terms` buckets) and filters the hits by
 * a clicked value (the API's `post_filter` page) until the filter is removed, shows an API error's
 * `error.reason`, draws one profile bar group per shard, and makes no request off the origin.
 *
 * `FOLIO_UPDATE_SCREENSHOT=1` also writes docs/console.png (the README's picture) from the deep
 * page; without it the tree stays clean.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
/** Bound of one browser step (a click and its search, a navigation). */
const STEP_MS = 5_000;
const SCREENSHOT = fileURLToPath(new URL('../../docs/console.png', import.meta.url));

const SIZE = 20;
const BY_POPULATION = [{ population: { order: 'desc' } }];

let browser: Browser | undefined;
let page: Page;
/** Requests the page made to any other origin (must stay empty). */
const offOrigin: string[] = [];
/** Console assets answered with a non-2xx status (must stay empty). */
const failedAssets: string[] = [];
/** Uncaught exceptions in the page (must stay empty). */
const pageErrors: string[] = [];

/** What the results section says it shows (its data attributes, see coordinator/console/assets/app.js). */
interface Shown {
  status: string;
  index: string;
  from: string;
  size: string;
  sort: string;
  collapse: string;
  query: string;
  facet: string;
  filters: string;
}

/**
 * Waits until the page shows the answer of exactly this search (status `ok`), reading every
 * attribute in the same frame. (The function runs in the page; this tsconfig has no DOM types.)
 */
async function waitShown(
  want: Omit<Shown, 'status' | 'index' | 'size' | 'collapse' | 'facet' | 'filters'> & { size?: number; collapse?: string; facet?: string; filters?: string },
): Promise<void> {
  const expected: Shown = {
    status: 'ok',
    index: 'cities',
    size: String(want.size ?? SIZE),
    from: want.from,
    sort: want.sort,
    collapse: want.collapse ?? '',
    query: want.query,
    facet: want.facet ?? '',
    filters: want.filters ?? '',
  };
  await page.waitForFunction(
    (e: Record<string, string>) => {
      const d: Record<string, string> | undefined = (globalThis as any).document.querySelector('[data-testid=results]')?.dataset;
      return d !== undefined && Object.keys(e).every((k) => d[k] === e[k]);
    },
    { ...expected },
    { timeout: STEP_MS },
  );
}

/** The values of `attribute` on every element `selector` matches, in document order. */
async function attributes(selector: string, attribute: string): Promise<(string | null)[]> {
  return Promise.all((await page.locator(selector).all()).map((l) => l.getAttribute(attribute)));
}

/** The `_id` column of the table, top to bottom. */
function tableIds(): Promise<string[]> {
  return page.locator('[data-testid=hits-table] tbody td.id').allTextContents();
}

/** The API's answer for the same page: `_id`s in order and `hits.total`. */
async function apiPage(body: Record<string, unknown>, q?: string): Promise<{ ids: string[]; total: { value: number; relation: string } }> {
  const res = await http(url, 'POST', `/cities/_search${q === undefined ? '' : `?q=${encodeURIComponent(q)}`}`, {
    size: SIZE,
    track_total_hits: true,
    _source: false,
    ...body,
  });
  expect(res.status).toBe(200);
  return { ids: res.body.hits.hits.map((h: { _id: string }) => h._id), total: res.body.hits.total };
}

/** The shown page equals the API's page for `from` (and the optional query), total included. */
async function expectSameAsApi(from: number, query: { q?: string; query?: unknown } = {}): Promise<string[]> {
  const body: Record<string, unknown> = { from, sort: BY_POPULATION };
  if (query.query !== undefined) body.query = query.query;
  const api = await apiPage(body, query.q);
  const ids = await tableIds();
  expect(ids).toEqual(api.ids);
  const total = page.getByTestId('total');
  expect(await total.getAttribute('data-value')).toBe(String(api.total.value));
  expect(await total.getAttribute('data-relation')).toBe(api.total.relation);
  return ids;
}

/** The body of the last `_search` response the page received (the one it shows, once waitShown passed). */
let lastSearch: Promise<any> = Promise.resolve(undefined);

/**
 * The profile picture draws the shown response's `profile`: one group per shard in
 * `profile.shards` order with one bar per query-side call plus its fetch, the coordinator's
 * phases, and bar widths proportional to the times (on one scale, at least 1 unit).
 */
async function expectPictureOfProfile(): Promise<void> {
  const profile = (await lastSearch).profile as {
    shards: { id: string; searches: { query: { description: string; time_in_nanos: number }[] }[]; fetch?: { description: string; time_in_nanos: number } }[];
    coordinator: { phases_in_nanos: Record<string, number> };
  };
  expect(profile.shards.map((s) => /\[cities\]\[(\d)\]$/.exec(s.id)?.[1]).sort()).toEqual(['0', '1', '2']);
  expect(await attributes('[data-testid=profile] g.group[data-kind=shard]', 'data-id')).toEqual(profile.shards.map((s) => s.id));
  const expected: { group: string; label: string; ms: number; fused: boolean }[] = Object.entries(profile.coordinator.phases_in_nanos).map(([phase, ns]) => ({
    group: 'coordinator',
    label: phase,
    ms: ns / 1e6,
    fused: false,
  }));
  for (const shard of profile.shards) {
    for (const q of shard.searches[0].query) expected.push({ group: shard.id, label: q.description, ms: q.time_in_nanos / 1e6, fused: false });
    if (shard.fetch)
      expected.push({
        group: shard.id,
        label: 'fetch',
        ms: shard.fetch.time_in_nanos / 1e6,
        fused: shard.fetch.time_in_nanos === 0 && shard.fetch.description !== '',
      });
  }
  const drawn: { group: string; label: string; width: number | null }[] = [];
  for (const g of await page.locator('[data-testid=profile] g.group').all()) {
    const group = (await g.getAttribute('data-id')) ?? '';
    for (const bar of await g.locator('g.bar').all()) {
      const rect = bar.locator('rect');
      drawn.push({
        group,
        label: (await bar.locator('text.label').textContent()) ?? '',
        width: (await rect.count()) === 0 ? null : Number(await rect.getAttribute('width')),
      });
    }
  }
  const key = (b: { group: string; label: string }) => `${b.group} ${b.label}`;
  expect(drawn.map(key).sort()).toEqual(expected.map(key).sort());
  const maxMs = Math.max(...expected.map((b) => b.ms));
  const maxWidth = Math.max(...drawn.map((b) => b.width ?? 0));
  for (const want of expected) {
    const bar = drawn.find((b) => key(b) === key(want))!;
    if (want.fused) expect(bar.width, key(want)).toBeNull();
    else expect(bar.width, key(want)).toBeCloseTo(Math.max(1, (want.ms / maxMs) * maxWidth), 1);
  }
}

describe('search console in chromium', () => {
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium (.ci/run does this)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(STEP_MS);
    page.on('request', (r) => {
      if (!r.url().startsWith(`${url}/`) && !r.url().startsWith('data:')) offOrigin.push(r.url());
    });
    page.on('response', (r) => {
      if (r.url().startsWith(`${url}/_console`) && r.status() >= 400) failedAssets.push(`${r.status()} ${r.url()}`);
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('response', (r) => {
      if (new URL(r.url()).pathname.endsWith('/_search')) lastSearch = r.json().catch(() => undefined); // an aborted search has no body
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('loads the page and its assets from the coordinator and lists the indices', async () => {
    const started = performance.now();
    await page.goto(`${url}/_console`, { timeout: STEP_MS });
    await page.locator('[data-testid=results][data-status=ok]').waitFor({ timeout: STEP_MS });
    process.stdout.write(`console: first search shown ${Math.round(performance.now() - started)} ms after navigation\n`);
    const options = await attributes('select[name=index] option', 'value');
    expect(options).toEqual(expect.arrayContaining(['cities', 'mails', 'mails-1shard']));
    expect(await page.getByTestId('error').count()).toBe(0);
  });

  it('searches cities by population desc: same hits, total and relation as the API, one profile group per shard', async () => {
    await page.selectOption('select[name=index]', 'cities');
    await page.fill('textarea[name=query]', '');
    await page.selectOption('select[name=size]', String(SIZE));
    await page.selectOption('select[name=sort]', 'population');
    await page.selectOption('select[name=order]', 'desc');
    await waitShown({ from: '0', sort: 'population:desc', query: '' });
    const ids = await expectSameAsApi(0);
    expect(ids).toHaveLength(SIZE);
    expect(await page.getByTestId('total').getAttribute('data-relation')).toBe('eq');

    await expectPictureOfProfile();
    const phases = await page.locator('[data-testid=profile] g.group[data-kind=coordinator] g.bar text.label').allTextContents();
    expect(phases).toEqual(['parse', 'plan', 'query', 'merge', 'fetch', 'respond']);
  });

  it('pages forward and back', async () => {
    await page.getByTestId('next').click();
    await waitShown({ from: '20', sort: 'population:desc', query: '' });
    const second = await expectSameAsApi(20);
    await page.getByTestId('next').click();
    await waitShown({ from: '40', sort: 'population:desc', query: '' });
    await expectSameAsApi(40);
    await page.getByTestId('prev').click();
    await waitShown({ from: '20', sort: 'population:desc', query: '' });
    expect(await expectSameAsApi(20)).toEqual(second);
  });

  it('jumps to page 5,000 (from 99,980)', async () => {
    await page.fill('[data-testid=page-input]', '5000');
    await page.getByTestId('go').click();
    await waitShown({ from: String(4999 * SIZE), sort: 'population:desc', query: '' });
    await expectSameAsApi(4999 * SIZE);
    // The deep page is read by exact distributed selection: its rounds show in every shard's group.
    await expectPictureOfProfile();
    const labels = await page.locator('[data-testid=profile] g.group[data-kind=shard] text.label').allTextContents();
    expect(labels).toContain('select/range');
    if (process.env.FOLIO_UPDATE_SCREENSHOT === '1') await page.screenshot({ path: SCREENSHOT });
  });

  it('goes to the last page', async () => {
    const { total } = await apiPage({ size: 0 });
    const lastFrom = (Math.ceil(total.value / SIZE) - 1) * SIZE;
    await page.getByTestId('last').click();
    await waitShown({ from: String(lastFrom), sort: 'population:desc', query: '' });
    const ids = await expectSameAsApi(lastFrom);
    expect(ids).toHaveLength(total.value - lastFrom);
    expect(await page.getByTestId('next').isDisabled()).toBe(true);
    expect(await page.getByTestId('last').isDisabled()).toBe(true);
  });

  it('runs a q query (query-string syntax, sent as ?q=)', async () => {
    const q = 'country:AT AND population:>=20000';
    await page.fill('textarea[name=query]', q);
    await page.press('textarea[name=query]', 'Enter');
    await waitShown({ from: '0', sort: 'population:desc', query: q });
    const ids = await expectSameAsApi(0, { q });
    expect(ids.length).toBeGreaterThan(0);
    await page.getByTestId('next').click();
    await waitShown({ from: '20', sort: 'population:desc', query: q });
    await expectSameAsApi(20, { q });
  });

  it('runs a JSON DSL query (sent as the body query)', async () => {
    const query = { bool: { filter: [{ term: { country: 'DE' } }, { range: { population: { gte: 50000 } } }] } };
    const text = JSON.stringify(query);
    await page.fill('textarea[name=query]', text);
    await page.press('textarea[name=query]', 'Control+Enter');
    await waitShown({ from: '0', sort: 'population:desc', query: text });
    const ids = await expectSameAsApi(0, { query });
    expect(ids).toHaveLength(SIZE);
  });

  it('groups the hits by a collapse field: one row per country with its size, paged over groups as the API', async () => {
    await page.fill('textarea[name=query]', '');
    await page.press('textarea[name=query]', 'Enter');
    await waitShown({ from: '0', sort: 'population:desc', query: '' });
    await page.selectOption('select[name=collapse]', 'country');
    const collapsed = async (from: number) => {
      await waitShown({ from: String(from), sort: 'population:desc', collapse: 'country', query: '' });
      const body = {
        from,
        size: SIZE,
        sort: BY_POPULATION,
        collapse: { field: 'country', inner_hits: { name: 'group', size: 0 } },
        _source: false,
        track_total_hits: true,
      };
      const api = (await http(url, 'POST', '/cities/_search', body)).body;
      expect(await tableIds()).toEqual(api.hits.hits.map((h: { _id: string }) => h._id));
      expect(await page.locator('[data-testid=hits-table] tbody td.group').allTextContents()).toEqual(
        api.hits.hits.map((h: { fields: { country: string[] } }) => h.fields.country[0]),
      );
      const sizes = api.hits.hits.map((h: { inner_hits: { group: { hits: { total: { value: number } } } } }) => String(h.inner_hits.group.hits.total.value));
      expect(await page.locator('[data-testid=hits-table] tbody td.group-size').allTextContents()).toEqual(sizes);
      expect(await page.getByTestId('groups').getAttribute('data-value')).toBe(String(api.hits.total_groups.value));
      return api;
    };
    const first = await collapsed(0);
    expect(first.hits.total_groups).toEqual({ value: 246, relation: 'eq' });
    await page.getByTestId('last').click();
    const last = await collapsed(240);
    expect(last.hits.hits).toHaveLength(6);
    await page.selectOption('select[name=collapse]', '');
    await waitShown({ from: '0', sort: 'population:desc', query: '' });
    expect(await page.getByTestId('groups').count()).toBe(0);
  });

  it('shows highlighted snippets of the query', async () => {
    const q = 'name:paris';
    await page.fill('textarea[name=query]', q);
    await page.press('textarea[name=query]', 'Enter');
    await waitShown({ from: '0', sort: 'population:desc', query: q });
    const api = (
      await http(url, 'POST', `/cities/_search?q=${encodeURIComponent(q)}`, {
        size: SIZE,
        sort: BY_POPULATION,
        _source: false,
        highlight: { encoder: 'html', number_of_fragments: 1, fragment_size: 150, fields: { '*': {} } },
      })
    ).body;
    const fragments: string[] = api.hits.hits.map((h: { highlight: Record<string, string[]> }) => Object.values(h.highlight)[0][0]);
    expect(fragments.length).toBeGreaterThan(0);
    const plain = (f: string) =>
      f
        .replace(/<\/?em>/g, '')
        .replaceAll('&amp;', '&')
        .replaceAll('&#x27;', "'")
        .replaceAll('&#x2F;', '/')
        .replaceAll('&quot;', '"')
        .replaceAll('&lt;', '<')
        .replaceAll('&gt;', '>');
    expect(await page.locator('[data-testid=hits-table] tbody td.snippet').allTextContents()).toEqual(fragments.map(plain));
    const marks = await page.locator('[data-testid=hits-table] tbody td.snippet mark').allTextContents();
    expect(marks.length).toBeGreaterThanOrEqual(fragments.length);
    for (const m of marks) expect(m.toLowerCase()).toBe('paris');
  });

  it('shows the facet counts of the query beside the hits; a click filters the hits by a value, the chip removes it', async () => {
    const q = 'population:>=100000';
    await page.fill('textarea[name=query]', q);
    await page.press('textarea[name=query]', 'Enter');
    await waitShown({ from: '0', sort: 'population:desc', query: q });
    await page.selectOption('select[name=facet]', 'country');
    await waitShown({ from: '0', sort: 'population:desc', query: q, facet: 'country' });
    const api = (await http(url, 'POST', `/cities/_search?q=${encodeURIComponent(q)}`, { size: 0, aggs: { c: { terms: { field: 'country', size: 10 } } } }))
      .body;
    const buckets: { key: string; doc_count: number }[] = api.aggregations.c.buckets;
    expect(buckets).toHaveLength(10);
    const keys = buckets.map((b) => b.key);
    const counts = buckets.map((b) => String(b.doc_count));
    expect(await attributes('[data-testid=facet]', 'data-key')).toEqual(keys);
    expect(await attributes('[data-testid=facet]', 'data-count')).toEqual(counts);

    const pick = buckets[1];
    await page.locator(`[data-testid=facet][data-key="${pick.key}"]`).click();
    await waitShown({ from: '0', sort: 'population:desc', query: q, facet: 'country', filters: `country:${pick.key}` });
    const filtered = await apiPage({ from: 0, sort: BY_POPULATION, post_filter: { term: { country: pick.key } } }, q);
    expect(filtered.total.value).toBe(pick.doc_count);
    expect(await tableIds()).toEqual(filtered.ids);
    expect(await page.getByTestId('total').getAttribute('data-value')).toBe(String(pick.doc_count));
    // The counts stay those of the query (post_filter narrows the hits only), the value shows as on.
    expect(await attributes('[data-testid=facet]', 'data-count')).toEqual(counts);
    expect(await attributes('[data-testid=facet][aria-pressed=true]', 'data-key')).toEqual([pick.key]);

    await page.getByTestId('filter-chip').click();
    await waitShown({ from: '0', sort: 'population:desc', query: q, facet: 'country' });
    await expectSameAsApi(0, { q });
    await page.selectOption('select[name=facet]', '');
    await waitShown({ from: '0', sort: 'population:desc', query: q });
    expect(await page.getByTestId('facets').count()).toBe(0);
  });

  it("shows the API's error.reason", async () => {
    const bad = { bool: { must: [{ no_such_query: {} }] } };
    const api = await http(url, 'POST', '/cities/_search', { query: bad });
    expect(api.status).toBe(400);
    const reason: string = api.body.error.reason;
    await page.fill('textarea[name=query]', JSON.stringify(bad));
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByTestId('error').textContent(), { timeout: STEP_MS }).toContain(reason);
    expect(await page.locator('[data-testid=results]').getAttribute('data-status')).toBe('error');
  });

  it('made no request off the origin, every asset loaded, no script error', () => {
    expect(offOrigin).toEqual([]);
    expect(failedAssets).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
