import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SNAPSHOT_BYTES_PER_SEC, parseBytesPerSec, RateLimiter } from './rate-limiter.ts';
import { copyFileDurably } from './repository-files.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('repository copy rates', () => {
  it("parses ES byte sizes, 0 and -1 as unlimited, and refuses others with ES's text", () => {
    expect(parseBytesPerSec('s', undefined, DEFAULT_MAX_SNAPSHOT_BYTES_PER_SEC)).toBe(40 * 1024 * 1024);
    expect(parseBytesPerSec('s', '40mb', 0)).toBe(40 * 1024 * 1024);
    expect(parseBytesPerSec('s', '1.5KB', 0)).toBe(1536);
    expect(parseBytesPerSec('s', '512b', 0)).toBe(512);
    expect(parseBytesPerSec('s', '0', 5)).toBe(0);
    expect(parseBytesPerSec('s', '-1', 5)).toBe(0);
    expect(() => parseBytesPerSec('max_snapshot_bytes_per_sec', '40', 0)).toThrow(
      'failed to parse setting [max_snapshot_bytes_per_sec] with value [40] as a size in bytes: unit is missing or unrecognized',
    );
  });

  it('a limiter lets the first bytes through and then holds a copy to its rate', async () => {
    const limiter = new RateLimiter(1024 * 1024);
    expect(await limiter.pause(100 * 1024)).toBe(0);
    const waited = await limiter.pause(100 * 1024); // ~98 ms behind the first
    expect(waited).toBeGreaterThan(80);
    expect(await new RateLimiter(0).pause(1e9)).toBe(0);
  });

  it('a throttled copy of 1 MiB at 2 MiB/s takes about half a second', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-rate-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'src'), Buffer.alloc(1024 * 1024, 1));
    const started = performance.now();
    expect(await copyFileDurably(join(dir, 'src'), join(dir, 'dst'), new RateLimiter(2 * 1024 * 1024))).toBe(1024 * 1024);
    // Four 256 KiB chunks: the first is free, each next one waits 125 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
  });
});
