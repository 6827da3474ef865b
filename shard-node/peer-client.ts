/**
 * Calls from one shard node to another: a primary forwarding a bulk to its replicas (ES
 * `ReplicationOperation` sends replica requests over the transport layer from the primary's node).
 * One undici `Pool` per peer URL, keep-alive, a bounded number of connections, the cluster secret
 * on every call (peers check it as they check the coordinators'), a deadline per call, and a cap on
 * the reply's size.
 * @see https://undici.nodejs.org/#/docs/api/Pool
 */
import { Pool } from 'undici';
import type { JsonText, Rpc } from '../protocol/rpc.ts';
import { CLUSTER_SECRET_HEADER } from '../shared/cluster-secret.ts';

/** Connections per peer. */
const CONNECTIONS_PER_PEER = 8;
/** Largest peer reply read (a replica's answer is a few hundred bytes). */
const MAX_REPLY_BYTES = 1 << 20;

/** A failed peer call: the peer's ES error, or the call's: 503 `node_not_connected_exception`, 504 `timeout_exception`. */
export class PeerCallError extends Error {
  readonly status: number;
  readonly type: string;

  constructor(status: number, type: string, reason: string) {
    super(reason);
    this.name = 'PeerCallError';
    this.status = status;
    this.type = type;
  }
}

/** See the module comment. */
export class PeerClient {
  private readonly pools = new Map<string, Pool>();
  private readonly clusterSecret: string | undefined;

  /** `clusterSecret`: this node's FOLIO_CLUSTER_SECRET, the same on every node. */
  constructor(clusterSecret: string | undefined) {
    this.clusterSecret = clusterSecret;
  }

  /**
   * Calls action `d` (protocol/rpc.ts; a JSON-bodied one) on the peer at `url` with `body`, its
   * request already serialized, and returns the parsed reply.
   * @throws PeerCallError for an error reply, a connection failure or the deadline
   */
  async rpc<Req, Res>(url: string, d: Rpc<Req, Res>, body: JsonText<NoInfer<Req>>, timeoutMs: number): Promise<Res> {
    let pool = this.pools.get(url);
    if (!pool) {
      // No pool-wide headers/body timeouts: they would keep the first call's deadline for every later
      // call, and undici's coarse timers may fire them early. Each call's own AbortSignal bounds it.
      pool = new Pool(url, {
        connections: CONNECTIONS_PER_PEER,
        pipelining: 1,
        headersTimeout: 0,
        bodyTimeout: 0,
        maxResponseSize: MAX_REPLY_BYTES,
      });
      this.pools.set(url, pool);
    }
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.clusterSecret !== undefined) headers[CLUSTER_SECRET_HEADER] = this.clusterSecret;
    let res;
    try {
      res = await pool.request({ method: d.method, path: d.path, headers, body: body.text, signal: AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs))) });
    } catch (err) {
      // The same errors a coordinator's shard call reports (coordinator/transport/shard-client.ts).
      const e = err as Error & { code?: string };
      const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
      if (timedOut) throw new PeerCallError(504, 'timeout_exception', `shard node [${url}] did not answer in time`);
      throw new PeerCallError(503, 'node_not_connected_exception', `[${url}] ${e.code ?? e.name}: ${e.message}`);
    }
    const text = await res.body.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new PeerCallError(502, 'illegal_state_exception', `[${url}] answered ${res.statusCode} with a body that is not JSON`);
    }
    if (res.statusCode >= 300) {
      const error = (parsed as { error?: { type?: string; reason?: string } }).error;
      throw new PeerCallError(res.statusCode, error?.type ?? 'exception', `[${url}] ${error?.reason ?? `HTTP ${res.statusCode}`}`);
    }
    return parsed as Res;
  }

  /** Closes every pool. */
  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }
}
