/**
 * The state store on a real etcd cluster (v3 API, 3.4 or later), spoken through etcd's JSON
 * gRPC-gateway over undici ({@link EtcdGateway}); docs/cluster-state.md says why this rather than
 * the `etcd3` npm client. Each {@link StateStore} method is one etcd RPC:
 *
 * | method | etcd RPC | gateway path |
 * | --- | --- | --- |
 * | `get`, `range` | KV.Range (linearizable) | `/v3/kv/range` |
 * | `txn` | KV.Txn (failure branch: a Range of each compared key) | `/v3/kv/txn` |
 * | `grantLease`, `keepAliveLease`, `revokeLease` | Lease.LeaseGrant, LeaseKeepAlive, LeaseRevoke | `/v3/lease/grant`, `/v3/lease/keepalive`, `/v3/lease/revoke` |
 * | `watch` | Watch (server stream) | `/v3/watch` |
 * | `compact` | KV.Compact | `/v3/kv/compaction` |
 *
 * A watch survives a lost connection or a failed member: it reopens on another endpoint from the
 * revision after the last one it reported, so nothing is skipped or repeated. While open, the
 * member it runs on is probed every `watchProbeIntervalMs` with a linearizable read, and a member
 * that stops answering (paused, partitioned, leaderless) is left for another.
 *
 * @see https://etcd.io/docs/v3.4/learning/api/
 * @see https://etcd.io/docs/v3.4/dev-guide/api_grpc_gateway/
 * @example
 * const store = new EtcdStore({ endpoints: ['http://127.0.0.1:2379'] });
 * const { kvs, revision } = await store.range('folio/');
 */
import { EtcdGateway, DEFAULT_ATTEMPT_TIMEOUT_MS, gatewayFailure } from './etcd-gateway.ts';
import type { EtcdGatewayOptions } from './etcd-gateway.ts';
import { isStateStoreError, StateStoreError } from './errors.ts';
import { checkKey, checkTtl, checkTxn, prefixRangeEnd } from './request-checks.ts';
import type {
  KeyValue,
  Lease,
  LeaseId,
  RangeResult,
  Revision,
  StateStore,
  TxnOp,
  TxnRequest,
  TxnResult,
  WatchBatch,
  WatchEvent,
  WatchOptions,
} from './types.ts';

/** Default interval between liveness probes of the member a watch runs on. */
export const DEFAULT_WATCH_PROBE_INTERVAL_MS = 2_000;
/** Pause before reopening a failed watch, doubled per failure up to {@link MAX_WATCH_RETRY_PAUSE_MS}. */
const FIRST_WATCH_RETRY_PAUSE_MS = 50;
const MAX_WATCH_RETRY_PAUSE_MS = 1_000;

/** Options of {@link EtcdStore}. */
export interface EtcdStoreOptions extends EtcdGatewayOptions {
  /** Default {@link DEFAULT_WATCH_PROBE_INTERVAL_MS}. */
  watchProbeIntervalMs?: number;
}

/** etcd's `mvccpb.KeyValue` in proto3 JSON: bytes in base64, int64 as strings, zero values left out. */
interface WireKeyValue {
  key: string;
  value?: string;
  create_revision?: string;
  mod_revision?: string;
  version?: string;
  lease?: string;
}

interface WireHeader {
  revision?: string;
}

interface WireRange {
  header?: WireHeader;
  kvs?: WireKeyValue[];
}

interface WireTxn {
  header?: WireHeader;
  succeeded?: boolean;
  responses?: Array<{ response_range?: WireRange }>;
}

interface WireWatchResult {
  header?: WireHeader;
  created?: boolean;
  canceled?: boolean;
  compact_revision?: string;
  cancel_reason?: string;
  events?: Array<{ type?: 'PUT' | 'DELETE'; kv: WireKeyValue }>;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string | undefined): string => (s ? Buffer.from(s, 'base64').toString('utf8') : '');
const int = (s: string | undefined): number => (s ? Number(s) : 0);

function toKeyValue(w: WireKeyValue): KeyValue {
  const kv: KeyValue = {
    key: unb64(w.key),
    value: unb64(w.value),
    createRevision: int(w.create_revision),
    modRevision: int(w.mod_revision),
    version: int(w.version),
  };
  if (w.lease && w.lease !== '0') kv.lease = w.lease;
  return kv;
}

