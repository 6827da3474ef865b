/**
 * etcd's Watch service over the embedded store, as a gateway stream: one `create_request` per
 * stream, a `created` message, the history from `start_revision` in messages of up to
 * {@link WATCH_BATCH_MAX_REVISIONS} revisions, then one message per new revision; a compacted start
 * is a `created` then a `canceled` message with `compact_revision`.
 * @see https://etcd.io/docs/v3.4/learning/api/#watch-api
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isStateStoreError } from '../shared/state-store/errors.ts';
import type { KeyValue, WatchBatch } from '../shared/state-store/types.ts';
import { selectKeys, selects, storePrefixOf } from './key-range.ts';
import type { KeySelection } from './key-range.ts';
import {
  arrayField,
  JSON_HEADERS,
  objectField,
  readJson,
  refuseSet,
  sendJson,
  toGatewayError,
  unimplemented,
  type GatewayContext,
  type Json,
} from './gateway-io.ts';
import { bytes, decodeBytes, decodeEnum, decodeInt64, httpStatusOf, int64, streamErrorBody, wireKeyValue } from './wire.ts';

/** Revisions of history per watch message (etcd's `watchBatchMaxRevs`). @see https://github.com/etcd-io/etcd/blob/release-3.4/mvcc/watcher_group.go */
const WATCH_BATCH_MAX_REVISIONS = 1000;
/** etcd's watch filter names. */
const WATCH_FILTERS = ['NOPUT', 'NODELETE'] as const;

/** A watch stream's one `create_request`, decoded. */
interface WatchCreate {
  selection: KeySelection;
  start: number;
  /** Left out of messages when 0. */
  watchId: string | undefined;
  /** The event types `filters` drop (`put` for NOPUT, `delete` for NODELETE). */
  dropped: Set<string>;
}

/** Decodes a watch stream's request body. @throws GatewayError (UNIMPLEMENTED for anything but one `create_request`) */
function createRequestOf(body: Json): WatchCreate {
  if (body.create_request === undefined) throw unimplemented('watch requests other than one create_request per stream');
  const create = objectField(body.create_request, 'create_request');
  refuseSet(create, ['prev_kv'], 'watch option');
  return {
    selection: selectKeys(decodeBytes(create.key, 'key'), decodeBytes(create.range_end, 'range_end')),
    start: Number(decodeInt64(create.start_revision, 'start_revision')),
    watchId: int64(decodeInt64(create.watch_id, 'watch_id')),
    dropped: new Set(arrayField(create.filters, 'filters').map((f) => (decodeEnum(f, WATCH_FILTERS, 'filters') === 'NOPUT' ? 'put' : 'delete'))),
  };
}

/** A watch stream: `created`, then one message per revision, until the client goes or the server stops. */
export async function watch(ctx: GatewayContext, streams: Set<ServerResponse>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let create: WatchCreate;
  try {
    create = createRequestOf(await readJson(req));
  } catch (err) {
    const e = toGatewayError(err);
    sendJson(res, httpStatusOf(e.grpcCode), streamErrorBody(e));
    return;
  }
  const { selection, start, watchId, dropped } = create;
  const stop = new AbortController();
  res.once('close', () => stop.abort());
  res.writeHead(200, JSON_HEADERS);
  streams.add(res);
  // Fields in etcd's order: header, watch_id (left out when 0), then the rest.
  const write = (result: Json) =>
    res.write(JSON.stringify({ result: watchId === undefined ? result : { header: result.header, watch_id: watchId, ...result } }) + '\n');
  try {
    const batches = ctx.store.watch(storePrefixOf(selection), { fromRevision: start > 0 ? start : undefined, signal: stop.signal })[Symbol.asyncIterator]();
    const createdAt = ctx.store.currentRevision;
    write({ header: ctx.header(createdAt), created: true });
    // As etcd: history up to the revision at creation goes out in messages of up to
    // WATCH_BATCH_MAX_REVISIONS revisions with that revision in the header; later revisions one
    // message each, the header carrying the event's revision.
    let group: Json[] = [];
    let groupRevisions = 0;
    const flush = () => {
      if (group.length > 0) write({ header: ctx.header(createdAt), events: group });
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
        if (events.length > 0) write({ header: ctx.header(next.value.revision), events });
      }
    }
    flush();
  } catch (err) {
    if (isStateStoreError(err, 'compacted')) {
      // etcd: a `created` message, then the cancel, with a header that has no revision; the stream stays open.
      write({ header: ctx.header(undefined), canceled: true, compact_revision: String(err.compactRevision ?? 0) });
      await new Promise<void>((resolve) => (stop.signal.aborted ? resolve() : stop.signal.addEventListener('abort', () => resolve())));
    } else if (!stop.signal.aborted && !res.writableEnded) {
      res.write(JSON.stringify(streamErrorBody(toGatewayError(err))) + '\n');
    }
  } finally {
    streams.delete(res);
    if (!res.writableEnded) res.end();
  }
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
