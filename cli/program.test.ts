/**
 * The `folio` command line without a cluster: usage errors exit 1, help exits 0, an unreachable
 * cluster is fatal (3), and `npx folio` runs this checkout's bin (never a registry package).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { main } from './program.ts';

const run = async (...args: string[]) => {
  let err = '';
  const code = await main(['node', 'folio', ...args], { err: (t) => (err += t) });
  return { code, err };
};

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('folio command line', () => {
  it('exits 1 on usage errors with the reason', async () => {
    expect(await run('load', 'x.ndjson')).toMatchObject({ code: 1, err: expect.stringContaining("required option '-i, --index <name>' not specified") });
    expect(await run('load', 'x.ndjson', '-i', 'a', '--batch', '0')).toMatchObject({ code: 1, err: expect.stringContaining('expected a positive integer') });
    expect(await run('load', 'x.ndjson', '-i', 'a', '--format', 'xml')).toMatchObject({
      code: 1,
      err: expect.stringContaining('Allowed choices are ndjson, json, csv, tsv'),
    });
    expect(await run('dump', '-i', 'a', '--query', '{nope')).toMatchObject({ code: 1, err: expect.stringContaining('--query is not JSON') });
    expect(await run('dump', '-i', 'a', '--sort', 'n:up')).toMatchObject({ code: 1, err: expect.stringContaining('the order must be asc or desc') });
    expect(await run('reindex', '--source', 'a')).toMatchObject({ code: 1, err: expect.stringContaining("required option '--dest <index>'") });
    expect((await run('frobnicate')).code).toBe(1);
  });

  it('exits 0 for --help', async () => {
    expect((await run('--help')).code).toBe(0);
  });

  it('exits 3 when the cluster cannot be reached, naming the cause', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'folio-prog-'));
    const file = join(dir, 'a.ndjson');
    await writeFile(file, '{"a":1}\n');
    const url = `http://127.0.0.1:${await closedPort()}`;
    const r = await run('--url', url, '-q', 'load', file, '-i', 'a', '--errors', join(dir, 'e.ndjson'));
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^folio: .*ECONNREFUSED|^folio: connect/m);
  });

  it('runs this checkout as `npx --offline folio` and `npm run folio --`, with the pinned Node', async () => {
    const { stdout } = await promisify(execFile)('npx', ['--offline', 'folio', '--help'], { cwd: join(import.meta.dirname, '..'), timeout: 30_000 });
    expect(stdout).toContain('Usage: folio [options] [command]');
    const viaScript = await promisify(execFile)('npm', ['run', '--silent', 'folio', '--', '--help'], { cwd: join(import.meta.dirname, '..'), timeout: 30_000 });
    expect(viaScript.stdout).toContain('Usage: folio [options] [command]');
    const version = await promisify(execFile)('npx', ['--offline', 'node', '--version'], { cwd: join(import.meta.dirname, '..'), timeout: 30_000 });
    expect(version.stdout.trim()).toMatch(/^v24\./);
  });
});
