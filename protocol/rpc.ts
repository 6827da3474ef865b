/**
 * The RPC table: every internal action of the shard-node protocol, declared once. A descriptor
 * names the action and gives its HTTP method and path, its request and reply types (as type
 * parameters, so a call's types come from the descriptor), and what a caller may do with it:
 * batch it with other calls to the same node, read a pinned generation with it, fail it over to
 * another copy. The coordinator calls `client.rpc(node, rpc.query, req, opts)`
 * (coordinator/transport/shard-client.ts); the shard node binds a handler to the same descriptor
 * with `serve(app, rpc.query, handler)` (shard-node/rpc-serve.ts), in the action module of its
 * family (search, write, metadata, recovery). The fan-out, the batcher and the batch route read
 * the flags here, so no list of action names exists anywhere else.
 *
 * To add an action: declare its request and reply types in the protocol module of its family
 * (search.ts, write.ts, metadata.ts, recovery.ts, …), add a descriptor to {@link rpc} under its
 * name, bind its handler in that family's shard-node module (shard-node/search-routes.ts,
 * write-routes.ts, metadata-routes.ts, recovery-routes.ts) and call it through the client.
 * rpc.test.ts checks that names match keys and that no two actions share a method and path.
 * Mirrors Elasticsearch's `SearchTransportService`, which declares each shard action once (a
 * constant such as `indices:data/read/search[phase/query]`) and binds the same constant on both sides.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchTransportService.java
 * @see docs/architecture.md (the RPC table)
 */
import type { AggsRequest, AggsResponse } from './aggs.ts';
import type { ClusterSettingsResponse, ClusterSettingsUpdateRequest } from './cluster-settings.ts';
import { INTERNAL_PREFIX } from './echo.ts';
import type {
  AcknowledgedResponse,
  ClearCacheRequest,
  ClearCacheResponse,
  DeleteIndexRequest,
  HealthResponse,
  NodeIndicesResponse,
  NodeStats,
  PutIndexRequest,
  RefreshRequest,
  RefreshResponse,
} from './metadata.ts';
import type {
  RecoveryApplyRequest,
  RecoveryApplyResponse,
  RecoveryCancelRequest,
  RecoveryCancelResponse,
  RecoveryChunkRequest,
  RecoveryFinalizeRequest,
  RecoveryFinalizeResponse,
  RecoveryShardRequest,
  RecoveryStartRequest,
  RecoveryStartResponse,
  RecoveryStateResponse,
} from './recovery.ts';
import type {
  RecoveryDoneRequest,
  RecoveryFileChunkRequest,
  RecoveryFilesFinishRequest,
  RecoveryFilesPlanRequest,
  RecoveryFilesPlanResponse,
  RecoveryFilesStartRequest,
  RecoveryFilesStartResponse,
  RecoveryFileWriteRequest,
  RecoveryFileWriteResponse,
} from './recovery-files.ts';
import type {
  AdvanceScrollRequest,
  AdvanceScrollResponse,
  CloseContextsRequest,
  CloseContextsResponse,
  LabelPitRequest,
  LabelPitResponse,
  ListPitsResponse,
  OpenContextRequest,
  OpenContextResponse,
} from './search-contexts.ts';
import type {
  DfsRequest,
  DfsResponse,
  FetchRequest,
  FetchResponse,
  QueryPhaseRequest,
  QueryPhaseResponse,
  SelectRangeRequest,
  SelectRangeResponse,
  SelectSampleRequest,
  SelectSampleResponse,
} from './search.ts';
import type {
  RestoreShardRequest,
  RestoreShardResponse,
  SnapshotShardRequest,
  SnapshotShardResponse,
  VerifyRepositoryRequest,
  VerifyRepositoryResponse,
} from './snapshot.ts';
import type { BatchFrame, BatchRequest } from './wire-batch.ts';
import type { EntriesField } from './wire.ts';
import type { GetRequest, GetResponse, ReplicaBulkRequest, ReplicaBulkResponse, ShardBulkRequest, ShardBulkResponse } from './write.ts';

/** HTTP method of an internal action. */
export type RpcMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * Where an action's request travels: `json`, the body; `params`, the path's `:name` segments (GET
 * and DELETE, which carry no body); `bytes`, a raw body that the handler reads itself, with the
 * request as JSON in the `meta` query parameter.
 */
export type RpcInput = 'json' | 'params' | 'bytes';

