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
import type { Progress } from './progress.ts';

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

/** Where a load starts (step 1). */
interface StartPoint {
  format: InputFormat;
  /** What a position counts: records of a JSON array, else lines. */
  posKey: 'line' | 'record';
  checkpointFile: string;
  /** The checkpoint file's content before this run, if any. */
  previous: Checkpoint | undefined;
  /** The position and counts this run starts after (the previous checkpoint's with --resume, else 0). */
  start: { position: number; docs: number; errors: number };
}

/** One run's state, shared by its steps. */
interface LoadRun extends StartPoint {
  o: LoadCommandOptions;
  /** The checkpoint as this run moves it (written to `checkpointFile`). */
  checkpoint: Checkpoint;
  errorsFile: ErrorsFile;
  tracker: AckTracker;
  progress: Progress;
  /** The input's size in bytes (the progress bar's total). */
  size: number;
  /** Documents indexed and records failed by this run, and the input bytes read so far. */
  docs: number;
  errors: number;
  bytesRead: number;
  interrupted: boolean;
}

/** Runs `folio load`; throws only on fatal errors (HTTP errors other than retried ones, I/O). */
export async function runLoad(o: LoadCommandOptions): Promise<LoadSummary> {
  const log = o.log ?? ((l: string) => process.stderr.write(l + '\n'));
  const base = trimUrl(o.url);
  // 1. format and resume point
  const startPoint = await findStartPoint(o, log);
  const { format, start } = startPoint;
  const checkpoint: Checkpoint = {
    version: 1,
    input: resolve(o.file),
    index: o.index,
    format,
    position: start.position,
    docs: start.docs,
    errors: start.errors,
    done: false,
    updatedAt: new Date().toISOString(),
  };
  const errorsFile = new ErrorsFile(o.errorsFile ?? `${o.index}.errors.ndjson`, o.resume === true);
  const tracker = new AckTracker(start.position, start.docs, start.errors);
  const dispatcher = new Agent({ connections: BULK_CONCURRENCY + 1 });
  const size = (await stat(o.file)).size;
  const progress = createProgress(`load ${o.index}`, !o.quiet);
  const run: LoadRun = { ...startPoint, o, checkpoint, errorsFile, tracker, progress, size, docs: 0, errors: 0, bytesRead: 0, interrupted: false };
  try {
    if (o.resume && startPoint.previous?.done) {
      return loadSummary(run, 0);
    }
    // 2. the index
    const created = await ensureIndex(dispatcher, base, o.index, o.shards ? { settings: { number_of_shards: o.shards } } : {});
    if (!created && o.shards) log(`note: index [${o.index}] exists; --shards ${o.shards} ignored`);

    // 4. acknowledgements: errors first, then the checkpoint (serialised, so writes never race)
    const acks = batchSettler(run);
    const sender = new BulkSender({ base, index: o.index, dispatcher });

    // 3. read and cut batches
    await readBatches(run, (b) => (b.docs.length === 0 ? acks.settle(b, { ok: 0, failures: [] }) : sender.send(b.docs, (r) => acks.settle(b, r))));
    await sender.drain();
    await acks.settled();

    // 5. refresh and finish
    if (!run.interrupted) {
      if (o.refresh !== false) await refreshIndex(dispatcher, base, o.index);
      checkpoint.done = true;
      checkpoint.updatedAt = new Date().toISOString();
      await writeCheckpoint(run.checkpointFile, checkpoint);
    }
    return loadSummary(run, progress.stop());
  } finally {
    progress.stop();
    await errorsFile.close();
    await dispatcher.close();
  }
}

/**
 * Step 1: the input format (`o.format`, else detected) and the resume point: the checkpoint's
 * with `--resume`, else the beginning (with a note when the checkpoint holds an unfinished load).
 * @throws Error when `--resume` finds a checkpoint of another input or index (checkResumable)
 */
async function findStartPoint(o: LoadCommandOptions, log: (line: string) => void): Promise<StartPoint> {
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
  return { format, posKey, checkpointFile, previous, start };
}

/**
 * Step 4: settles each acknowledged batch: its failed items and its bad records go to the errors
 * file in input order, then the checkpoint moves once every earlier batch is acknowledged
 * (AckTracker). Settlements run one after the other, so writes never race; `settled` waits for
 * every settlement asked for so far.
 */
function batchSettler(run: LoadRun): { settle: (batch: Batch, result: BatchResult) => Promise<void>; settled: () => Promise<void> } {
  const { o, posKey, errorsFile, tracker, checkpoint, checkpointFile, progress, start, size } = run;
  let serial = Promise.resolve();
  const settle = (batch: Batch, result: BatchResult): Promise<void> => {
    serial = serial.then(async () => {
      const failed: ErrorEntry[] = result.failures.map((f) => ({
        [posKey]: batch.positions[f.slot],
        id: f.id,
        status: f.status,
        error: f.error,
        source: batch.docs[f.slot].source,
      }));
      const entries = [...batch.bad, ...failed].sort((a, b) => ((a.line ?? a.record) as number) - ((b.line ?? b.record) as number));
      await errorsFile.write(entries);
      run.docs += result.ok;
      run.errors += entries.length;
      const moved = tracker.ack(batch.seq, { docs: result.ok, errors: entries.length });
      if (moved) {
        Object.assign(checkpoint, moved, { updatedAt: new Date().toISOString() });
        await writeCheckpoint(checkpointFile, checkpoint);
        o.onCheckpoint?.({ ...checkpoint });
      }
      progress.update({ docs: start.docs + run.docs, errors: start.errors + run.errors, value: run.bytesRead, total: size });
    });
    return serial;
  };
  return { settle, settled: () => serial };
}

/**
 * Step 3: reads the records after `run.start.position` and cuts them into batches of `o.batch`
 * documents (or bad records), marking each batch's end position in the tracker before `send`
 * takes it; a last batch, empty or not, ends at the last position read. An aborted `o.signal`
 * stops the read (`run.interrupted`).
 */
async function readBatches(run: LoadRun, send: (batch: Batch) => Promise<void>): Promise<void> {
  const { o, format, posKey, start, tracker, progress, size } = run;
  const input = createReadStream(o.file, { start: 0, highWaterMark: 1 << 20 });
  input.on('data', (chunk) => (run.bytesRead += chunk.length));
  let batch: Batch = { seq: 0, docs: [], positions: [], bad: [] };
  const cut = async (end: number) => {
    const b = batch;
    batch = { seq: b.seq + 1, docs: [], positions: [], bad: [] };
    tracker.cut(b.seq, end);
    await send(b);
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
        run.interrupted = true;
        break;
      }
    }
  } finally {
    input.destroy();
  }
  if (batch.docs.length > 0 || batch.bad.length > 0 || last > start.position) await cut(last);
}

/** What {@link runLoad} reports, `elapsedMs` after its start. */
function loadSummary(run: LoadRun, elapsedMs: number): LoadSummary {
  const { o, format, docs, errors, start, checkpoint, interrupted, errorsFile, checkpointFile } = run;
  return {
    index: o.index,
    format,
    docs,
    errors,
    resumedFrom: start.position,
    checkpoint: { ...checkpoint },
    interrupted,
    elapsedMs,
    docsPerSecond: docsPerSecond(docs, elapsedMs),
    errorsFile: errorsFile.path,
    checkpointFile,
  };
}
