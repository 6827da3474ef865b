/**
 * Loads a sample data set into a running Folio (or Elasticsearch) through the public API:
 * `HEAD /{index}`, `PUT /{index}` when absent, NDJSON `POST /_bulk` batches (2 in flight, through
 * the CLI's {@link BulkSender}; items rejected with 429 or 503 are sent again with backoff), then
 * `POST /{index}/_refresh` on every shard and `GET /{index}/_count`, which must hold every document:
 * a load never ends with part of the data.
 * @see https://www.elastic.co/docs/api/doc/elasticsearch/operation/operation-bulk
 */
import { Agent } from 'undici';
import { backoffMs, BULK_CONCURRENCY, BulkSender } from '../../cli/bulk-sender.ts';
import { call, callOk, HttpError, trimUrl } from '../../cli/http.ts';
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
  /** Injectable sleep between retries, for tests. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Item statuses sent again: 429 (a full queue) and 503 (`unavailable_shards_exception`, a primary
 * not active yet or failing over), as Logstash retries them.
 * @see https://www.elastic.co/guide/en/logstash/2.4/plugins-outputs-elasticsearch.html
 */
export const RETRIED_ITEM_STATUSES: readonly number[] = [429, 503];
/** Attempts of the closing `_refresh` and `_count` while a shard answers with a failure. */
const CHECK_ATTEMPTS = 8;

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
 * `batchDocs`-sized `_bulk` requests, two in flight, then refreshes the index and counts it.
 * Items rejected with 429 or 503 are retried (8 rounds with backoff, see {@link BulkSender}).
 * @throws on any HTTP error, on the first bulk item that still fails (with its ES error), when
 * `_refresh` or `_count` keeps failing on a shard, and when the index holds fewer documents than
 * were loaded (exactly as many when this call created it).
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
      const overrides = {
        ...(opts.shards ? { number_of_shards: opts.shards } : {}),
        ...(opts.replicas !== undefined ? { number_of_replicas: opts.replicas } : {}),
      };
      const definition = { ...sample.index, settings: { ...sample.index.settings, ...overrides } };
      await callOk(dispatcher, 'PUT', base, `/${encodeURIComponent(index)}`, definition);
      created = true;
    }

    const total = sample.count();
    let done = 0;
    const sender = new BulkSender({ base, index, dispatcher, retryItemStatuses: RETRIED_ITEM_STATUSES, sleep: opts.sleep });
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

    const path = `/${encodeURIComponent(index)}`;
    await everyShard(dispatcher, base, 'POST', `${path}/_refresh`, opts.sleep);
    const { count } = await everyShard<{ count: number }>(dispatcher, base, 'GET', `${path}/_count`, opts.sleep);
    if (created ? count !== total : count < total) {
      throw new Error(`loading [${index}]: ${total} documents were acknowledged, but after _refresh the index holds ${count}`);
    }
    return { index, created, docs: done };
  } finally {
    await dispatcher.close();
  }
}

/**
 * Calls `path` until it answers 200 with `_shards.failed` 0 (retrying 429/503 replies and shard
 * failures with backoff): a refresh or count that missed a shard says nothing about its documents.
 * @throws HttpError on another status, Error when a shard still fails after {@link CHECK_ATTEMPTS}
 */
async function everyShard<T>(
  dispatcher: Agent,
  base: string,
  method: 'GET' | 'POST',
  path: string,
  sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const reply = await call(dispatcher, method, base + path);
    const shards = (reply.json as { _shards?: { failed?: number } } | undefined)?._shards;
    if (reply.status === 200 && shards?.failed === 0) return reply.json as T;
    if (reply.status !== 200 && reply.status !== 429 && reply.status !== 503) throw new HttpError(method, path, reply);
    if (attempt >= CHECK_ATTEMPTS)
      throw new Error(`${method} ${path} failed on a shard ${attempt} times, last: HTTP ${reply.status} ${reply.text.slice(0, 1000)}`);
    await sleep(backoffMs(attempt));
  }
}
