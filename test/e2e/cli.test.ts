/**
 * The `folio` CLI against the shared cluster: load a generated NDJSON file (with bad lines),
 * interrupt it and resume, load a CSV through the real executable, dump both indices and compare
 * with what was loaded, and reindex on the server and streamed. Uses its own `cli-*` indices.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readCheckpoint, writeCheckpoint } from '../../cli/checkpoint.ts';
import type { Checkpoint } from '../../cli/checkpoint.ts';
import { runLoad } from '../../cli/load.ts';
import { runReindex } from '../../cli/reindex.ts';
import { http, deleteIndices } from './http.ts';

const url = inject('coordinatorUrl');
const FOLIO = join(import.meta.dirname, '../../cli/folio.ts');
const NDJSON_DOCS = 3000;
const CSV_ROWS = 2000;
let dir: string;

/** Runs the real executable; resolves with its exit code and output (never rejects on exit codes). */
function folio(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [FOLIO, '--url', url, '-q', ...args], { cwd: dir, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 99) : 0, stdout, stderr });
    });
  });
}

const count = async (index: string) => (await http(url, 'GET', `/${index}/_count`)).body.count as number;
const readNdjson = async (file: string) =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** The generated NDJSON documents by id, and the line numbers of the 3 bad lines. */
const good = new Map<string, Record<string, unknown>>();
const BAD_LINES = [501, 1502, 2503];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'folio-cli-e2e-'));
  await deleteIndices(url, 'cli-*');
  const lines: string[] = [];
  for (let i = 0; i < NDJSON_DOCS; i++) {
    if (lines.length + 1 === BAD_LINES[0]) lines.push('{"id": "broken", ');
    if (lines.length + 1 === BAD_LINES[1]) lines.push('["an", "array"]');
    if (lines.length + 1 === BAD_LINES[2]) lines.push(JSON.stringify({ id: 'conflict', n: 'not a number' }));
    const doc = { id: `p${String(i).padStart(5, '0')}`, n: i, group: `g${i % 7}`, title: `word${i % 13} text`, nested: { k: i % 3 } };
    good.set(doc.id, doc);
    lines.push(JSON.stringify(doc));
  }
  await writeFile(join(dir, 'docs.ndjson'), lines.join('\n') + '\n');
});

afterAll(async () => {
  await deleteIndices(url, 'cli-*');
  await rm(dir, { recursive: true, force: true });
});

