/**
 * `folio dump --slices` and the streamed `folio reindex --slices` against a whole stack served in
 * process: N sliced PIT walks together return every document exactly once.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Agent } from 'undici';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDump } from './dump.ts';
import { walkIndex } from './pit-walk.ts';
import { runReindex } from './reindex.ts';
import { startInProcessStack, type InProcessStack } from '../test/support/in-process-coordinator.ts';

const DOCS = 1234;
let stack: InProcessStack;
let server: ServerType;
let url: string;
let dir: string;

beforeAll(async () => {
  stack = await startInProcessStack(2);
  url = await new Promise((resolve) => {
    server = serve({ fetch: stack.app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(`http://127.0.0.1:${info.port}`));
  });
  dir = await mkdtemp(join(tmpdir(), 'folio-sliced-walk-'));
  expect((await stack.call('PUT', '/walk', { settings: { number_of_shards: 3 } })).status).toBe(200);
  const bulk = Array.from({ length: DOCS }, (_, i) => `{"index":{"_id":"w${i}"}}\n{"n":${i}}\n`).join('');
  expect((await stack.call('POST', '/walk/_bulk?refresh=true', bulk, 'application/x-ndjson')).json.errors).toBe(false);
});

afterAll(async () => {
  server?.close();
  await stack.close();
  await rm(dir, { recursive: true, force: true });
});

const expectedIds = () => Array.from({ length: DOCS }, (_, i) => `w${i}`).sort();

describe('sliced CLI walks', () => {
  it('walkIndex with slices yields every hit once and reports the total', async () => {
    const agent = new Agent({ connections: 4 });
    let total = 0;
    const ids: string[] = [];
    for await (const hit of walkIndex(agent, url, { index: 'walk', pageSize: 100, slices: 4, onTotal: (t) => (total = t) })) ids.push(hit._id);
    await agent.close();
    expect(total).toBe(DOCS);
    expect(ids.sort()).toEqual(expectedIds());
  });

  it('dump --slices writes every document once', async () => {
    const out = join(dir, 'walk.ndjson');
    const s = await runDump({ url, index: 'walk', out, withId: true, pageSize: 200, slices: 3, quiet: true });
    expect(s.docs).toBe(DOCS);
    const lines = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { _id: string });
    expect(lines.map((l) => l._id).sort()).toEqual(expectedIds());
  });

  it('reindex --slices copies every document, streamed and on the server', async () => {
    const streamed = await runReindex({
      url,
      source: 'walk',
      dest: 'walk-streamed',
      stream: true,
      batch: 150,
      slices: 3,
      quiet: true,
      errorsFile: join(dir, 'e.ndjson'),
    });
    expect(streamed).toMatchObject({ mode: 'stream', docs: DOCS, errors: 0 });
    const served = await runReindex({ url, source: 'walk', dest: 'walk-served', batch: 150, slices: 3, quiet: true, pollMs: 20 });
    expect(served).toMatchObject({ mode: 'server', docs: DOCS, errors: 0 });
    for (const dest of ['walk-streamed', 'walk-served']) expect((await stack.call('GET', `/${dest}/_count`)).json.count).toBe(DOCS);
  });
});