/**
 * Where an action's reply travels: `json` (or, for an action with `entries`, the binary hits
 * format when the caller accepts it: protocol/wire.ts); `bytes`, a raw body with headers that the
 * caller reads unparsed (a recovery chunk).
 */
export type RpcOutput = 'json' | 'bytes';

/**
 * One internal action. `Req` and `Res` are its request and reply types: the client's `rpc()`
 * takes a `Req` and resolves to a `Res`, and the shard node's `serve()` hands its handler a `Req`
 * and expects a `Res`.
 */
export interface Rpc<Req, Res> {
  /** The action's name: its key in {@link rpc}. */
  readonly name: string;
  readonly method: RpcMethod;
  /** The route: `/_internal/v1/` + {@link Rpc.endpoint}; `:name` segments are filled from the request. */
  readonly path: string;
  /** The path after `/_internal/v1/`: a batch frame's `path`, the metrics' endpoint label, the profile's description. */
  readonly endpoint: string;
  readonly input: RpcInput;
  readonly output: RpcOutput;
  /** The reply's entries field (`hits`, `keys`) when it may travel in the binary hits format; absent: JSON only. */
  readonly entries?: EntriesField;
  /** A search round (read-only, per shard): concurrent calls to one node may travel in one `batch` call. */
  readonly batchable: boolean;
  /**
   * Reads the generation an earlier round of the same search pinned on one copy (the range round
   * reads the sample round's, an aggregation refinement the query round's): the pin cannot be
   * dropped, so no other copy can answer it.
   */
  readonly pinned: boolean;
  /**
   * A failed call may be retried on another in-sync copy of the shard (dropping any generation
   * pin: the other copy reads its current generation), unless it reads a PIT or scroll context.
   */
  readonly failover: boolean;
  /** The values of the path's `:name` segments (default: the request's own fields of those names). */
  readonly pathParams?: (req: Req) => Record<string, string>;
  /** Type carrier only, never set: a call's request and reply types come from the descriptor. */
  readonly types?: (req: Req) => Res;
}

/** Any descriptor, whatever its types (a list of actions, a lookup by endpoint). */
export type AnyRpc = Rpc<never, unknown>;

/** The request type of a descriptor. */
export type RpcRequest<D> = D extends Rpc<infer Req, unknown> ? Req : never;
/** The reply type of a descriptor. */
export type RpcReply<D> = D extends Rpc<never, infer Res> ? Res : never;

/** What {@link action} needs; the flags default to false, `input` to `params` for GET and DELETE, else `json`. */
interface RpcSpec<Req> {
  name: string;
  method: RpcMethod;
  endpoint: string;
  input?: RpcInput;
  output?: RpcOutput;
  entries?: EntriesField;
  batchable?: boolean;
  pinned?: boolean;
  failover?: boolean;
  pathParams?: (req: Req) => Record<string, string>;
}

/** Builds a frozen descriptor from its spec. */
function action<Req, Res>(spec: RpcSpec<Req>): Rpc<Req, Res> {
  const input = spec.input ?? (spec.method === 'GET' || spec.method === 'DELETE' ? 'params' : 'json');
  return Object.freeze({ output: 'json', batchable: false, pinned: false, failover: false, ...spec, input, path: `${INTERNAL_PREFIX}/${spec.endpoint}` });
}

/**
 * The reply of `bulk`: the shard's bulk reply, or, when the caller accepts NDJSON
 * (protocol/shard-bulk-reply.ts), the parsed lines it decodes into one.
 */
export type ShardBulkReply = ShardBulkResponse | unknown[];