describe('folio load, dump and reindex', () => {
  it('loads NDJSON, stops on interruption, and resumes to exactly the documents of the file', async () => {
    const file = join(dir, 'docs.ndjson');
    const errors = join(dir, 'docs.errors.ndjson');
    const ac = new AbortController();
    const seen: Checkpoint[] = [];
    const first = await runLoad({
      url,
      file,
      index: 'cli-ndjson',
      shards: 3,
      batch: 200,
      idField: 'id',
      errorsFile: errors,
      quiet: true,
      log: () => {},
      signal: ac.signal,
      onCheckpoint: (c) => {
        seen.push(c);
        if (c.position >= 1000) ac.abort();
      },
    });
    expect(first.interrupted).toBe(true);
    expect(first.checkpointFile).toBe(join(dir, '.folio-load-cli-ndjson.json'));
    const stopped = await readCheckpoint(first.checkpointFile);
    expect(stopped).toMatchObject({ done: false, index: 'cli-ndjson', format: 'ndjson' });
    expect(stopped!.position).toBeGreaterThanOrEqual(1000);
    expect(stopped!.position).toBeLessThan(NDJSON_DOCS);

    // A crash loses the last checkpoint writes: rewind to the first one. The batches after it are
    // sent again; with --id-field they overwrite, so nothing is duplicated.
    await writeCheckpoint(first.checkpointFile, seen[0]);
    const resumed = await runLoad({ url, file, index: 'cli-ndjson', batch: 200, idField: 'id', errorsFile: errors, quiet: true, log: () => {}, resume: true });
    expect(resumed.resumedFrom).toBe(seen[0].position);
    expect(resumed.interrupted).toBe(false);
    expect(resumed.checkpoint).toMatchObject({ done: true, position: NDJSON_DOCS + BAD_LINES.length, docs: NDJSON_DOCS, errors: BAD_LINES.length });
    expect(await count('cli-ndjson')).toBe(NDJSON_DOCS);

    const entries = await readNdjson(errors);
    expect([...new Set(entries.map((e) => e.line))].sort((a, b) => a - b)).toEqual(BAD_LINES);
    expect(entries.find((e) => e.line === BAD_LINES[0])).toMatchObject({ status: null, error: { type: 'parse_error' }, source: '{"id": "broken", ' });
    expect(entries.find((e) => e.line === BAD_LINES[2])).toMatchObject({ id: 'conflict', status: 400, error: { type: 'document_parsing_exception' } });

    const again = await folio('load', file, '-i', 'cli-ndjson', '--resume', '--errors', errors);
    expect(again.code).toBe(2); // complete, with document errors on record
    expect(again.stderr).toContain('was loaded completely already');
  });

  it('loads a CSV through the executable, reporting bad rows with exit code 2', async () => {
    const rows = ['id,name,score,active'];
    for (let i = 0; i < CSV_ROWS; i++) {
      if (i === 700) rows.push('x1,too,few');
      if (i === 1400) rows.push('x2,too,many,cells,here');
      rows.push(`c${i},"Name ${i}, the ${i % 2 ? 'odd' : 'even'}",${(i * 1.5).toFixed(1)},${i % 2 === 0}`);
    }
    await writeFile(join(dir, 'rows.csv'), rows.join('\n') + '\n');
    const r = await folio('load', 'rows.csv', '-i', 'cli-csv', '--shards', '2', '--infer-types', '--id-field', 'id', '--batch', '300');
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^loaded ${CSV_ROWS} docs into \\[cli-csv\\] in [\\d.]+ s \\(\\d+ docs/s\\), 2 errors written to cli-csv.errors.ndjson$`, 'm'),
    );
    expect(await count('cli-csv')).toBe(CSV_ROWS);
    expect((await http(url, 'GET', '/cli-csv/_doc/c3')).body._source).toEqual({ id: 'c3', name: 'Name 3, the odd', score: 4.5, active: false });
    expect((await readNdjson(join(dir, 'cli-csv.errors.ndjson'))).map((e) => [e.line, e.error.type])).toEqual([
      [702, 'parse_error'],
      [1403, 'parse_error'],
    ]);
    const settings = (await http(url, 'GET', '/cli-csv/_settings')).body['cli-csv'].settings.index;
    expect(Number(settings.number_of_shards)).toBe(2);
  });

  it('dumps exactly what was loaded (PIT + search_after), with ids, sorted and filtered', async () => {
    const all = await folio('dump', '-i', 'cli-ndjson', '--with-id', '--size', '333', '-o', 'dump.ndjson');
    expect(all.code, all.stderr).toBe(0);
    const dumped = await readNdjson(join(dir, 'dump.ndjson'));
    expect(dumped).toHaveLength(NDJSON_DOCS);
    expect(new Map(dumped.map((d) => [d._id, d._source]))).toEqual(good);

    const some = await folio('dump', '-i', 'cli-csv', '--query', '{"range": {"score": {"gte": 2900}}}', '--sort', 'score:desc');
    expect(some.code, some.stderr).toBe(0);
    const hits = some.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(hits.map((h) => h.id)).toEqual(Array.from({ length: CSV_ROWS - 1934 }, (_, k) => `c${CSV_ROWS - 1 - k}`));

    // a dump with ids loads back as the same index
    const back = await folio('load', 'dump.ndjson', '-i', 'cli-roundtrip');
    expect(back.code, back.stderr).toBe(0);
    expect((await http(url, 'GET', '/cli-roundtrip/_doc/p00042')).body._source).toEqual(good.get('p00042'));
  });

  it('reindexes with POST /_reindex (task polled) and streamed through the CLI', async () => {
    const server = await folio('reindex', '--source', 'cli-ndjson', '--dest', 'cli-copy', '--batch', '500');
    expect(server.code, server.stderr).toBe(0);
    expect(server.stderr).toMatch(new RegExp(`^reindexed ${NDJSON_DOCS} docs from \\[cli-ndjson\\] to \\[cli-copy\\] \\(task [^)]+\\)`, 'm'));
    expect(await count('cli-copy')).toBe(NDJSON_DOCS);

    const streamed = await runReindex({
      url,
      source: 'cli-csv',
      dest: 'cli-streamed',
      destUrl: url,
      stream: true,
      batch: 400,
      quiet: true,
      errorsFile: join(dir, 's.errors.ndjson'),
    });
    expect(streamed).toMatchObject({ mode: 'stream', docs: CSV_ROWS, errors: 0 });
    const settings = (await http(url, 'GET', '/cli-streamed/_settings')).body['cli-streamed'].settings.index;
    expect(Number(settings.number_of_shards)).toBe(2); // created like the source
    expect((await http(url, 'GET', '/cli-streamed/_doc/c3')).body._source).toEqual({ id: 'c3', name: 'Name 3, the odd', score: 4.5, active: false });
  });
});
