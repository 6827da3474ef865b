import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFileDurably, readFileIdentity, writeJsonAtomic } from './repository-files.ts';
import { readRepositoryData, readShardSnapshots, writeRepositoryData, writeShardSnapshots, type RepositoryData } from './repository-layout.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-repo-'));
  dirs.push(d);
  return d;
}

const data = (names: string[]): RepositoryData => ({
  snapshots: names.map((name, i) => ({ name, uuid: `u${i}`, state: 'SUCCESS', start_time_in_millis: i, end_time_in_millis: i + 1 })),
  indices: {},
});

describe('the root index-N of a repository', () => {
  it('starts empty at generation -1, and each write is a new generation read back whole; older ones are removed', async () => {
    const dir = tempDir();
    expect(await readRepositoryData(dir)).toEqual({ generation: -1, data: { snapshots: [], indices: {} } });
    let gen = -1;
    for (let i = 1; i <= 5; i++) gen = await writeRepositoryData(dir, gen, data(Array.from({ length: i }, (_, j) => `s${j}`)));
    expect(gen).toBe(4);
    const read = await readRepositoryData(dir);
    expect(read.generation).toBe(4);
    expect(read.data.snapshots.map((s) => s.name)).toEqual(['s0', 's1', 's2', 's3', 's4']);
    expect(readdirSync(dir).sort()).toEqual(['index-4', 'index.latest']); // no temporary file left, older generations gone
  });

  it('a crash before the rename leaves only a temporary file, which readers ignore', async () => {
    const dir = tempDir();
    await writeRepositoryData(dir, -1, data(['a']));
    writeFileSync(join(dir, 'index-1.abc123.tmp'), '{"snapshots": [tr'); // half written
    expect((await readRepositoryData(dir)).data.snapshots.map((s) => s.name)).toEqual(['a']);
  });

  it('refuses to write a generation another writer wrote first', async () => {
    const dir = tempDir();
    const g = await writeRepositoryData(dir, -1, data(['a']));
    await writeRepositoryData(dir, g, data(['a', 'b'])); // the other writer
    await expect(writeRepositoryData(dir, g, data(['a', 'c']))).rejects.toMatchObject({
      status: 500,
      type: 'repository_exception',
      message: `[${dir}] concurrent modification of the index-N file, expected current generation [0], actual current generation [1]`,
    });
    expect((await readRepositoryData(dir)).data.snapshots.map((s) => s.name)).toEqual(['a', 'b']);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps a shard-level index-N the same way', async () => {
    const dir = tempDir();
    const g = await writeShardSnapshots(dir, -1, {
      snapshots: [{ name: 'u1', files: ['__a'] }],
      files: [{ name: '__a', physical_name: '_0.fseg', length: 9, checksum: 'z' }],
    });
    expect(await readShardSnapshots(dir)).toEqual({
      generation: g,
      data: { snapshots: [{ name: 'u1', files: ['__a'] }], files: [{ name: '__a', physical_name: '_0.fseg', length: 9, checksum: 'z' }] },
    });
  });
});

describe('repository files', () => {
  it("reads a file's identity from its Lucene footer and copies it whole", async () => {
    const dir = tempDir();
    const body = Buffer.from('segment bytes');
    const footer = Buffer.alloc(8);
    footer.writeUInt32LE(0xc02893e8, 0);
    footer.writeUInt32LE(123456789, 4);
    writeFileSync(join(dir, '_0.fseg'), Buffer.concat([body, footer]));
    expect(await readFileIdentity(join(dir, '_0.fseg'))).toEqual({ length: body.length + 8, checksum: (123456789).toString(36) });
    expect(await copyFileDurably(join(dir, '_0.fseg'), join(dir, 'copy', '__b'))).toBe(body.length + 8);
    expect(await readFileIdentity(join(dir, 'copy', '__b'))).toEqual(await readFileIdentity(join(dir, '_0.fseg')));
    writeFileSync(join(dir, 'plain'), 'no footer here');
    await expect(readFileIdentity(join(dir, 'plain'))).rejects.toThrow(/no footer magic/);
    await writeJsonAtomic(join(dir, 'deep', 'er', 'x.json'), { a: 1 });
    expect(readdirSync(join(dir, 'deep', 'er'))).toEqual(['x.json']);
  });
});
