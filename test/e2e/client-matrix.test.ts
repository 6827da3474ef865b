/**
 * Client compatibility matrix: unmodified tools and clients that people use, run against the
 * shared cluster, each check printed as `client-matrix PASS|FAIL name: detail`.
 * - `elasticdump` (npm), default mode (scroll): dumps the settings, mapping and data of the real
 *   `cities` sample (135,233 documents) to files, restores them into a new index
 *   (`matrix-cities`), and the restored index equals `cities` document by document (`_id`s and
 *   the `_source` bytes). With `--searchAfter --pit` (search_after over a point in time) it dumps
 *   the same settings, mapping and documents as the scroll dump, line by line (restoring those
 *   files again would exercise the same bulk path a second time). Its PIT is left open: it
 *   closes it with `DELETE /{index}/_pit`, which ES answers 405 (and so does Folio).
 * - Python's `elasticsearch` client as Debian ships it (python3-elasticsearch 7.17, installed by
 *   scripts/install-test-deps.sh): `helpers.bulk` and `helpers.scan` (python-client-check.py).
 * The official JavaScript clients are in clients.test.ts and cursor-clients.test.ts.
 * @see https://github.com/elasticsearch-dump/elasticsearch-dump
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openContextsByNode } from '../support/open-contexts.ts';
import { deleteIndices, http } from './http.ts';

const url = inject('coordinatorUrl');
const run = promisify(execFile);
const ELASTICDUMP = join(import.meta.dirname, '../../node_modules/elasticdump/bin/elasticdump');
const PYTHON_CHECK = join(import.meta.dirname, 'python-client-check.py');
const CITIES = 135_233;
/** Documents per elasticdump request (ES's largest scroll batch under the default window). */
const LIMIT = 10_000;
const RESTORED = 'matrix-cities';

let dir: string;

/** Runs named checks, printing PASS/FAIL per check; the test fails with the failed checks' names. */
class Checks {
  readonly failed: string[] = [];
  check(name: string, ok: boolean, detail: string): void {
    process.stdout.write(`client-matrix ${ok ? 'PASS' : 'FAIL'} ${name}: ${detail}\n`);
    if (!ok) this.failed.push(`${name}: ${detail}`);
  }
}

/** Runs elasticdump with `args` (Node's own binary, so Node 24). @returns its wall time in ms. */
async function elasticdump(...args: string[]): Promise<number> {
  const started = Date.now();
  await run(process.execPath, [ELASTICDUMP, '--quiet', ...args], { maxBuffer: 16 << 20, timeout: 180_000 });
  return Date.now() - started;
}

/**
 * The JSON text of the object that starts at `text[start]` (`{`), strings and escapes skipped, so
 * that a `_source` is compared as the bytes the reply carried.
 */
function objectText(text: string, start: number): string {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  throw new Error(`unbalanced object at ${start}`);
}

/** Per hit of a reply (or dump line) text, its `_id` and its `_source` text, in order. */
function rawHits(text: string, ids: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  let at = 0;
  for (const id of ids) {
    const key = text.indexOf('"_source":', at);
    if (key < 0) throw new Error(`no _source for ${id}`);
    const source = objectText(text, key + '"_source":'.length);
    out.push([id, source]);
    at = key + '"_source":'.length + source.length;
  }
  return out;
}

/** Every document of `index` as [`_id`, `_source` text], sorted by `_id` (a PIT walk of 10,000 per page). */
async function documents(index: string): Promise<[string, string][]> {
  const pit = await http(url, 'POST', `/${index}/_pit?keep_alive=1m`);
  const out: [string, string][] = [];
  let after: unknown[] | undefined;
  try {
    for (;;) {
      const body = JSON.stringify({
        size: LIMIT,
        sort: [{ _id: 'asc' }],
        pit: { id: pit.body.id, keep_alive: '1m' },
        ...(after ? { search_after: after } : {}),
      });
      const res = await request(`${url}/_search`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
        headersTimeout: 120_000,
        bodyTimeout: 120_000,
      });
      const text = await res.body.text();
      const hits = (JSON.parse(text) as { hits: { hits: { _id: string; sort: unknown[] }[] } }).hits.hits;
      if (hits.length === 0) return out;
      out.push(
        ...rawHits(
          text.slice(text.indexOf('"hits":{')),
          hits.map((h) => h._id),
        ),
      );
      after = hits.at(-1)!.sort;
    }
  } finally {
    await http(url, 'DELETE', '/_pit', { id: pit.body.id });
  }
}