/** The `key`/`range_end` pair that selects every key under `prefix` (all keys for `''`). */
function prefixRange(prefix: string): { key: string; range_end: string } {
  if (prefix === '') return { key: Buffer.from([0]).toString('base64'), range_end: Buffer.from([0]).toString('base64') };
  const bytes = Buffer.from(prefix, 'utf8');
  return { key: bytes.toString('base64'), range_end: prefixRangeEnd(bytes).toString('base64') };
}

function requestOp(op: TxnOp): Record<string, unknown> {
  switch (op.op) {
    case 'put':
      return { request_put: { key: b64(op.key), value: b64(op.value), ...(op.lease !== undefined ? { lease: op.lease } : {}) } };
    case 'delete':
      return { request_delete_range: { key: b64(op.key) } };
    case 'deletePrefix':
      return { request_delete_range: prefixRange(op.prefix) };
  }
}

/** See the module comment. */
export class EtcdStore implements StateStore {
  private readonly gateway: EtcdGateway;
  private readonly watchProbeIntervalMs: number;
  private readonly probeTimeoutMs: number;
  /** Aborts every open watch on close. */
  private readonly closing = new AbortController();

  constructor(options: EtcdStoreOptions) {
    this.gateway = new EtcdGateway(options);
    this.watchProbeIntervalMs = options.watchProbeIntervalMs ?? DEFAULT_WATCH_PROBE_INTERVAL_MS;
    this.probeTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  }

  /** The members' client URLs, as origins. */
  get endpoints(): readonly string[] {
    return this.gateway.endpoints;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    checkKey(key);
    const reply = await this.gateway.call<WireRange>('/v3/kv/range', { key: b64(key) }, 'idempotent');
    return reply.kvs?.[0] ? toKeyValue(reply.kvs[0]) : undefined;
  }

  async range(prefix: string): Promise<RangeResult> {
    if (typeof prefix !== 'string') throw new StateStoreError('invalid_argument', 'prefix must be a string');
    const reply = await this.gateway.call<WireRange>('/v3/kv/range', prefixRange(prefix), 'idempotent');
    return { kvs: (reply.kvs ?? []).map(toKeyValue), revision: int(reply.header?.revision) };
  }

  async txn(request: TxnRequest): Promise<TxnResult> {
    checkTxn(request);
    const compare = request.compare.map((c) =>
      'modRevision' in c
        ? { key: b64(c.key), target: 'MOD', result: 'EQUAL', mod_revision: String(c.modRevision) }
        : { key: b64(c.key), target: 'CREATE', result: 'EQUAL', create_revision: String(c.createRevision) },
    );
    const reply = await this.gateway.call<WireTxn>(
      '/v3/kv/txn',
      { compare, success: request.ops.map(requestOp), failure: request.compare.map((c) => ({ request_range: { key: b64(c.key) } })) },
      'once',
    );
    const revision = int(reply.header?.revision);
    if (reply.succeeded) return { succeeded: true, revision };
    const current = new Map<string, KeyValue | undefined>();
    request.compare.forEach((c, i) => {
      const kv = reply.responses?.[i]?.response_range?.kvs?.[0];
      current.set(c.key, kv ? toKeyValue(kv) : undefined);
    });
    return { succeeded: false, revision, current };
  }

  async grantLease(ttlSeconds: number): Promise<Lease> {
    checkTtl(ttlSeconds);
    // Retried freely: a lease granted by a lost attempt is never kept alive and simply expires.
    const reply = await this.gateway.call<{ ID: string; TTL: string }>('/v3/lease/grant', { TTL: String(ttlSeconds) }, 'idempotent');
    return { id: reply.ID, ttlSeconds: int(reply.TTL) };
  }

  async keepAliveLease(id: LeaseId): Promise<number> {
    const reply = await this.gateway.call<{ result?: { TTL?: string } }>('/v3/lease/keepalive', { ID: id }, 'idempotent');
    // etcd answers an ended lease with TTL 0 (left out of the JSON) rather than an error.
    const ttl = int(reply.result?.TTL);
    if (ttl <= 0) throw new StateStoreError('lease_not_found', 'requested lease not found');
    return ttl;
  }

  async revokeLease(id: LeaseId): Promise<void> {
    await this.gateway.call('/v3/lease/revoke', { ID: id }, 'idempotent');
  }

  watch(prefix: string, options: WatchOptions = {}): AsyncIterable<WatchBatch> {
    if (typeof prefix !== 'string') throw new StateStoreError('invalid_argument', 'prefix must be a string');
    const start = options.fromRevision;
    if (start !== undefined && (!Number.isSafeInteger(start) || start < 1))
      throw new StateStoreError('invalid_argument', `fromRevision must be an integer ≥ 1, got ${start}`);
    return this.watchLoop(prefix, start, options.signal);
  }

