import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyFileDurably } from './repository-files.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('copying a repository file', () => {
  it('streams a large file without holding the event loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-copy-'));
    dirs.push(dir);
    const size = 48 * 1024 * 1024;
    writeFileSync(join(dir, 'big'), Buffer.alloc(size, 7));
    // A timer that should fire every 5 ms: the longest gap between its ticks is the longest event-loop stall.
    const started = performance.now();
    let last = started;
    let longest = 0;
    let ticks = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      ticks++;
    }, 5);
    let elapsed: number;
    try {
      expect(await copyFileDurably(join(dir, 'big'), join(dir, 'copy'))).toBe(size);
      elapsed = performance.now() - started;
    } finally {
      clearInterval(timer);
    }
    // A synchronous copy (about 150 ms here) holds the loop for its whole duration: no tick until it
    // ends. A streamed one holds it for one 256 KiB chunk at a time, so the timer keeps ticking.
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect(longest).toBeLessThan(elapsed / 2);
  });
});
