/**
 * The checkpoint of `folio load`: the acknowledgement watermark over out-of-order batches, and
 * the file (atomic writes, resumability checks).
 */
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AckTracker, checkResumable, defaultCheckpointPath, readCheckpoint, writeCheckpoint } from './checkpoint.ts';
import type { Checkpoint } from './checkpoint.ts';

describe('AckTracker', () => {
  it('moves only over a prefix of acknowledged batches', () => {
    const t = new AckTracker(10, 5, 1);
    t.cut(0, 20);
    t.cut(1, 30);
    expect(t.ack(1, { docs: 10, errors: 0 })).toBeUndefined();
    t.cut(2, 40);
    expect(t.ack(0, { docs: 9, errors: 1 })).toEqual({ position: 30, docs: 24, errors: 2 });
    expect(t.ack(2, { docs: 10, errors: 0 })).toEqual({ position: 40, docs: 34, errors: 2 });
  });

  it('never passes an unacknowledged batch, whatever the acknowledgement order (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }).chain((n) => fc.tuple(fc.constant(n), fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }))),
        ([n, order]) => {
          const t = new AckTracker(0);
          for (let i = 0; i < n; i++) t.cut(i, (i + 1) * 10);
          const acked = new Set<number>();
          for (const seq of order) {
            t.ack(seq, { docs: 1, errors: 0 });
            acked.add(seq);
            let prefix = 0;
            while (acked.has(prefix)) prefix++;
            expect(t.position).toBe(prefix * 10);
            expect(t.docs).toBe(prefix);
          }
        },
      ),
    );
  });
});

describe('checkpoint file', () => {
  const sample = (input: string): Checkpoint => ({
    version: 1,
    input: resolve(input),
    index: 'books',
    format: 'ndjson',
    position: 42,
    docs: 40,
    errors: 2,
    done: false,
    updatedAt: 'now',
  });

  it('lives beside the input as .folio-load-<index>.json', () => {
    expect(defaultCheckpointPath('/data/in/books.ndjson', 'books')).toBe('/data/in/.folio-load-books.json');
    expect(defaultCheckpointPath('/data/x.csv', 'a/b*c')).toBe('/data/.folio-load-a_b_c.json');
  });

  it('round-trips atomically, is absent before the first write, and checks input and index', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'folio-ckpt-'));
    const path = join(dir, '.folio-load-books.json');
    expect(await readCheckpoint(path)).toBeUndefined();
    const c = sample(join(dir, 'books.ndjson'));
    await writeCheckpoint(path, c);
    await writeCheckpoint(path, { ...c, position: 50 });
    expect(await readCheckpoint(path)).toEqual({ ...c, position: 50 });
    expect(await readdir(dir)).toEqual(['.folio-load-books.json']); // no temporary file left
    expect(() => checkResumable(c, join(dir, 'books.ndjson'), 'books')).not.toThrow();
    expect(() => checkResumable(c, join(dir, 'other.ndjson'), 'books')).toThrow(/the checkpoint is for input/);
    expect(() => checkResumable(c, join(dir, 'books.ndjson'), 'films')).toThrow('the checkpoint is for index [books], not [films]');
  });
});