  /** The store revision now (a count-only range of one key, linearizable). */
  private async currentRevision(): Promise<Revision> {
    const reply = await this.gateway.call<WireRange>('/v3/kv/range', { key: b64('\0'), count_only: true }, 'idempotent');
    return int(reply.header?.revision);
  }

  async compact(revision: Revision): Promise<void> {
    await this.gateway.call('/v3/kv/compaction', { revision: String(revision) }, 'idempotent');
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.gateway.close();
  }

  /** The watch: (re)opens the stream from `next` until the caller stops or compaction ends it. */
  private async *watchLoop(prefix: string, fromRevision: Revision | undefined, signal: AbortSignal | undefined): AsyncGenerator<WatchBatch> {
    if (this.closing.signal.aborted) throw new StateStoreError('closed', 'the etcd state store is closed');
    const stop = signal ? AbortSignal.any([signal, this.closing.signal]) : this.closing.signal;
    let next = fromRevision ?? (await this.currentRevision()) + 1;
    let pause = FIRST_WATCH_RETRY_PAUSE_MS;
    const range = prefixRange(prefix);
    while (!stop.aborted) {
      const attempt = new AbortController();
      const attemptSignal = AbortSignal.any([stop, attempt.signal]);
      let probe: NodeJS.Timeout | undefined;
      let endpoint: string | undefined;
      try {
        const stream = await this.gateway.stream('/v3/watch', { create_request: { ...range, start_revision: String(next) } }, attemptSignal);
        endpoint = stream.endpoint;
        probe = this.probeWhileOpen(stream.endpoint, range.key, attempt);
        for await (const message of stream.messages) {
          const failure = gatewayFailure(stream.endpoint, message);
          if (failure) throw failure.error;
          const result = message.result as WireWatchResult | undefined;
          if (!result) continue;
          if (result.canceled) {
            const compactRevision = int(result.compact_revision);
            if (compactRevision > 0) {
              throw new StateStoreError('compacted', `mvcc: required revision has been compacted (watch from ${next}, compacted at ${compactRevision})`, {
                compactRevision,
              });
            }
            throw new StateStoreError('unavailable', `[${stream.endpoint}] watch canceled: ${result.cancel_reason ?? 'no reason given'}`);
          }
          if (result.created) pause = FIRST_WATCH_RETRY_PAUSE_MS;
          for (const batch of batchesOf(result.events ?? [])) {
            if (batch.revision < next) continue; // already reported before a reconnect
            yield batch;
            next = batch.revision + 1;
          }
        }
        // The server ended the stream (member stopping): reopen elsewhere.
      } catch (err) {
        if (stop.aborted) return;
        if (isStateStoreError(err, 'compacted')) throw err;
      } finally {
        clearInterval(probe);
        attempt.abort();
      }
      if (stop.aborted) return;
      if (endpoint) this.gateway.avoid(endpoint);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, MAX_WATCH_RETRY_PAUSE_MS);
    }
  }

  /**
   * Probes `endpoint` with a linearizable read every `watchProbeIntervalMs`; aborts `attempt` (so
   * the watch reopens elsewhere) when the member does not answer in time or has no leader.
   */
  private probeWhileOpen(endpoint: string, key: string, attempt: AbortController): NodeJS.Timeout {
    const index = this.gateway.indexOf(endpoint);
    const body = JSON.stringify({ key, limit: '1', keys_only: true });
    let inFlight = false;
    const timer = setInterval(() => {
      if (inFlight) return;
      inFlight = true;
      this.gateway
        .attempt(index, '/v3/kv/range', body, this.probeTimeoutMs)
        .then(
          (outcome) => {
            if (!outcome.ok) attempt.abort();
          },
          () => attempt.abort(),
        )
        .finally(() => (inFlight = false));
    }, this.watchProbeIntervalMs);
    timer.unref();
    return timer;
  }
}

/** Groups a watch response's events by revision (etcd never splits one revision across responses). */
function batchesOf(events: Array<{ type?: 'PUT' | 'DELETE'; kv: WireKeyValue }>): WatchBatch[] {
  const batches: WatchBatch[] = [];
  for (const e of events) {
    const kv = toKeyValue(e.kv);
    const event: WatchEvent = { type: e.type === 'DELETE' ? 'delete' : 'put', kv };
    const last = batches[batches.length - 1];
    if (last && last.revision === kv.modRevision) last.events.push(event);
    else batches.push({ revision: kv.modRevision, events: [event] });
  }
  return batches;
}
