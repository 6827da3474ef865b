/**
 * The search rounds on node:http, beside the hono app (issue 17). A page-1 search costs each shard
 * node one internal call, and most of that call's CPU was the server plumbing around a few
 * microseconds of engine work: @hono/node-server's Web `Request` and `Headers`, hono's routing and
 * context, three middlewares and the `Response` written back (docs/performance.md, "Page 1: where
 * the CPU goes"). The batchable actions (protocol/rpc.ts: dfs, query, select, aggs, fetch) and the
 * batch route are answered here straight from the Node request: the same cluster-secret check
 * (shard-node/cluster-auth.ts), body limit and in-flight reservation (shared/request-body.ts,
 * shared/body-budget.ts), handlers, encodings (shard-node/rpc-serve.ts), error bodies and HTTP
 * metrics as through hono, which keeps every other route. As ES's transport layer, which hands a
 * request to its registered handler without the REST layer.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/transport/InboundHandler.java
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toEsError } from '../protocol/errors.ts';
import { rpc as rpcs } from '../protocol/rpc.ts';
import { BATCH_CONTENT_TYPE, encodeBatch, type BatchRequest } from '../protocol/wire-batch.ts';
import { BodyReservation, type MemoryCircuitBreaker } from '../shared/circuit-breaker.ts';
import { CLUSTER_SECRET_HEADER } from '../shared/cluster-secret.ts';
import type { HttpMetrics } from '../shared/metrics.ts';
import type { Logger } from '../shared/logger.ts';
import { readIncomingBody } from '../shared/request-body.ts';
import { checkClusterSecret } from './cluster-auth.ts';
import { bodyTooLarge, encodeCallReply, parseInternalJson, type RpcApp } from './rpc-serve.ts';
import { answerBatch } from './search-routes.ts';

/** A node:http request listener. */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;

/** A reply's bytes and content type. */
interface Reply {
  contentType: string;
  body: Uint8Array;
}

/** One fast route: the request's parsed body and `accept` header to its reply. */
type FastRoute = (body: unknown, accept: string | undefined) => Promise<Reply>;

/** What the fast path shares with the hono app (shard-node/app.ts builds both). */
export interface RpcFastPathDeps {
  rpc: RpcApp;
  /** FOLIO_CLUSTER_SECRET (undefined: internal calls are not authenticated). */
  clusterSecret: string | undefined;
  /** The node's in-flight requests breaker (shared/body-budget.ts `installInFlightBudget`). */
  breaker: MemoryCircuitBreaker;
  metrics: HttpMetrics;
  log: Logger;
}

/**
 * The routes answered on node:http, by exact request URL (internal calls carry no query string):
 * every batchable action bound on `deps.rpc` so far, and the batch route. Bind the action modules
 * first.
 */
function fastRoutes(deps: RpcFastPathDeps): Map<string, FastRoute> {
  const routes = new Map<string, FastRoute>();
  for (const { rpc, handler } of deps.rpc.batchable.values()) {
    routes.set(rpc.path, async (body, accept) => encodeCallReply(await handler(body), rpc.entries, accept));
  }
  routes.set(rpcs.batch.path, async (body) => ({
    contentType: BATCH_CONTENT_TYPE,
    body: encodeBatch(await answerBatch(deps.rpc, body as BatchRequest, deps.log)),
  }));
  return routes;
}

/**
 * `next` with the search rounds answered on node:http first (see the module comment): a `POST` to
 * one of their paths never reaches hono; every other request goes to `next` (hono's listener).
 */
export function withRpcFastPath(deps: RpcFastPathDeps, next: NodeListener): NodeListener {
  const routes = fastRoutes(deps);
  return (req, res) => {
    const route = req.method === 'POST' && req.url !== undefined ? routes.get(req.url) : undefined;
    if (route === undefined) next(req, res);
    else answer(deps, route, req, res).catch((err: unknown) => deps.log.error({ err, path: req.url }, 'internal request failed'));
  };
}

/** Answers one fast call: its reply, or its ES error body; counted in the HTTP metrics either way. */
async function answer(deps: RpcFastPathDeps, route: FastRoute, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const path = req.url!;
  const reservation = new BodyReservation(deps.breaker);
  let status = 200;
  try {
    if (deps.clusterSecret !== undefined) {
      const given = req.headers[CLUSTER_SECRET_HEADER];
      checkClusterSecret(deps.clusterSecret, typeof given === 'string' ? given : undefined, 'POST', path);
    }
    const max = deps.rpc.maxBodyBytes;
    const body = await parseInternalJson(await readIncomingBody(req, max, () => bodyTooLarge(max), reservation));
    const reply = await route(body, req.headers.accept);
    send(res, 200, reply.contentType, reply.body);
  } catch (err) {
    const es = toEsError(err);
    status = es.status;
    if (status >= 500) deps.log.error({ err, path }, 'internal request failed');
    send(res, status, 'application/json', Buffer.from(JSON.stringify(es.toBody())));
  } finally {
    reservation.release();
    deps.metrics.observe('POST', path, status, (performance.now() - started) / 1000);
  }
}

/**
 * Writes a whole reply (a client that went away meanwhile is ignored, as node:http does; a reply
 * whose head already left, which only a failed write can cause, ends the connection).
 */
function send(res: ServerResponse, status: number, contentType: string, body: Uint8Array): void {
  if (res.writableEnded || res.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': contentType, 'content-length': body.byteLength });
  res.end(body);
}
