/**
 * `folio reindex`: copies an index. On one cluster it is the server's `POST /_reindex` run as a
 * task (`wait_for_completion=false`), polled with `GET /_tasks/{id}` for the progress line.
 * Between clusters (`--dest-url` differs from `--url`) the CLI streams: a point-in-time walk of
 * the source feeds `_bulk` batches into the destination, which is created with the source's
 * shard count and mappings when absent.
 */
import { Agent } from 'undici';
import { BULK_CONCURRENCY, BulkSender } from './bulk-sender.ts';
import type { BulkDocument } from './bulk-sender.ts';
import { ErrorsFile } from './errors-file.ts';
import { callOk, trimUrl } from './http.ts';
import { ensureIndex, indexDefinition, refreshIndex } from './index-admin.ts';
import { walkIndex } from './pit-walk.ts';
import { createProgress, docsPerSecond } from './progress.ts';

/** Options of {@link runReindex} (the flags of `folio reindex`). */
export interface ReindexCommandOptions {
  url: string;
  source: string;
  dest: string;
  /** Destination cluster; same as `url` when absent. */
  destUrl?: string;
  /** Stream through the CLI even when both indices are on one cluster. */
  stream?: boolean;
  query?: unknown;
  /** Documents per batch (server `source.size`, or CLI `_bulk` size). */
  batch: number;
  /** Parallel slices: the server's `?slices=`, or sliced PIT walks of a streamed copy. */
  slices?: number;
  /** Errors file of a cross-cluster copy (default `<dest>.errors.ndjson`). */
  errorsFile?: string;
  /** Milliseconds between task polls (default 500). */
  pollMs?: number;
  quiet?: boolean;
}

/** What a reindex did. */
export interface ReindexSummary {
  mode: 'server' | 'stream';
  /** Documents created or updated in the destination. */
  docs: number;
  /** Failed documents (server `failures`, or failed bulk items). */
  errors: number;
  elapsedMs: number;
  docsPerSecond: number;
  task?: string;
}

/** Runs `folio reindex` in the mode the URLs call for. */
export async function runReindex(o: ReindexCommandOptions): Promise<ReindexSummary> {
  const same = o.destUrl === undefined || trimUrl(o.destUrl) === trimUrl(o.url);
  return same && !o.stream ? serverReindex(o) : streamReindex(o);
}

/** Reindex status fields the progress line reads. */
interface TaskStatus {
  total?: number;
  created?: number;
  updated?: number;
}

/** `POST /_reindex?wait_for_completion=false`, then poll the task until it completes. */
async function serverReindex(o: ReindexCommandOptions): Promise<ReindexSummary> {
  const base = trimUrl(o.url);
  const dispatcher = new Agent({ connections: 2 });
  const progress = createProgress(`reindex ${o.source} → ${o.dest}`, !o.quiet);
  try {
    const source: Record<string, unknown> = { index: o.source, size: o.batch };
    if (o.query !== undefined) source.query = o.query;
    const { task } = await callOk<{ task: string }>(
      dispatcher,
      'POST',
      base,
      `/_reindex?wait_for_completion=false&refresh=true${o.slices && o.slices > 1 ? `&slices=${o.slices}` : ''}`,
      { source, dest: { index: o.dest } },
    );
    for (;;) {
      const rec = await callOk<{
        completed: boolean;
        task: { status?: TaskStatus };
        response?: { created?: number; updated?: number; failures?: unknown[] };
        error?: unknown;
      }>(dispatcher, 'GET', base, `/_tasks/${encodeURIComponent(task)}`);
      const st = rec.task.status ?? {};
      progress.update({ docs: (st.created ?? 0) + (st.updated ?? 0), totalDocs: st.total, errors: 0 });
      if (rec.completed) {
        if (rec.error) throw new Error(`reindex task ${task} failed: ${JSON.stringify(rec.error)}`);
        const r = rec.response ?? {};
        const docs = (r.created ?? 0) + (r.updated ?? 0);
        const elapsedMs = progress.stop();
        return { mode: 'server', docs, errors: r.failures?.length ?? 0, elapsedMs, docsPerSecond: docsPerSecond(docs, elapsedMs), task };
      }
      await new Promise((r) => setTimeout(r, o.pollMs ?? 500));
    }
  } finally {
    progress.stop();
    await dispatcher.close();
  }
}

/** Streams the source (PIT + search_after) into `_bulk` batches on the destination cluster. */
async function streamReindex(o: ReindexCommandOptions): Promise<ReindexSummary> {
  const base = trimUrl(o.url);
  const destBase = trimUrl(o.destUrl ?? o.url);
  const sourceAgent = new Agent({ connections: Math.max(2, o.slices ?? 1) });
  const destAgent = new Agent({ connections: BULK_CONCURRENCY + 1 });
  const errorsFile = new ErrorsFile(o.errorsFile ?? `${o.dest}.errors.ndjson`, false);
  const progress = createProgress(`reindex ${o.source} → ${o.dest}`, !o.quiet);
  let total: number | undefined;
  let docs = 0;
  try {
    await ensureIndex(destAgent, destBase, o.dest, await indexDefinition(sourceAgent, base, o.source));
    const sender = new BulkSender({ base: destBase, index: o.dest, dispatcher: destAgent });
    let batch: BulkDocument[] = [];
    const flush = async () => {
      const b = batch;
      batch = [];
      await sender.send(b, async (r) => {
        docs += r.ok;
        await errorsFile.write(r.failures.map((f) => ({ id: f.id, status: f.status, error: f.error, source: b[f.slot].source })));
        progress.update({ docs, totalDocs: total, errors: errorsFile.written });
      });
    };
    for await (const hit of walkIndex(sourceAgent, base, {
      index: o.source,
      query: o.query,
      pageSize: o.batch,
      slices: o.slices,
      onTotal: (t) => (total = t),
    })) {
      batch.push({ _id: hit._id, source: hit._source ?? {} });
      if (batch.length >= o.batch) await flush();
    }
    if (batch.length > 0) await flush();
    await sender.drain();
    await refreshIndex(destAgent, destBase, o.dest);
    const elapsedMs = progress.stop();
    return { mode: 'stream', docs, errors: errorsFile.written, elapsedMs, docsPerSecond: docsPerSecond(docs, elapsedMs) };
  } finally {
    progress.stop();
    await errorsFile.close();
    await Promise.all([sourceAgent.close(), destAgent.close()]);
  }
}
