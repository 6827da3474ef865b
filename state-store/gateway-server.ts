/**
 * The embedded state store served as an etcd v3 member: the subset of etcd's JSON gRPC-gateway
 * that `EtcdStore` (shared/state-store/etcd-store.ts) speaks, so that every local process can use
 * one `EmbeddedStore` through `EtcdStore`, unchanged. Routes (all `POST` with a JSON body, except
 * `GET /health`):
 *
 * | path | etcd RPC | served |
 * | --- | --- | --- |
 * | `/v3/kv/range` | KV.Range | `key`, `range_end`, `limit`, `keys_only`, `count_only`, `serializable`, `revision` (current only) |
 * | `/v3/kv/txn` | KV.Txn | compares `MOD`/`CREATE` `EQUAL` (and `VERSION` `EQUAL` 0); success: puts and deletes (one key or a prefix); failure: ranges of compared keys |
 * | `/v3/kv/compaction` | KV.Compact | `revision` |
 * | `/v3/lease/grant`, `/v3/lease/keepalive`, `/v3/lease/revoke` | Lease.* | `TTL` (server-chosen ids), `ID` |
 * | `/v3/watch` | Watch (stream) | one `create_request` per stream: `key`, `range_end`, `start_revision`, `filters`, `watch_id` |
 * | `GET /health` | — | `{"health":"true"}`, 503 `{"health":"false"}` when the store fails |
 *
 * Replies are etcd 3.4's, byte for byte where it matters (docs/cluster-state.md, "The served
 * embedded store"): proto3 JSON, unary errors as `{"error","message","code"}` with grpc-gateway's
 * HTTP status, stream errors as `{"error":{"grpc_code",…}}`, a compacted watch as a `created` then a
 * `canceled` message with `compact_revision`. Anything else etcd accepts but this store cannot do
 * (reads at past revisions, value/version/lease compares, `prev_kv`, nested txns, range deletes
 * other than a prefix) is refused with UNIMPLEMENTED (HTTP 501) rather than answered differently.
 * @see https://etcd.io/docs/v3.4/dev-guide/api_grpc_gateway/
 * @see https://etcd.io/docs/v3.4/learning/api/
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmbeddedStore } from '../shared/state-store/embedded-store.ts';
import { isStateStoreError } from '../shared/state-store/errors.ts';
import type { Compare, KeyValue, TxnOp, WatchBatch } from '../shared/state-store/types.ts';
import { readKeys, selectKeys, selects, storePrefixOf } from './key-range.ts';
import type { KeySelection } from './key-range.ts';
import {
  bytes,
  decodeBool,
  decodeBytes,
  decodeEnum,
  decodeInt64,
  GatewayError,
  GRPC,
  httpStatusOf,
  int64,
  keyText,
  streamErrorBody,
  unaryErrorBody,
  wireKeyValue,
} from './wire.ts';
import type { WireHeader } from './wire.ts';

/** Largest request body accepted (etcd's default `--max-request-bytes` is 1.5 MiB of protobuf; JSON and base64 are larger). */
export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;
/** Longest lease TTL etcd grants (`MaxLeaseTTL`, 9,000,000,000 s); the embedded store's own limit is 2^31 − 1 s. */
const MAX_LEASE_TTL_SECONDS = 2 ** 31 - 1;
/** Revisions of history per watch message (etcd's `watchBatchMaxRevs`). @see https://github.com/etcd-io/etcd/blob/release-3.4/mvcc/watcher_group.go */
const WATCH_BATCH_MAX_REVISIONS = 1000;

/** Options of {@link createGatewayHandler}. */
export interface GatewayHandlerOptions {
  store: EmbeddedStore;
  /** Seeds the header's `cluster_id` and `member_id` (e.g. the data directory's absolute path). */
  identity: string;
}

