import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { FileRecoverySources } from './recovery-file-sources.ts';
import { fileMatches } from './recovery-file-target.ts';

/** A file with a segment file's footer (magic, CRC32 of every byte before it): its name, length and checksum. */
function footed(dir: string, name: string, body: Buffer): { name: string; length: number; checksum: string } {
  const head = Buffer.concat([body, Buffer.from([0xe8, 0x93, 0x28, 0xc0])]); // 0xC02893E8 little-endian
  const crc = crc32(head);
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(crc, 0);
  writeFileSync(join(dir, name), Buffer.concat([head, tail]));
  return { name, length: head.length + 4, checksum: crc.toString(36) };
}

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileRecoverySources', () => {
  it('reads ranges of a pinned file, refuses other files and ranges, releases the pin once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'filerec-'));
    const meta = footed(dir, '_0.fseg', Buffer.from('0123456789'));
    let released = 0;
    const sources = new FileRecoverySources();
    sources.limiter.bytesPerSec = 0;
    const id = sources.open('i', 0, 1, { dir, files: [meta], release: () => released++ });
    expect((await sources.read(id, 'i', 0, '_0.fseg', 2, 4, 0)).bytes.toString()).toBe('2345');
    expect((await sources.read(id, 'i', 0, '_0.fseg', 16, 100, 0)).bytes.length).toBe(meta.length - 16); // the file's end
    await expect(sources.read(id, 'i', 0, 'other', 0, 1)).rejects.toMatchObject({ status: 400, type: 'illegal_argument_exception' });
    await expect(sources.read(id, 'i', 0, '_0.fseg', meta.length + 1, 1)).rejects.toMatchObject({ status: 400, type: 'illegal_argument_exception' });
    // A new recovery of the same copy replaces the pin.
    const id2 = sources.open('i', 0, 1, { dir, files: [meta], release: () => released++ });
    expect(released).toBe(1);
    await expect(sources.read(id, 'i', 0, '_0.fseg', 0, 1)).rejects.toMatchObject({ status: 404, type: 'resource_not_found_exception' });
    sources.release(id2);
    sources.release(id2);
    expect(released).toBe(2);
    expect(sources.size).toBe(0);
  });

  it('releases a pin left idle', () => {
    dir = mkdtempSync(join(tmpdir(), 'filerec-'));
    let t = 0;
    let released = 0;
    const sources = new FileRecoverySources(1_000, () => t);
    sources.open('i', 0, 1, { dir, files: [], release: () => released++ });
    t = 999;
    expect(sources.sweep()).toBe(0);
    t = 1_000;
    expect(sources.sweep()).toBe(1);
    expect(released).toBe(1);
  });
});

describe('fileMatches', () => {
  it('a whole file with the same length and CRC32 matches; a flipped byte or a short file does not', async () => {
    dir = mkdtempSync(join(tmpdir(), 'filerec-'));
    const meta = footed(dir, 'a', Buffer.alloc(3000, 7));
    expect(await fileMatches(join(dir, 'a'), meta)).toBe(true);
    const bytes = readFileSync(join(dir, 'a'));
    bytes[10] ^= 1;
    writeFileSync(join(dir, 'b'), bytes);
    expect(await fileMatches(join(dir, 'b'), meta)).toBe(false);
    writeFileSync(join(dir, 'c'), bytes.subarray(0, 100));
    expect(await fileMatches(join(dir, 'c'), meta)).toBe(false);
    expect(await fileMatches(join(dir, 'missing'), meta)).toBe(false);
  });
});
