/**
 * Loads a sample data set into a running Folio (or Elasticsearch) through the public API:
 * `HEAD /{index}`, `PUT /{index}` when absent, NDJSON `POST /_bulk` batches (2 in flight), then
 * `POST /{index}/_refresh`.
 * @see https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-bulk
 */
import { Agent, request } from 'undici';
import type { BulkDoc, Sample } from './sample.ts';

/** Bulk requests in flight at once. */
const BULK_CONCURRENCY = 2;
/** Deadline of one HTTP call (headers and body each), generous for large bulk batches. */
const REQUEST_TIMEOUT_MS = 120_000;

/** Options of {@link loadSample}. */
export interface LoadOptions {
  /** Called after each acknowledged batch with documents done and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Documents per `_bulk` request (default 5000). */
  batchDocs?: number;
  /** Overrides `number_of_shards` of the sample's index definition. */
  shards?: number;
  /** Overrides the index name (default: the sample's name). */
  indexName?: string;
}

/** What {@link loadSample} did. */
export interface LoadResult {
  index: string;
  /** True when the index was created, false when it existed already. */
  created: boolean;
  /** Documents sent (and acknowledged without error). */
  docs: number;
}

/** An ES bulk response item (`{ index: {...} }`). */
interface BulkItem {
  [action: string]: { _id?: string; status: number; error?: { type: string; reason: string } };
}

/** Sends one request and returns status + parsed JSON (or text) body; the body is always consumed. */
async function call(
  dispatcher: Agent,
  method: 'HEAD' | 'PUT' | 'POST',
  url: string,
  body?: string,
  contentType = 'application/json',
): Promise<{ status: number; json: unknown; text: string }> {
  const res = await request(url, {
    method,
    dispatcher,
    body,
    headers: body === undefined ? {} : { 'content-type': contentType },
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
  const text = method === 'HEAD' ? (await res.body.dump(), '') : await res.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, text };
}

/** One `_bulk` body: an `index` action line and a source line per document, `\n`-terminated. */
export function bulkBody(index: string, docs: BulkDoc[]): string {
  let out = '';
  for (const d of docs) out += `${JSON.stringify({ index: { _index: index, _id: d._id } })}\n${JSON.stringify(d.source)}\n`;
  return out;
}

/** Throws on a non-200 bulk reply or on the first failed item of an `errors: true` reply. */
function checkBulkResponse(index: string, res: { status: number; json: unknown; text: string }): void {
  if (res.status !== 200) throw new Error(`POST /_bulk into [${index}] returned HTTP ${res.status}: ${res.text.slice(0, 2000)}`);
  const reply = res.json as { errors?: boolean; items?: BulkItem[] } | undefined;
  if (!reply || !Array.isArray(reply.items)) throw new Error(`POST /_bulk into [${index}] returned no items: ${res.text.slice(0, 2000)}`);
  if (!reply.errors) return;
  for (const item of reply.items) {
    const [action, result] = Object.entries(item)[0] ?? [];
    if (result && (result.error || result.status >= 300)) {
      throw new Error(`bulk ${action} of [${index}/${result._id}] failed with status ${result.status}: ${JSON.stringify(result.error)}`);
    }
  }
  throw new Error(`POST /_bulk into [${index}] reported errors: true without a failed item`);
}

/** True when `HEAD /{index}` answers 200 (404 = absent; anything else throws). */
export async function indexExists(coordinatorUrl: string, index: string, dispatcher?: Agent): Promise<boolean> {
  const agent = dispatcher ?? new Agent();
  try {
    const res = await call(agent, 'HEAD', `${coordinatorUrl}/${encodeURIComponent(index)}`);
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    throw new Error(`HEAD /${index} returned HTTP ${res.status}`);
  } finally {
    if (!dispatcher) await agent.close();
  }
}

/**
 * Creates the sample's index (unless `HEAD /{index}` finds it) and indexes every document in
 * `batchDocs`-sized `_bulk` requests, two in flight, then refreshes the index.
 * Throws on any HTTP error and on the first failed bulk item (with its ES error).
 */
export async function loadSample(coordinatorUrl: string, sample: Sample, opts: LoadOptions = {}): Promise<LoadResult> {
  const base = coordinatorUrl.replace(/\/+$/, '');
  const index = opts.indexName ?? sample.name;
  const batchDocs = opts.batchDocs ?? 5000;
  if (!Number.isInteger(batchDocs) || batchDocs < 1) throw new RangeError(`batchDocs must be a positive integer, got [${batchDocs}]`);
  const dispatcher = new Agent({ connections: BULK_CONCURRENCY + 1 });
  try {
    let created = false;
    if (!(await indexExists(base, index, dispatcher))) {
      const definition = { ...sample.index, settings: { ...sample.index.settings, ...(opts.shards ? { number_of_shards: opts.shards } : {}) } };
      const res = await call(dispatcher, 'PUT', `${base}/${encodeURIComponent(index)}`, JSON.stringify(definition));
      if (res.status !== 200) throw new Error(`PUT /${index} returned HTTP ${res.status}: ${res.text.slice(0, 2000)}`);
      created = true;
    }

    const total = sample.count();
    let done = 0;
    const inFlight = new Set<Promise<void>>();
    let failure: unknown;
    const send = (docs: BulkDoc[]) => {
      const p = call(dispatcher, 'POST', `${base}/_bulk`, bulkBody(index, docs), 'application/x-ndjson')
        .then((res) => {
          checkBulkResponse(index, res);
          done += docs.length;
          opts.onProgress?.(done, total);
        })
        .catch((err: unknown) => {
          failure ??= err;
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    };

    opts.onProgress?.(0, total);
    let batch: BulkDoc[] = [];
    for (const doc of sample.docs()) {
      batch.push(doc);
      if (batch.length < batchDocs) continue;
      send(batch);
      batch = [];
      while (inFlight.size >= BULK_CONCURRENCY) await Promise.race(inFlight);
      if (failure) break;
    }
    if (!failure && batch.length > 0) send(batch);
    await Promise.all(inFlight);
    if (failure) throw failure;

    const refresh = await call(dispatcher, 'POST', `${base}/${encodeURIComponent(index)}/_refresh`);
    if (refresh.status !== 200) throw new Error(`POST /${index}/_refresh returned HTTP ${refresh.status}: ${refresh.text.slice(0, 2000)}`);
    return { index, created, docs: done };
  } finally {
    await dispatcher.close();
  }
}