/** The request handler and a way to end every open watch stream (on shutdown). */
export interface GatewayHandler {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Ends every open watch stream (etcd closes them when it stops; clients reopen elsewhere). */
  endStreams(): void;
  /** Open watch streams now. */
  openStreams(): number;
}

const COMPARE_TARGETS = ['VERSION', 'CREATE', 'MOD', 'VALUE', 'LEASE'] as const;
const COMPARE_RESULTS = ['EQUAL', 'GREATER', 'LESS', 'NOT_EQUAL'] as const;
const WATCH_FILTERS = ['NOPUT', 'NODELETE'] as const;

type Json = Record<string, unknown>;

/** Two stable uint64 ids (decimal) derived from `identity`. */
function idsOf(identity: string): { clusterId: string; memberId: string } {
  const digest = createHash('sha256').update(identity).digest();
  return { clusterId: digest.readBigUInt64BE(0).toString(), memberId: digest.readBigUInt64BE(8).toString() };
}

/** An object field of a request, or an empty object when absent. Throws INVALID_ARGUMENT otherwise. */
function objectField(value: unknown, field: string): Json {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new GatewayError(GRPC.INVALID_ARGUMENT, `field "${field}" must be an object`);
  return value as Json;
}

function arrayField(value: unknown, field: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new GatewayError(GRPC.INVALID_ARGUMENT, `field "${field}" must be an array`);
  return value;
}

function unimplemented(what: string): GatewayError {
  return new GatewayError(GRPC.UNIMPLEMENTED, `the embedded state store does not serve ${what}`);
}

/** Refuses a non-default value of a field this store does not serve. */
function refuseSet(body: Json, fields: string[], what: string): void {
  for (const f of fields) {
    const v = body[f];
    if (v !== undefined && v !== null && v !== false && v !== 0 && v !== '0' && v !== '' && !(Array.isArray(v) && v.length === 0) && v !== 'NONE' && v !== 'KEY') {
      throw unimplemented(`${what} "${f}"`);
    }
  }
}

/** A `StateStoreError` (or anything else) as the gRPC error etcd would send. */
function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (isStateStoreError(err)) {
    switch (err.code) {
      case 'lease_not_found':
        return new GatewayError(GRPC.NOT_FOUND, 'etcdserver: requested lease not found');
      case 'compacted':
        return new GatewayError(GRPC.OUT_OF_RANGE, 'etcdserver: mvcc: required revision has been compacted');
      case 'invalid_argument':
        return /future revision/.test(err.message)
          ? new GatewayError(GRPC.OUT_OF_RANGE, 'etcdserver: mvcc: required revision is a future revision')
          : new GatewayError(GRPC.INVALID_ARGUMENT, `etcdserver: ${err.message}`);
      case 'closed':
        // Refused before it was applied: clients may retry elsewhere (EtcdStore treats "stopped" as unsent).
        return new GatewayError(GRPC.UNAVAILABLE, 'etcdserver: server stopped');
      default:
        return new GatewayError(GRPC.UNAVAILABLE, `etcdserver: ${err.message}`);
    }
  }
  return new GatewayError(GRPC.UNAVAILABLE, `etcdserver: ${(err as Error)?.message ?? String(err)}`);
}

/** Reads the whole body, up to {@link MAX_REQUEST_BODY_BYTES}, and parses it as one JSON object. */
async function readJson(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BODY_BYTES) throw new GatewayError(GRPC.INVALID_ARGUMENT, 'etcdserver: request is too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new GatewayError(GRPC.INVALID_ARGUMENT, (err as Error).message);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new GatewayError(GRPC.INVALID_ARGUMENT, 'the request body must be a JSON object');
  return parsed as Json;
}

/** Headers of every JSON reply, as etcd's gateway sends them. */
const JSON_HEADERS = { 'content-type': 'application/json', 'grpc-metadata-content-type': 'application/grpc' };

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A lease id field: a positive decimal int64 as the store names it, or undefined for 0/absent. */
function leaseIdOf(value: unknown, field: string): string | undefined {
  const id = decodeInt64(value, field);
  return id === 0n ? undefined : id.toString();
}

