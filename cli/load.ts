/**
 * `folio load`: streams a file (NDJSON, JSON array, CSV/TSV) into an index through `_bulk`, as a
 * numbered recipe: 1. pick the format and the resume point, 2. create the index when absent,
 * 3. read records and cut batches (bad records ride along with the batch they were read in),
 * 4. send batches 2 at a time, writing failed items to the errors file and moving the checkpoint
 * once every earlier batch is acknowledged, 5. refresh and mark the checkpoint done.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Agent } from 'undici';
import { BULK_CONCURRENCY, BulkSender } from './bulk-sender.ts';
import type { BatchResult, BulkDocument } from './bulk-sender.ts';
import { AckTracker, checkResumable, defaultCheckpointPath, readCheckpoint, writeCheckpoint } from './checkpoint.ts';
import type { Checkpoint } from './checkpoint.ts';
import { ErrorsFile, parseErrorEntry } from './errors-file.ts';
import type { ErrorEntry } from './errors-file.ts';
import { trimUrl } from './http.ts';
import { ensureIndex, refreshIndex } from './index-admin.ts';
import { detectFormat, readRecords } from './input/index.ts';
import type { InputFormat } from './input/index.ts';
import { createProgress, docsPerSecond } from './progress.ts';

/** Options of {@link runLoad} (the flags of `folio load`). */
export interface LoadCommandOptions {
  url: string;
  file: string;
  index: string;
  /** `number_of_shards` when the index is created. */
  shards?: number;
  /** Documents per `_bulk` request. */
  batch: number;
  format?: InputFormat;
  idField?: string;
  inferTypes?: boolean;
  /** Default `<index>.errors.ndjson` in the working directory. */
  errorsFile?: string;
  /** Default `.folio-load-<index>.json` beside the input. */
  checkpoint?: string;
  resume?: boolean;
  /** Refresh the index at the end (default true). */
  refresh?: boolean;
  quiet?: boolean;
  /** Aborting stops reading; batches in flight finish and the checkpoint is written. */
  signal?: AbortSignal;
  /** Called whenever the checkpoint moves (tests use it to interrupt). */
  onCheckpoint?: (c: Checkpoint) => void;
  /** Where notes go (default stderr). */
  log?: (line: string) => void;
}

/** What a load did. */
export interface LoadSummary {
  index: string;
  format: InputFormat;
  /** Documents indexed and records failed by this run. */
  docs: number;
  errors: number;
  /** The checkpoint position this run started after (0 = from the beginning). */
  resumedFrom: number;
  /** The checkpoint at the end. */
  checkpoint: Checkpoint;
  interrupted: boolean;
  elapsedMs: number;
  docsPerSecond: number;
  errorsFile: string;
  checkpointFile: string;
}

/** One batch: documents with their input positions, and the bad records read alongside. */
interface Batch {
  seq: number;
  docs: BulkDocument[];
  positions: number[];
  bad: ErrorEntry[];
}

