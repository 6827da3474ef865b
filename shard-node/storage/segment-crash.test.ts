/**
 * SIGKILL while segment files are written and while a merge runs: a child process
 * (test/support/segment-crash-child.ts) writes cities to a data directory of its own in bulks,
 * refreshing (segments pile up, background merges run) and flushing (segment files and commit
 * points written); the test kills it with SIGKILL right after it announces a segment-file write or
 * a running merge, after a seeded delay (0-2 ms for a write, 0-19 ms for a merge), and then restarts the shard from the same
 * directory in this process: every acknowledged document must be there with its `_source`, nothing
 * else but whole unacknowledged bulks, the checkpoints without gaps, and searches must agree with
 * the docs. Each round continues the last one's directory. Bounded: 4 rounds of at most 60 s. What
 * the kill left is logged: the segment files and temporary commit points no commit point names
 * (an interrupted write), which the next flush deletes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { q } from '../../test/support/engine-shard.ts';
import { CRASH_INDEX, crashDoc } from '../../test/support/segment-crash-docs.ts';
import { decodeCommitPoint } from '../engine/segment-file/commit-point.ts';
import { searcherOf } from '../engine/searcher.ts';
import { IndexRegistry } from '../index-registry.ts';

const CHILD = join(import.meta.dirname, '../../test/support/segment-crash-child.ts');
const ROUND_MS = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'folio-segcrash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A seeded PRNG (mulberry32) in [0, 1). */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * Runs the child until its `nth` announcement `marker` (W: a segment-file write, M: a merge
 * running), waits `delayMs`, SIGKILLs it. @returns the documents it had acknowledged
 */
function runAndKill(marker: 'W' | 'M', nth: number, delayMs: number): Promise<{ acked: number; started: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acked = 0;
    let started = -1;
    let seen = 0;
    let killed = false;
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), ROUND_MS);
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    let pending = '';
    child.stdout.on('data', (b: Buffer) => {
      pending += b.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('A ')) acked = Number(line.slice(2));
        if (line.startsWith('S ')) started = Number(line.slice(2));
        if (line === marker && ++seen === nth && !killed) {
          killed = true;
          setTimeout(() => child.kill('SIGKILL'), delayMs);
        }
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL' && killed) resolve({ acked, started });
      else reject(new Error(`child ended (${code ?? signal}) before its kill: ${stderr}`));
    });
  });
}

/** The segment files and temporary commit points the newest commit point does not name. */
function leftovers(): string[] {
  const shardDir = join(dir, 'uuid-crash', '0');
  const files = readdirSync(shardDir);
  const newest = Math.max(...files.filter((f) => /^segments_\d+$/.test(f)).map((f) => Number(f.slice(9))));
  const named = new Set(decodeCommitPoint(readFileSync(join(shardDir, `segments_${newest}`)), 'test').segments.map((s) => s.file));
  return files.filter((f) => (f.endsWith('.fseg') && !named.has(f)) || f.endsWith('.tmp') || (/^segments_\d+$/.test(f) && f !== `segments_${newest}`));
}

describe('SIGKILL during segment-file writes and merges', () => {
  const random = prng(16);
  const rounds = [
    { marker: 'W' as const, nth: 3 },
    { marker: 'M' as const, nth: 1 },
    { marker: 'W' as const, nth: 6 },
    { marker: 'M' as const, nth: 2 },
  ];
  for (const [i, round] of rounds.entries()) {
    it(
      `round ${i + 1}: killed at ${round.marker === 'W' ? 'a segment-file write' : 'a running merge'}, the shard is whole on restart`,
      async () => {
        // A segment file takes a few ms to write and fsync: a kill within 0-2 ms of the announcement lands inside the write.
        const delay = Math.floor(random() * (round.marker === 'W' ? 3 : 20));
        const { acked, started } = await runAndKill(round.marker, round.nth, delay);
        expect(started).toBeGreaterThanOrEqual(0);
        expect(acked).toBeGreaterThan(started);
        console.log(
          `round ${i + 1}: acked ${acked}, killed ${delay} ms after ${round.marker} #${round.nth}; left behind: ${leftovers().join(', ') || 'nothing'}`,
        );
        const r = new IndexRegistry('n1', { dataDir: dir });
        try {
          r.recover();
          const s = r.shard(CRASH_INDEX, 0);
          const docs = s.stats().docs;
          // Every acknowledged bulk is there; an unacknowledged one may be too (its commit was under way), whole.
          expect(docs).toBeGreaterThanOrEqual(acked);
          expect((docs - acked) % 150).toBe(0);
          for (let d = 0; d < docs; d++) expect(s.get(`c${d}`)._source, `c${d}`).toBe(crashDoc(d));
          expect(s.get(`c${docs}`).found).toBe(false);
          expect([s.localCheckpoint, s.maxSeqNo]).toEqual([docs - 1, docs - 1]);
          const g = s.acquire();
          expect(searcherOf(g).count()).toBe(docs);
          expect(searcherOf(g).count(q.term('country', 'US'))).toBe(
            Array.from({ length: docs }, (_, d) => crashDoc(d)).filter((j) => (JSON.parse(j) as { country: string }).country === 'US').length,
          );
          s.release(g.id);
        } finally {
          await r.close();
        }
        expect(readdirSync(join(dir, 'uuid-crash', '0')).some((f) => f.startsWith('segments_'))).toBe(true);
      },
      ROUND_MS + 30_000,
    );
  }
});