/**
 * Creates the handler over an open store. The store stays the caller's to close (after
 * {@link GatewayHandler.endStreams} and the HTTP server's close).
 */
export function createGatewayHandler(options: GatewayHandlerOptions): GatewayHandler {
  const { store } = options;
  const { clusterId, memberId } = idsOf(options.identity);
  const streams = new Set<ServerResponse>();

  /** etcd's response header; `revision` is left out when 0 (a canceled watch's header has none). */
  const header = (revision: number | undefined): WireHeader => {
    const rev = int64(revision);
    return rev === undefined ? { cluster_id: clusterId, member_id: memberId, raft_term: '1' } : { cluster_id: clusterId, member_id: memberId, revision: rev, raft_term: '1' };
  };

  async function range(body: Json): Promise<Json> {
    refuseSet(body, ['sort_order', 'sort_target', 'min_mod_revision', 'max_mod_revision', 'min_create_revision', 'max_create_revision'], 'range option');
    const selection = selectKeys(decodeBytes(body.key, 'key'), decodeBytes(body.range_end, 'range_end'));
    const limit = Number(decodeInt64(body.limit, 'limit'));
    const keysOnly = decodeBool(body.keys_only, 'keys_only');
    const countOnly = decodeBool(body.count_only, 'count_only');
    decodeBool(body.serializable, 'serializable'); // every read is local and current here
    const atRevision = Number(decodeInt64(body.revision, 'revision'));
    const { kvs, revision } = await readKeys(store, selection);
    if (atRevision > revision) throw new GatewayError(GRPC.OUT_OF_RANGE, 'etcdserver: mvcc: required revision is a future revision');
    if (atRevision > 0 && atRevision < revision) throw unimplemented('reads at a past revision');
    const out: Json = { header: header(revision) };
    const shown = countOnly ? [] : limit > 0 ? kvs.slice(0, limit) : kvs;
    if (shown.length > 0) out.kvs = shown.map((kv) => wireKeyValue(kv, keysOnly));
    if (!countOnly && shown.length < kvs.length) out.more = true;
    if (kvs.length > 0) out.count = String(kvs.length);
    return out;
  }

  /** One `Compare` of a txn request, as the store's compare. */
  function compareOf(raw: unknown, i: number): Compare {
    const c = objectField(raw, `compare[${i}]`);
    const key = keyText(decodeBytes(c.key, 'key'));
    if (key === '') throw new GatewayError(GRPC.INVALID_ARGUMENT, 'etcdserver: key is not provided');
    if (decodeBytes(c.range_end, 'range_end').length > 0) throw unimplemented('compares over a key range');
    const target = decodeEnum(c.target, COMPARE_TARGETS, 'target');
    const result = decodeEnum(c.result, COMPARE_RESULTS, 'result');
    if (result !== 'EQUAL') throw unimplemented(`${result} compares`);
    if (target === 'MOD') return { key, modRevision: Number(decodeInt64(c.mod_revision, 'mod_revision')) };
    if (target === 'CREATE') return { key, createRevision: Number(decodeInt64(c.create_revision, 'create_revision')) };
    // version 0 ⇔ the key is absent ⇔ create revision 0.
    if (target === 'VERSION' && decodeInt64(c.version, 'version') === 0n) return { key, createRevision: 0 };
    throw unimplemented(`${target} compares${target === 'VERSION' ? ' other than version 0' : ''}`);
  }

  /** One success op: a put, or a delete of one key or of a prefix. */
  function successOpOf(raw: unknown, i: number): TxnOp {
    const op = objectField(raw, `success[${i}]`);
    if (op.request_put !== undefined) {
      const put = objectField(op.request_put, 'request_put');
      refuseSet(put, ['prev_kv', 'ignore_value', 'ignore_lease'], 'put option');
      const key = keyText(decodeBytes(put.key, 'key'));
      const value = keyText(decodeBytes(put.value, 'value'), 'value');
      const lease = leaseIdOf(put.lease, 'lease');
      return lease === undefined ? { op: 'put', key, value } : { op: 'put', key, value, lease };
    }
    if (op.request_delete_range !== undefined) {
      const del = objectField(op.request_delete_range, 'request_delete_range');
      refuseSet(del, ['prev_kv'], 'delete option');
      const selection = selectKeys(decodeBytes(del.key, 'key'), decodeBytes(del.range_end, 'range_end'));
      if (selection.kind === 'key') return { op: 'delete', key: selection.key };
      if (selection.kind === 'prefix' && selection.prefix !== '') return { op: 'deletePrefix', prefix: selection.prefix };
      throw unimplemented('deletes of a key range other than a non-empty prefix');
    }
    if (op.request_range !== undefined) throw unimplemented('reads in the success branch of a txn');
    if (op.request_txn !== undefined) throw unimplemented('nested txns');
    throw new GatewayError(GRPC.INVALID_ARGUMENT, `success[${i}] has no request`);
  }

  /** One failure op: a plain read of one compared key (answered from the failed txn's `current`). */
  function failureKeyOf(raw: unknown, i: number, compared: Set<string>): string {
    const op = objectField(raw, `failure[${i}]`);
    if (op.request_range === undefined) throw unimplemented('writes in the failure branch of a txn');
    const r = objectField(op.request_range, 'request_range');
    refuseSet(r, ['range_end', 'limit', 'revision', 'sort_order', 'sort_target', 'keys_only', 'count_only', 'min_mod_revision', 'max_mod_revision', 'min_create_revision', 'max_create_revision'], 'failure-branch range option');
    const key = keyText(decodeBytes(r.key, 'key'));
    if (!compared.has(key)) throw unimplemented('failure-branch reads of keys the txn does not compare');
    return key;
  }

  async function txn(body: Json): Promise<Json> {
    const compare = arrayField(body.compare, 'compare').map(compareOf);
    const ops = arrayField(body.success, 'success').map(successOpOf);
    const compared = new Set(compare.map((c) => c.key));
    const failureKeys = arrayField(body.failure, 'failure').map((raw, i) => failureKeyOf(raw, i, compared));
    const { result, deletedKeys } = await store.txnWithDeletes({ compare, ops });
    const sub = { revision: String(result.revision) };
    if (!result.succeeded) {
      const out: Json = { header: header(result.revision) };
      if (failureKeys.length > 0) {
        out.responses = failureKeys.map((key) => {
          const kv = result.current.get(key);
          const response: Json = { header: sub };
          if (kv) Object.assign(response, { kvs: [wireKeyValue(kv)], count: '1' });
          return { response_range: response };
        });
      }
      return out;
    }
    // Each deleted key counts for the first delete op that covers it, as etcd applies ops in order.
    const remaining = new Set(deletedKeys);
    const responses = ops.map((op) => {
      if (op.op === 'put') return { response_put: { header: sub } };
      const covered = [...remaining].filter((k) => (op.op === 'delete' ? k === op.key : k.startsWith(op.prefix)));
      for (const k of covered) remaining.delete(k);
      const response: Json = { header: sub };
      if (covered.length > 0) response.deleted = String(covered.length);
      return { response_delete_range: response };
    });
    const out: Json = { header: header(result.revision), succeeded: true };
    if (responses.length > 0) out.responses = responses;
    return out;
  }

  async function compaction(body: Json): Promise<Json> {
    await store.compact(Number(decodeInt64(body.revision, 'revision')));
    return { header: header(store.currentRevision) };
  }

  async function leaseGrant(body: Json): Promise<Json> {
    if (decodeInt64(body.ID, 'ID') !== 0n) throw unimplemented('client-chosen lease ids');
    const requested = decodeInt64(body.TTL, 'TTL');
    if (requested > BigInt(MAX_LEASE_TTL_SECONDS)) throw new GatewayError(GRPC.OUT_OF_RANGE, 'etcdserver: too large lease TTL');
    // etcd raises a TTL below its minimum to the minimum; the embedded store's minimum is 1 s.
    const lease = await store.grantLease(Math.max(1, Number(requested)));
    return { header: header(store.currentRevision), ID: lease.id, TTL: String(lease.ttlSeconds) };
  }

  /** A keep-alive: etcd answers an ended lease with its ID and no TTL, not an error. */
  async function leaseKeepAlive(body: Json): Promise<Json> {
    const id = leaseIdOf(body.ID, 'ID');
    const result: Json = { header: header(store.currentRevision) };
    if (id === undefined) return { result };
    result.ID = id;
    try {
      const ttl = await store.keepAliveLease(id);
      result.header = header(store.currentRevision);
      result.TTL = String(ttl);
    } catch (err) {
      if (!isStateStoreError(err, 'lease_not_found')) throw err;
    }
    return { result };
  }

  async function leaseRevoke(body: Json): Promise<Json> {
    const id = leaseIdOf(body.ID, 'ID');
    if (id === undefined) throw new GatewayError(GRPC.NOT_FOUND, 'etcdserver: requested lease not found');
    await store.revokeLease(id);
    return { header: header(store.currentRevision) };
  }

  /** A watch stream: `created`, then one message per revision, until the client goes or the server stops. */
  async function watch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let create: Json;
    let selection: KeySelection;
    let start: number;
    let watchId: string | undefined;
    let dropped: Set<string>;
    try {
      const body = await readJson(req);
      if (body.create_request === undefined) throw unimplemented('watch requests other than one create_request per stream');
      create = objectField(body.create_request, 'create_request');
      refuseSet(create, ['prev_kv'], 'watch option');
      selection = selectKeys(decodeBytes(create.key, 'key'), decodeBytes(create.range_end, 'range_end'));
      start = Number(decodeInt64(create.start_revision, 'start_revision'));
      watchId = int64(decodeInt64(create.watch_id, 'watch_id'));
      dropped = new Set(arrayField(create.filters, 'filters').map((f) => (decodeEnum(f, WATCH_FILTERS, 'filters') === 'NOPUT' ? 'put' : 'delete')));
    } catch (err) {
      const e = toGatewayError(err);
      sendJson(res, httpStatusOf(e.grpcCode), streamErrorBody(e));
      return;
    }
    const stop = new AbortController();
    res.once('close', () => stop.abort());
    res.writeHead(200, JSON_HEADERS);
    streams.add(res);
    // Fields in etcd's order: header, watch_id (left out when 0), then the rest.
    const write = (result: Json) => res.write(JSON.stringify({ result: watchId === undefined ? result : { header: result.header, watch_id: watchId, ...result } }) + '\n');
    try {
      const batches = store.watch(storePrefixOf(selection), { fromRevision: start > 0 ? start : undefined, signal: stop.signal })[Symbol.asyncIterator]();
      const createdAt = store.currentRevision;
      write({ header: header(createdAt), created: true });
      // As etcd: history up to the revision at creation goes out in messages of up to
      // WATCH_BATCH_MAX_REVISIONS revisions with that revision in the header; later revisions one
      // message each, the header carrying the event's revision.
      let group: Json[] = [];
      let groupRevisions = 0;
      const flush = () => {
        if (group.length > 0) write({ header: header(createdAt), events: group });
        group = [];
        groupRevisions = 0;
      };
      let pending = batches.next();
      for (;;) {
        // The history is queued at once: when the next batch is not ready by the next turn of the event loop, it is all out.
        const next = group.length > 0 ? await Promise.race([pending, new Promise<'idle'>((resolve) => setImmediate(() => resolve('idle')))]) : await pending;
        if (next === 'idle') {
          flush();
          continue;
        }
        if (next.done) break;
        pending = batches.next();
        const events = batchEvents(next.value, selection, dropped);
        if (next.value.revision <= createdAt) {
          if (events.length > 0) group.push(...events);
          if (++groupRevisions >= WATCH_BATCH_MAX_REVISIONS) flush();
        } else {
          flush();
          if (events.length > 0) write({ header: header(next.value.revision), events });
        }
      }
      flush();
    } catch (err) {
      if (isStateStoreError(err, 'compacted')) {
        // etcd: a `created` message, then the cancel, with a header that has no revision; the stream stays open.
        write({ header: header(undefined), canceled: true, compact_revision: String(err.compactRevision ?? 0) });
        await new Promise<void>((resolve) => (stop.signal.aborted ? resolve() : stop.signal.addEventListener('abort', () => resolve())));
      } else if (!stop.signal.aborted && !res.writableEnded) {
        res.write(JSON.stringify(streamErrorBody(toGatewayError(err))) + '\n');
      }
    } finally {
      streams.delete(res);
      if (!res.writableEnded) res.end();
    }
  }

  const unary: Record<string, (body: Json) => Promise<Json>> = {
    '/v3/kv/range': range,
    '/v3/kv/txn': txn,
    '/v3/kv/compaction': compaction,
    '/v3/lease/grant': leaseGrant,
    '/v3/lease/revoke': leaseRevoke,
  };

  async function health(res: ServerResponse): Promise<void> {
    try {
      await store.range('\u0000');
      sendText(res, 200, '{"health":"true"}');
    } catch {
      sendText(res, 503, '{"health":"false"}');
    }
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Method Not Allowed\n');
      return health(res);
    }
    const handler = unary[path];
    const known = handler !== undefined || path === '/v3/watch' || path === '/v3/lease/keepalive';
    if (!known) return sendText(res, 404, 'Not Found\n');
    if (req.method !== 'POST') return sendText(res, 405, 'Method Not Allowed\n');
    if (path === '/v3/watch') return watch(req, res);
    if (path === '/v3/lease/keepalive') {
      // A server stream in etcd: one `{"result": …}` line per request message; an error as a stream error line.
      try {
        const reply = await leaseKeepAlive(await readJson(req));
        const text = JSON.stringify(reply) + '\n';
        res.writeHead(200, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(text) });
        res.end(text);
      } catch (err) {
        const e = toGatewayError(err);
        sendJson(res, httpStatusOf(e.grpcCode), streamErrorBody(e));
      }
      return;
    }
    try {
      sendJson(res, 200, await handler(await readJson(req)));
    } catch (err) {
      const e = toGatewayError(err);
      sendJson(res, httpStatusOf(e.grpcCode), unaryErrorBody(e));
    }
  }

  return {
    handle(req, res) {
      route(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, unaryErrorBody(new GatewayError(13, (err as Error)?.message ?? String(err))));
        else res.destroy();
      });
    },
    endStreams() {
      for (const res of streams) res.end();
      streams.clear();
    },
    openStreams: () => streams.size,
  };
}

/** A batch's events for one watch, in etcd's JSON: `{"type":"DELETE"?, "kv": …}` (PUT, 0, is left out). */
function batchEvents(batch: WatchBatch, selection: KeySelection, dropped: Set<string>): Json[] {
  const events: Json[] = [];
  for (const e of batch.events) {
    if (!selects(selection, e.kv.key) || dropped.has(e.type)) continue;
    events.push(e.type === 'delete' ? { type: 'DELETE', kv: deletedKv(e.kv) } : { kv: wireKeyValue(e.kv) });
  }
  return events;
}

/** A delete event's kv: only `key` and `mod_revision`, as etcd sends it. */
function deletedKv(kv: KeyValue): Json {
  return { key: bytes(kv.key) ?? '', mod_revision: String(kv.modRevision) };
}