/** Orders [`_id`, `_source`] pairs by `_id` (code units; the sample's `_id`s are ASCII, so as `_id` sorts). */
const byId = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** The documents of an elasticdump data file (one hit per line) as [`_id`, `_source` text], sorted by `_id`. */
async function dumpedDocuments(file: string): Promise<[string, string][]> {
  const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
  return lines.map((l) => rawHits(l, [(JSON.parse(l) as { _id: string })._id])[0]).sort(byId);
}

/** Compares two sorted document lists: @returns the first difference, or null when equal. */
function firstDifference(a: readonly [string, string][], b: readonly [string, string][]): string | null {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]];
    if (!x || !y) return `${a.length} vs ${b.length} documents`;
    if (x[0] !== y[0]) return `document ${i}: _id ${x[0]} vs ${y[0]}`;
    if (x[1] !== y[1]) return `_id ${x[0]}: _source ${x[1]} vs ${y[1]}`;
  }
  return null;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'folio-client-matrix-'));
  await deleteIndices(url, `${RESTORED}*`);
});

afterAll(async () => {
  await deleteIndices(url, `${RESTORED}*`);
  await http(url, 'DELETE', '/_search/scroll/_all');
  await rm(dir, { recursive: true, force: true });
});

describe('elasticdump', () => {
  let source: [string, string][];

  it('default mode (scroll): dumps settings, mapping and all 135,233 cities, restores them equal document by document', async () => {
    const c = new Checks();
    const f = (name: string) => join(dir, name);
    const input = `--input=${url}/cities`;
    const output = `--output=${url}/${RESTORED}`;
    const times: Record<string, number> = {};
    times.settings = await elasticdump(input, `--output=${f('settings.json')}`, '--type=settings');
    times.mapping = await elasticdump(input, `--output=${f('mapping.json')}`, '--type=mapping');
    times.data = await elasticdump(input, `--output=${f('data.json')}`, '--type=data', `--limit=${LIMIT}`);
    const dumped = await dumpedDocuments(f('data.json'));
    c.check(
      'scroll dump: data',
      dumped.length === CITIES && new Set(dumped.map((d) => d[0])).size === CITIES,
      `${dumped.length} lines, ${new Set(dumped.map((d) => d[0])).size} distinct _ids in ${times.data} ms`,
    );

    times.restoreSettings = await elasticdump(`--input=${f('settings.json')}`, output, '--type=settings');
    times.restoreMapping = await elasticdump(`--input=${f('mapping.json')}`, output, '--type=mapping');
    times.restoreData = await elasticdump(`--input=${f('data.json')}`, output, '--type=data', `--limit=${LIMIT}`);
    await http(url, 'POST', `/${RESTORED}/_refresh`);

    const [settingsA, settingsB] = await Promise.all(['cities', RESTORED].map(async (i) => (await http(url, 'GET', `/${i}/_settings`)).body[i].settings.index));
    const kept = ['number_of_shards', 'number_of_replicas', 'max_result_window', 'refresh_interval'];
    const pick = (s: Record<string, unknown>) => Object.fromEntries(kept.map((k) => [k, s[k]]));
    c.check(
      'restore: settings',
      JSON.stringify(pick(settingsA)) === JSON.stringify(pick(settingsB)),
      `${JSON.stringify(pick(settingsB))} in ${times.restoreSettings} ms`,
    );
    const [mapA, mapB] = await Promise.all(['cities', RESTORED].map(async (i) => (await http(url, 'GET', `/${i}/_mapping`)).body[i].mappings));
    c.check(
      'restore: mapping',
      JSON.stringify(mapA) === JSON.stringify(mapB),
      `${Object.keys(mapB.properties ?? {}).length} fields in ${times.restoreMapping} ms`,
    );

    source = await documents('cities');
    const restored = await documents(RESTORED);
    const diff = firstDifference(source, restored);
    c.check(
      'restore: documents (_id and _source bytes)',
      source.length === CITIES && diff === null,
      `${restored.length} documents, ${diff ?? 'equal'}; restored in ${times.restoreData} ms`,
    );
    const fileDiff = firstDifference(source, dumped);
    c.check('scroll dump: _source bytes as stored', fileDiff === null, fileDiff ?? 'equal');
    expect(c.failed).toEqual([]);
  });

  it('--searchAfter --pit: dumps the same settings, mapping and documents', async () => {
    const c = new Checks();
    const f = (name: string) => join(dir, name);
    const input = `--input=${url}/cities`;
    const flags = ['--searchAfter', '--pit'];
    await elasticdump(input, `--output=${f('pit-settings.json')}`, '--type=settings', ...flags);
    await elasticdump(input, `--output=${f('pit-mapping.json')}`, '--type=mapping', ...flags);
    const ms = await elasticdump(input, `--output=${f('pit-data.json')}`, '--type=data', `--limit=${LIMIT}`, ...flags);
    for (const kind of ['settings', 'mapping']) {
      const [a, b] = await Promise.all([readFile(f(`${kind}.json`), 'utf8'), readFile(f(`pit-${kind}.json`), 'utf8')]);
      c.check(`pit dump: ${kind}`, a === b && a.length > 0, `${b.length} bytes, ${a === b ? 'equal to the scroll dump' : 'differs from the scroll dump'}`);
    }
    const dumped = await dumpedDocuments(f('pit-data.json'));
    const diff = firstDifference(source ?? (await documents('cities')), dumped);
    c.check(
      'pit dump: documents (_id and _source bytes)',
      dumped.length === CITIES && diff === null,
      `${dumped.length} lines, ${diff ?? 'equal to cities'} in ${ms} ms`,
    );
    // elasticdump closes its PIT with `DELETE /{index}/_pit`, a route ES does not have (only
    // `DELETE /_pit`): ES answers 405, and the PIT lives out its keep-alive (`--pitKeepAlive`, 5m).
    const open = await openContexts('pit');
    const close = await http(url, 'DELETE', '/cities/_pit', { id: 'x' });
    c.check(
      'pit dump: its PIT close is answered as ES answers it',
      close.status === 405 && close.body?.error === 'Incorrect HTTP method for uri [/cities/_pit] and method [DELETE], allowed: [POST]' && open >= 3,
      `${close.status} ${JSON.stringify(close.body)}; ${open} PIT shard contexts left to expire`,
    );
    expect(c.failed).toEqual([]);
  });
});

/** Open contexts of a kind over every shard node (`folio_search_contexts_open`); throws when a scrape lacks it. */
async function openContexts(kind: 'pit' | 'scroll'): Promise<number> {
  return (await openContextsByNode(inject('nodeUrls'), kind)).reduce((a, b) => a + b, 0);
}

describe('python3-elasticsearch (Debian)', () => {
  it('helpers.bulk loads an index, helpers.scan walks it and all cities', async () => {
    // helpers.scan clears its scrolls; the script checks that nothing is left open after its walks.
    await http(url, 'DELETE', '/_search/scroll/_all');
    const { stdout } = await run('/usr/bin/python3', [PYTHON_CHECK, url, `${RESTORED}-py`], { timeout: 180_000 }).catch(
      (err: Error & { stdout?: string; stderr?: string }) => {
        return { stdout: `${err.stdout ?? ''}\nFAIL python3: ${err.stderr ?? String(err)}` };
      },
    );
    const lines = stdout.trim().split('\n');
    for (const l of lines) process.stdout.write(`client-matrix ${l}\n`);
    expect(lines.filter((l) => !l.startsWith('PASS'))).toEqual([]);
    expect(lines.length).toBeGreaterThanOrEqual(8);
  });
});
