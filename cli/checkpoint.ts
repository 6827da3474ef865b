/**
 * Resumable loads: the checkpoint file and the acknowledgement watermark behind it.
 * Batches are cut in input order but may be acknowledged out of order (2 in flight), so the
 * checkpoint is the end position of the longest prefix of batches that are all acknowledged:
 * every record at or before it is in the index or in the errors file.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/** What `.folio-load-<index>.json` holds. */
export interface Checkpoint {
  version: 1;
  /** Absolute path of the input file. */
  input: string;
  index: string;
  format: string;
  /** Last input position (line or record number) whose batch, and every earlier one, was acknowledged. */
  position: number;
  /** Documents indexed and records failed up to `position`. */
  docs: number;
  errors: number;
  /** True once the whole input was acknowledged. */
  done: boolean;
  updatedAt: string;
}

/** `.folio-load-<index>.json` in the input file's directory. */
export function defaultCheckpointPath(input: string, index: string): string {
  return join(dirname(resolve(input)), `.folio-load-${index.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

/** The checkpoint at `path`, or undefined when there is none. */
export async function readCheckpoint(path: string): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const c = JSON.parse(text) as Checkpoint;
  if (c.version !== 1 || !Number.isInteger(c.position) || c.position < 0) throw new Error(`${path} is not a folio load checkpoint`);
  return c;
}

/** Writes the checkpoint atomically (a temporary file renamed over the old one). */
export async function writeCheckpoint(path: string, c: Checkpoint): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  await writeFile(tmp, JSON.stringify(c, null, 2) + '\n');
  await rename(tmp, path);
}

/**
 * Checks that a checkpoint belongs to this load: same input file and index.
 * @throws Error naming the mismatch.
 */
export function checkResumable(c: Checkpoint, input: string, index: string): void {
  if (c.input !== resolve(input)) throw new Error(`the checkpoint is for input [${c.input}], not [${resolve(input)}]`);
  if (c.index !== index) throw new Error(`the checkpoint is for index [${c.index}], not [${index}]`);
}

/** Counts carried by one batch towards the checkpoint. */
export interface BatchCounts {
  docs: number;
  errors: number;
}

/**
 * The acknowledgement watermark over batches numbered 0, 1, 2, … in input order.
 * @example
 * const t = new AckTracker(0);
 * t.cut(0, 100); t.cut(1, 200);
 * t.ack(1, {docs: 100, errors: 0}); // undefined: batch 0 is still in flight
 * t.ack(0, {docs: 100, errors: 0}); // {position: 200, docs: 200, errors: 0}
 */
export class AckTracker {
  private readonly ends = new Map<number, number>();
  private readonly acked = new Map<number, BatchCounts>();
  private next = 0;
  /** The current watermark: position and counts up to it. */
  position: number;
  docs: number;
  errors: number;

  constructor(position: number, docs = 0, errors = 0) {
    this.position = position;
    this.docs = docs;
    this.errors = errors;
  }

  /** Records that batch `seq` covers the input up to and including `endPosition`. */
  cut(seq: number, endPosition: number): void {
    this.ends.set(seq, endPosition);
  }

  /** Marks batch `seq` acknowledged; returns the new watermark when it moved, else undefined. */
  ack(seq: number, counts: BatchCounts): { position: number; docs: number; errors: number } | undefined {
    this.acked.set(seq, counts);
    let moved = false;
    while (this.acked.has(this.next) && this.ends.has(this.next)) {
      const c = this.acked.get(this.next) as BatchCounts;
      this.position = this.ends.get(this.next) as number;
      this.docs += c.docs;
      this.errors += c.errors;
      this.acked.delete(this.next);
      this.ends.delete(this.next);
      this.next++;
      moved = true;
    }
    return moved ? { position: this.position, docs: this.docs, errors: this.errors } : undefined;
  }
}