/** Runs `folio load`; throws only on fatal errors (HTTP errors other than retried ones, I/O). */
export async function runLoad(o: LoadCommandOptions): Promise<LoadSummary> {
  const log = o.log ?? ((l: string) => process.stderr.write(l + '\n'));
  const base = trimUrl(o.url);
  // 1. format and resume point
  const format = o.format ?? (await detectFormat(o.file));
  const posKey = format === 'json' ? 'record' : 'line';
  const checkpointFile = o.checkpoint ?? defaultCheckpointPath(o.file, o.index);
  const previous = await readCheckpoint(checkpointFile);
  let start = { position: 0, docs: 0, errors: 0 };
  if (o.resume && previous) {
    checkResumable(previous, o.file, o.index);
    start = previous;
    if (previous.done) log(`${o.file} was loaded completely already (checkpoint ${checkpointFile})`);
    else log(`resuming after ${posKey} ${previous.position} (${previous.docs} docs, ${previous.errors} errors so far)`);
  } else if (previous && !previous.done) {
    log(`note: ${checkpointFile} holds an unfinished load; starting from the beginning (pass --resume to continue it)`);
  }
  const checkpoint: Checkpoint = {
    version: 1, input: resolve(o.file), index: o.index, format, position: start.position,
    docs: start.docs, errors: start.errors, done: false, updatedAt: new Date().toISOString(),
  };
  const errorsFile = new ErrorsFile(o.errorsFile ?? `${o.index}.errors.ndjson`, o.resume === true);
  const tracker = new AckTracker(start.position, start.docs, start.errors);
  const dispatcher = new Agent({ connections: BULK_CONCURRENCY + 1 });
  const size = (await stat(o.file)).size;
  const progress = createProgress(`load ${o.index}`, !o.quiet);
  let docs = 0;
  let errors = 0;
  let bytesRead = 0;
  let interrupted = false;
  try {
    if (o.resume && previous?.done) {
      return summary(0);
    }
    // 2. the index
    const created = await ensureIndex(dispatcher, base, o.index, o.shards ? { settings: { number_of_shards: o.shards } } : {});
    if (!created && o.shards) log(`note: index [${o.index}] exists; --shards ${o.shards} ignored`);

    // 4. acknowledgements: errors first, then the checkpoint (serialised, so writes never race)
    let serial = Promise.resolve();
    const settle = (batch: Batch, result: BatchResult): Promise<void> => {
      serial = serial.then(async () => {
        const failed: ErrorEntry[] = result.failures.map((f) => ({
          [posKey]: batch.positions[f.slot], id: f.id, status: f.status, error: f.error, source: batch.docs[f.slot].source,
        }));
        const entries = [...batch.bad, ...failed].sort((a, b) => ((a.line ?? a.record) as number) - ((b.line ?? b.record) as number));
        await errorsFile.write(entries);
        docs += result.ok;
        errors += entries.length;
        const moved = tracker.ack(batch.seq, { docs: result.ok, errors: entries.length });
        if (moved) {
          Object.assign(checkpoint, moved, { updatedAt: new Date().toISOString() });
          await writeCheckpoint(checkpointFile, checkpoint);
          o.onCheckpoint?.({ ...checkpoint });
        }
        progress.update({ docs: start.docs + docs, errors: start.errors + errors, value: bytesRead, total: size });
      });
      return serial;
    };
    const sender = new BulkSender({ base, index: o.index, dispatcher });

    // 3. read and cut batches
    const input = createReadStream(o.file, { start: 0, highWaterMark: 1 << 20 });
    input.on('data', (chunk) => (bytesRead += chunk.length));
    let batch: Batch = { seq: 0, docs: [], positions: [], bad: [] };
    const cut = async (end: number) => {
      const b = batch;
      batch = { seq: b.seq + 1, docs: [], positions: [], bad: [] };
      tracker.cut(b.seq, end);
      if (b.docs.length === 0) await settle(b, { ok: 0, failures: [] });
      else await sender.send(b.docs, (r) => settle(b, r));
    };
    let last = start.position;
    progress.update({ docs: start.docs, errors: start.errors, value: 0, total: size });
    try {
      for await (const rec of readRecords(input, format, { idField: o.idField, inferTypes: o.inferTypes, skipThrough: start.position })) {
        last = rec.position;
        if (rec.doc) {
          batch.docs.push(rec.doc);
          batch.positions.push(rec.position);
        } else {
          batch.bad.push(parseErrorEntry(posKey, rec.position, rec.error, rec.raw));
        }
        if (batch.docs.length >= o.batch || batch.bad.length >= o.batch) await cut(last);
        if (o.signal?.aborted) {
          interrupted = true;
          break;
        }
      }
    } finally {
      input.destroy();
    }
    if (batch.docs.length > 0 || batch.bad.length > 0 || last > start.position) await cut(last);
    await sender.drain();
    await serial;

    // 5. refresh and finish
    if (!interrupted) {
      if (o.refresh !== false) await refreshIndex(dispatcher, base, o.index);
      checkpoint.done = true;
      checkpoint.updatedAt = new Date().toISOString();
      await writeCheckpoint(checkpointFile, checkpoint);
    }
    return summary(progress.stop());
  } finally {
    progress.stop();
    await errorsFile.close();
    await dispatcher.close();
  }

  function summary(elapsedMs: number): LoadSummary {
    return {
      index: o.index, format, docs, errors, resumedFrom: start.position, checkpoint: { ...checkpoint }, interrupted, elapsedMs,
      docsPerSecond: docsPerSecond(docs, elapsedMs), errorsFile: errorsFile.path, checkpointFile,
    };
  }
}