/** Every internal action, by name. */
export const rpc = {
  // Search rounds (shard-node/search-actions.ts): read-only, per shard, batchable.
  dfs: action<DfsRequest, DfsResponse>({ name: 'dfs', method: 'POST', endpoint: 'dfs', batchable: true, failover: true }),
  query: action<QueryPhaseRequest, QueryPhaseResponse>({ name: 'query', method: 'POST', endpoint: 'query', entries: 'hits', batchable: true, failover: true }),
  selectSample: action<SelectSampleRequest, SelectSampleResponse>({
    name: 'selectSample',
    method: 'POST',
    endpoint: 'select/sample',
    entries: 'keys',
    batchable: true,
    failover: true,
  }),
  selectRange: action<SelectRangeRequest, SelectRangeResponse>({
    name: 'selectRange',
    method: 'POST',
    endpoint: 'select/range',
    entries: 'hits',
    batchable: true,
    pinned: true,
  }),
  fetch: action<FetchRequest, FetchResponse>({ name: 'fetch', method: 'POST', endpoint: 'fetch', batchable: true, failover: true }),
  aggs: action<AggsRequest, AggsResponse>({ name: 'aggs', method: 'POST', endpoint: 'aggs', batchable: true, pinned: true }),
  /** Several batchable calls in one request (protocol/wire-batch.ts); its reply is the frames' binary body. */
  batch: action<BatchRequest, BatchFrame[]>({ name: 'batch', method: 'POST', endpoint: 'batch', output: 'bytes' }),
  // Search contexts (PIT, scroll).
  openContext: action<OpenContextRequest, OpenContextResponse>({ name: 'openContext', method: 'POST', endpoint: 'contexts/open', failover: true }),
  advanceScroll: action<AdvanceScrollRequest, AdvanceScrollResponse>({ name: 'advanceScroll', method: 'POST', endpoint: 'contexts/advance' }),
  closeContexts: action<CloseContextsRequest, CloseContextsResponse>({ name: 'closeContexts', method: 'POST', endpoint: 'contexts/close' }),
  /** Names the PIT a coordinator's just-opened contexts belong to, so any coordinator can list it (OpenSearch's PIT `_all`). */
  labelPit: action<LabelPitRequest, LabelPitResponse>({ name: 'labelPit', method: 'POST', endpoint: 'contexts/pit' }),
  listPits: action<void, ListPitsResponse>({ name: 'listPits', method: 'GET', endpoint: 'contexts/pits' }),
  // Documents: a bulk on its primary, its replication to a replica (node to node), a realtime get.
  bulk: action<ShardBulkRequest, ShardBulkReply>({ name: 'bulk', method: 'POST', endpoint: 'bulk' }),
  replicate: action<ReplicaBulkRequest, ReplicaBulkResponse>({ name: 'replicate', method: 'POST', endpoint: 'replicate' }),
  get: action<GetRequest, GetResponse>({ name: 'get', method: 'POST', endpoint: 'get' }),
  // Node and index metadata.
  health: action<void, HealthResponse>({ name: 'health', method: 'GET', endpoint: 'health' }),
  stats: action<void, NodeStats>({ name: 'stats', method: 'GET', endpoint: 'stats' }),
  listIndices: action<void, NodeIndicesResponse>({ name: 'listIndices', method: 'GET', endpoint: 'indices' }),
  putIndex: action<PutIndexRequest, AcknowledgedResponse>({
    name: 'putIndex',
    method: 'PUT',
    endpoint: 'indices/:index',
    pathParams: (r) => ({ index: r.metadata.name }),
  }),
  deleteIndex: action<DeleteIndexRequest, AcknowledgedResponse>({ name: 'deleteIndex', method: 'DELETE', endpoint: 'indices/:index' }),
  refresh: action<RefreshRequest, RefreshResponse>({ name: 'refresh', method: 'POST', endpoint: 'refresh' }),
  flush: action<RefreshRequest, RefreshResponse>({ name: 'flush', method: 'POST', endpoint: 'flush' }),
  /** Empties the shard request cache of indices' copies (`POST /_cache/clear`). */
  clearCache: action<ClearCacheRequest, ClearCacheResponse>({ name: 'clearCache', method: 'POST', endpoint: 'cache/clear' }),
  getClusterSettings: action<void, ClusterSettingsResponse>({ name: 'getClusterSettings', method: 'GET', endpoint: 'cluster_settings' }),
  putClusterSettings: action<ClusterSettingsUpdateRequest, ClusterSettingsResponse>({
    name: 'putClusterSettings',
    method: 'PUT',
    endpoint: 'cluster_settings',
  }),
  // Peer recovery, driven by the coordinator (coordinator/cluster/recovery.ts).
  recoveryState: action<RecoveryShardRequest, RecoveryStateResponse>({ name: 'recoveryState', method: 'POST', endpoint: 'recovery/state' }),
  recoveryReset: action<RecoveryShardRequest, RecoveryStateResponse>({ name: 'recoveryReset', method: 'POST', endpoint: 'recovery/reset' }),
  recoveryStart: action<RecoveryStartRequest, RecoveryStartResponse>({ name: 'recoveryStart', method: 'POST', endpoint: 'recovery/start' }),
  recoveryChunk: action<RecoveryChunkRequest, Uint8Array>({ name: 'recoveryChunk', method: 'POST', endpoint: 'recovery/chunk', output: 'bytes' }),
  recoveryCancel: action<RecoveryCancelRequest, RecoveryCancelResponse>({ name: 'recoveryCancel', method: 'POST', endpoint: 'recovery/cancel' }),
  recoveryApply: action<RecoveryApplyRequest, RecoveryApplyResponse>({ name: 'recoveryApply', method: 'POST', endpoint: 'recovery/apply', input: 'bytes' }),
  recoveryFinalize: action<RecoveryFinalizeRequest, RecoveryFinalizeResponse>({ name: 'recoveryFinalize', method: 'POST', endpoint: 'recovery/finalize' }),
  // File-based recovery's phase 1 (protocol/recovery-files.ts): the primary's pinned commit, file by file in chunks.
  recoveryFilesStart: action<RecoveryFilesStartRequest, RecoveryFilesStartResponse>({
    name: 'recoveryFilesStart',
    method: 'POST',
    endpoint: 'recovery/files/start',
  }),
  recoveryFileChunk: action<RecoveryFileChunkRequest, Uint8Array>({
    name: 'recoveryFileChunk',
    method: 'POST',
    endpoint: 'recovery/files/chunk',
    output: 'bytes',
  }),
  recoveryFilesPlan: action<RecoveryFilesPlanRequest, RecoveryFilesPlanResponse>({
    name: 'recoveryFilesPlan',
    method: 'POST',
    endpoint: 'recovery/files/plan',
  }),
  recoveryFileWrite: action<RecoveryFileWriteRequest, RecoveryFileWriteResponse>({
    name: 'recoveryFileWrite',
    method: 'POST',
    endpoint: 'recovery/files/write',
    input: 'bytes',
  }),
  recoveryFilesFinish: action<RecoveryFilesFinishRequest, RecoveryStateResponse>({
    name: 'recoveryFilesFinish',
    method: 'POST',
    endpoint: 'recovery/files/finish',
  }),
  recoveryDone: action<RecoveryDoneRequest, RecoveryCancelResponse>({ name: 'recoveryDone', method: 'POST', endpoint: 'recovery/done' }),
  // Snapshots, driven by the coordinator (coordinator/snapshots/): a primary copies its commit to a repository, or restores one.
  snapshotShard: action<SnapshotShardRequest, SnapshotShardResponse>({ name: 'snapshotShard', method: 'POST', endpoint: 'snapshot/shard' }),
  restoreShard: action<RestoreShardRequest, RestoreShardResponse>({ name: 'restoreShard', method: 'POST', endpoint: 'snapshot/restore' }),
  verifyRepository: action<VerifyRepositoryRequest, VerifyRepositoryResponse>({ name: 'verifyRepository', method: 'POST', endpoint: 'snapshot/verify' }),
} as const;

