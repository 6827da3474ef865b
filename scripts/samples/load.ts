/**
 * Loads a sample data set into a running Folio (or Elasticsearch) through the public API:
 * `HEAD /{index}`, `PUT /{index}` when absent, NDJSON `POST /_bulk` batches (2 in flight, through
 * the CLI's {@link BulkSender}), then `POST /{index}/_refresh`.
 * @see https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-bulk
 */
import { Agent } from 'undici';
import { BULK_CONCURRENCY, BulkSender } from '../../cli/bulk-sender.ts';
import { call, callOk, trimUrl } from '../../cli/http.ts';
import type { BulkDoc, Sample } from './sample.ts';

/** Options of {@link loadSample}. */
export interface LoadOptions {
  /** Called after each acknowledged batch with documents done and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Documents per `_bulk` request (default 5000). */
  batchDocs?: number;
  /** Overrides `number_of_shards` of the sample's index definition. */
  shards?: number;
  /** Overrides `number_of_replicas` of the sample's index definition (benches load with 0, as Rally's tracks). */
  replicas?: number;
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

/** True when `HEAD /{index}` answers 200 (404 = absent; anything else throws). */
export async function indexExists(coordinatorUrl: string, index: string, dispatcher?: Agent): Promise<boolean> {
  const agent = dispatcher ?? new Agent();
  try {
    const res = await call(agent, 'HEAD', `${trimUrl(coordinatorUrl)}/${encodeURIComponent(index)}`);
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
  const base = trimUrl(coordinatorUrl);
  const index = opts.indexName ?? sample.name;
  const batchDocs = opts.batchDocs ?? 5000;
  if (!Number.isInteger(batchDocs) || batchDocs < 1) throw new RangeError(`batchDocs must be a positive integer, got [${batchDocs}]`);
  const dispatcher = new Agent({ connections: BULK_CONCURRENCY + 1 });
  try {
    let created = false;
    if (!(await indexExists(base, index, dispatcher))) {
      const overrides = { ...(opts.shards ? { number_of_shards: opts.shards } : {}), ...(opts.replicas !== undefined ? { number_of_replicas: opts.replicas } : {}) };
      const definition = { ...sample.index, settings: { ...sample.index.settings, ...overrides } };
      await callOk(dispatcher, 'PUT', base, `/${encodeURIComponent(index)}`, definition);
      created = true;
    }

    const total = sample.count();
    let done = 0;
    const sender = new BulkSender({ base, index, dispatcher });
    const onDone = ({ ok, failures }: { ok: number; failures: { id?: string; status: number; error: unknown }[] }) => {
      const f = failures[0];
      if (f) throw new Error(`bulk index of [${index}/${f.id}] failed with status ${f.status}: ${JSON.stringify(f.error)}`);
      done += ok;
      opts.onProgress?.(done, total);
    };

    opts.onProgress?.(0, total);
    let batch: BulkDoc[] = [];
    for (const doc of sample.docs()) {
      batch.push(doc);
      if (batch.length < batchDocs) continue;
      await sender.send(batch, onDone);
      batch = [];
    }
    if (batch.length > 0) await sender.send(batch, onDone);
    await sender.drain();

    await callOk(dispatcher, 'POST', base, `/${encodeURIComponent(index)}/_refresh`);
    return { index, created, docs: done };
  } finally {
    await dispatcher.close();
  }
}
