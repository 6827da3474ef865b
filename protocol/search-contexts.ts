/**
 * The explicit search contexts between coordinator and shard nodes: a PIT or scroll opens one
 * context per shard that pins the shard's generation; a scroll batch records its position on them;
 * OpenSearch's PIT listing labels them with their PIT; closing frees them. Part of the internal
 * shard-node protocol (protocol/rpc.ts binds each request to its action).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/point-in-time-api.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/paginate-search-results.html#scroll-search-results
 */
import type { ShardEcho } from './echo.ts';
import type { SortValue } from './sort.ts';

/**
 * POST /_internal/v1/contexts/open: pin the current generation of a shard in a new search context
 * (PIT or scroll) for `keepAliveMs`. Over the node's limit: 429 (`too_many_scroll_contexts_exception`
 * for scroll, `rejected_execution_exception` for PIT).
 */
export interface OpenContextRequest {
  index: string;
  shard: number;
  kind: 'pit' | 'scroll';
  keepAliveMs: number;
}

/** Reply to {@link OpenContextRequest}. */
export interface OpenContextResponse extends ShardEcho {
  /** Node-local context id. */
  context: number;
  generation: number;
}

/**
 * POST /_internal/v1/contexts/pit: names the PIT the listed contexts (of this node) belong to, once
 * the coordinator has its id, so the node can list it (OpenSearch `GET /_search/point_in_time/_all`).
 */
export interface LabelPitRequest {
  ids: number[];
  pitId: string;
  /** When the PIT was opened, epoch ms. */
  creationTime: number;
  /** The keep-alive it was opened with, ms. */
  keepAliveMs: number;
}

/** Reply to POST /_internal/v1/contexts/pit: how many of the listed ids were open PIT contexts here, now labelled. */
export interface LabelPitResponse {
  node: string;
  labelled: number;
}

/** One open PIT context of a node, by the PIT it belongs to ({@link LabelPitRequest}). */
export interface ListedPit {
  pitId: string;
  creationTime: number;
  keepAliveMs: number;
}

/** Reply to GET /_internal/v1/contexts/pits: the node's open, labelled PIT contexts. */
export interface ListPitsResponse {
  node: string;
  pits: ListedPit[];
}

/** POST /_internal/v1/contexts/close: close contexts by id, or every context of a kind. */
export interface CloseContextsRequest {
  ids?: number[];
  allOfKind?: 'pit' | 'scroll';
}

/**
 * POST /_internal/v1/contexts/advance: after a scroll batch, record on each listed scroll context
 * that the scroll has returned hits up to `after` (the full sort values of the batch's last hit),
 * if the context still holds the position `seq` the batch's query phase read.
 */
export interface AdvanceScrollRequest {
  contexts: { index: string; shard: number; id: number; seq: number }[];
  after: SortValue[];
}

/** Reply to {@link AdvanceScrollRequest}: how many contexts moved (the others were gone or already moved on). */
export interface AdvanceScrollResponse {
  node: string;
  advanced: number;
}

/** Reply to {@link CloseContextsRequest}: how many of them were open. */
export interface CloseContextsResponse {
  node: string;
  freed: number;
}
