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
import { JSON_HEADERS, readJson, sendJson, sendText, toGatewayError, type GatewayContext, type Json } from './gateway-io.ts';
import { compaction, range, txn } from './kv-service.ts';
import { leaseGrant, leaseKeepAlive, leaseRevoke } from './lease-service.ts';
import { watch } from './watch-service.ts';
import { GatewayError, httpStatusOf, int64, streamErrorBody, unaryErrorBody } from './wire.ts';

/** Options of {@link createGatewayHandler}. */
export interface GatewayHandlerOptions {
  store: EmbeddedStore;
  /** Seeds the header's `cluster_id` and `member_id` (e.g. the data directory's absolute path). */
  identity: string;
}

/** The request handler and a way to end every open watch stream (on shutdown). */
export interface GatewayHandler {
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** Ends every open watch stream (etcd closes them when it stops; clients reopen elsewhere). */
  endStreams(): void;
  /** Open watch streams now. */
  openStreams(): number;
}

/** Two stable uint64 ids (decimal) derived from `identity`. */
function idsOf(identity: string): { clusterId: string; memberId: string } {
  const digest = createHash('sha256').update(identity).digest();
  return { clusterId: digest.readBigUInt64BE(0).toString(), memberId: digest.readBigUInt64BE(8).toString() };
}

/**
 * Creates the handler over an open store. The store stays the caller's to close (after
 * {@link GatewayHandler.endStreams} and the HTTP server's close).
 */
export function createGatewayHandler(options: GatewayHandlerOptions): GatewayHandler {
  const { clusterId, memberId } = idsOf(options.identity);
  const streams = new Set<ServerResponse>();
  const ctx: GatewayContext = {
    store: options.store,
    header(revision) {
      const rev = int64(revision);
      return rev === undefined
        ? { cluster_id: clusterId, member_id: memberId, raft_term: '1' }
        : { cluster_id: clusterId, member_id: memberId, revision: rev, raft_term: '1' };
    },
  };
  return {
    handle(req, res) {
      route(ctx, streams, req, res).catch((err: unknown) => {
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

/** The unary RPCs by path: one JSON request, one JSON reply. */
const UNARY: Record<string, (ctx: GatewayContext, body: Json) => Promise<Json>> = {
  '/v3/kv/range': range,
  '/v3/kv/txn': txn,
  '/v3/kv/compaction': compaction,
  '/v3/lease/grant': leaseGrant,
  '/v3/lease/revoke': leaseRevoke,
};

/** `GET /health`: whether the store answers a read. */
async function health(ctx: GatewayContext, res: ServerResponse): Promise<void> {
  try {
    await ctx.store.range('\u0000');
    sendText(res, 200, '{"health":"true"}');
  } catch {
    sendText(res, 503, '{"health":"false"}');
  }
}

/** Routes one request: 404 for an unknown path, 405 for a wrong method, else the RPC's reply or error. */
async function route(ctx: GatewayContext, streams: Set<ServerResponse>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/health') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendText(res, 405, 'Method Not Allowed\n');
    return health(ctx, res);
  }
  const handler = UNARY[path];
  const known = handler !== undefined || path === '/v3/watch' || path === '/v3/lease/keepalive';
  if (!known) return sendText(res, 404, 'Not Found\n');
  if (req.method !== 'POST') return sendText(res, 405, 'Method Not Allowed\n');
  if (path === '/v3/watch') return watch(ctx, streams, req, res);
  if (path === '/v3/lease/keepalive') {
    // A server stream in etcd: one `{"result": …}` line per request message; an error as a stream error line.
    try {
      const reply = await leaseKeepAlive(ctx, await readJson(req));
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
    sendJson(res, 200, await handler(ctx, await readJson(req)));
  } catch (err) {
    const e = toGatewayError(err);
    sendJson(res, httpStatusOf(e.grpcCode), unaryErrorBody(e));
  }
}