/** Every descriptor of {@link rpc}. */
export const RPCS: readonly AnyRpc[] = Object.values(rpc);

const BATCHABLE: ReadonlyMap<string, AnyRpc> = new Map(RPCS.filter((d) => d.batchable).map((d) => [d.endpoint, d]));

/** The batchable action at `endpoint` (a batch frame's `path`), or undefined. */
export function batchableRpc(endpoint: string): AnyRpc | undefined {
  return BATCHABLE.get(endpoint);
}

/**
 * A request already serialized to JSON text (or its UTF-8 bytes), sent as is: a large body is
 * serialized in slices by the caller (shared/sliced-json.ts), or built as bytes (a shard's share of
 * a bulk: coordinator/write/shard-ops.ts), rather than by one `JSON.stringify` in the call. `Req` is
 * the type the text encodes.
 */
export class JsonText<Req = unknown> {
  /** The JSON text, or its UTF-8 bytes (a large request built as bytes: coordinator/write/shard-ops.ts). */
  readonly text: string | Buffer;
  /** Type carrier only, never set. */
  declare readonly encodes?: Req;
  constructor(text: string | Buffer) {
    this.text = text;
  }
}

/**
 * The path of one call: the route with its `:name` segments filled from `req` (URI-encoded), and
 * for a `bytes` action the request as JSON in the `meta` query parameter.
 */
export function requestPath<Req>(d: Rpc<Req, unknown>, req: Req): string {
  let path = d.path;
  if (path.includes('/:')) {
    const params = d.pathParams ? d.pathParams(req) : (req as Record<string, unknown>);
    path = path.replace(/:([A-Za-z_]+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
  }
  if (d.input === 'bytes') path += `?meta=${encodeURIComponent(JSON.stringify(req))}`;
  return path;
}
