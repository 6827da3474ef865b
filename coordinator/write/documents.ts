/**
 * The write path: `_bulk` and the single-document APIs, which are one-item bulks. Items are
 * routed with ES's formula, grouped per shard, and sent in parallel; dynamic mapping updates are
 * pushed to every node before the documents that need them (as ES's master applies them first);
 * an alias stands for its write index; a missing index is auto-created (`action.auto_create_index: true`)
 * unless the item requires an alias. Each shard's ops are written to
 * its primary and then its in-sync replicas (replication.ts). The reply is ES's, item by item, in
 * request order, each acknowledged item with its shard's `_shards` (copies configured, copies that
 * have it, replicas that failed).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-bulk.html
 */
import { EventLoopSlices } from '../../shared/event-loop-slices.ts';
import { randomBytes } from 'node:crypto';
import { EsError, illegalArgument, toEsError, validationFailed } from '../../protocol/errors.ts';
import type { RefreshPolicy, WriteOp } from '../../protocol/write.ts';
import { shardForRouting } from '../cluster/routing.ts';
import { resolveBulkTargets } from '../cluster/aliases/alias-targets.ts';
import type { BulkItem } from '../rest/bulk-parse.ts';
import { BulkItems } from '../rest/bulk-items.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import type { NewIndexSpec } from '../cluster/new-index.ts';
import type { IndexView } from '../cluster/index-view.ts';
import { parseCreateIndexBody, validateIndexName } from '../cluster/index-settings.ts';
import { applyDynamicMappings } from './bulk-dynamic-mappings.ts';
import { writeShard, type ShardWriteOutcome } from './replication.ts';
import { ShardOpsBuilder } from './shard-ops.ts';
import {
  anyItemFailed,
  bulkResponseItem,
  fetchSourceOf,
  updateBodyOf,
  type BulkOptions,
  type BulkOutcome,
  type BulkResponse,
  type BulkResponseItem,
  type BulkRun,
  type ShardWrites,
} from './bulk-response.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { checkShardLimit, configuredShards, DEFAULT_MAX_SHARDS_PER_NODE, totalShards } from '../cluster/shard-limit.ts';
import { MAX_ID_BYTES, missingPipeline, validationMessages, writeConditionsOf } from './write-request.ts';

export type { BulkOptions, BulkOutcome, BulkResponse, BulkResponseItem } from './bulk-response.ts';

/** Services the write path uses. */
export interface WriteDeps {
  view: ClusterView;
  client: ShardClient;
  timeoutMs: number;
  /** The cluster's `cluster.max_shards_per_node` (absent: ES's default, 1000), bounding auto-created indices. */
  maxShardsPerNode?: () => number;
}

/** ES-style auto-generated `_id`: 20 URL-safe base64 characters. */
export function generateId(): string {
  return randomBytes(15).toString('base64url');
}

/**
 * Creates an index after ES's shard limit check (coordinator/cluster/shard-limit.ts) against the indices this
 * coordinator knows (its view is at most about a second old).
 * @throws EsError 400 `validation_exception` over `cluster.max_shards_per_node`; else as {@link ClusterView.create}
 */
export async function createIndex(deps: Pick<WriteDeps, 'view' | 'client' | 'maxShardsPerNode'>, name: string, spec: NewIndexSpec): Promise<IndexView> {
  const known = deps.view.names().flatMap((n) => deps.view.peek(n)?.metadata ?? []);
  checkShardLimit({
    newShards: configuredShards(spec),
    currentShards: totalShards(known),
    maxShardsPerNode: deps.maxShardsPerNode?.() ?? DEFAULT_MAX_SHARDS_PER_NODE,
    dataNodes: deps.client.nodes.length,
  });
  return deps.view.create(name, spec);
}

/** Auto-creates missing indices named by the items (default settings), tolerating concurrent creation. */
async function ensureIndices(names: Iterable<string>, deps: WriteDeps): Promise<Map<string, IndexView | EsError>> {
  const out = new Map<string, IndexView | EsError>();
  for (const name of names) {
    try {
      out.set(name, await deps.view.getOpen(name));
    } catch (err) {
      if (!(err instanceof EsError) || err.type !== 'index_not_found_exception') {
        out.set(name, toEsError(err));
        continue;
      }
      try {
        validateIndexName(name);
        out.set(name, await createIndex(deps, name, parseCreateIndexBody({})));
      } catch (createErr) {
        const es = toEsError(createErr);
        out.set(name, es.type === 'resource_already_exists_exception' ? await deps.view.get(name) : es);
      }
    }
  }
  return out;
}

/**
 * ES's `validate()` of every item (write-request.ts): a bulk with an invalid item fails as a whole,
 * with every item's messages in order (`BulkRequest.validate`).
 * @throws EsError 400 `action_request_validation_exception` (the promise rejects)
 */
async function validateItems(items: BulkItems, slices: EventLoopSlices): Promise<void> {
  const messages: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const pause = slices.tick();
    if (pause) await pause;
    // The common items are valid: an index or create without parameters and an _id of at most 512
    // bytes, or a delete without parameters and an _id of 1 to 512 bytes.
    const action = items.action(i);
    const idBytes = items.idByteLength(i);
    if (
      items.extra(i)?.params === undefined &&
      items.index(i) !== undefined &&
      idBytes <= MAX_ID_BYTES &&
      (action === 'index' || action === 'create' || (action === 'delete' && idBytes > 0))
    )
      continue;
    const item = items.get(i);
    const u = item.action === 'update' ? updateBodyOf(item) : undefined;
    const update = u && { hasDoc: u.doc !== undefined || u.script, hasUpsert: u.upsert !== undefined, docAsUpsert: u.docAsUpsert };
    messages.push(...validationMessages({ action: item.action, index: item.index, id: item.id, params: item.params ?? {}, ...(update ? { update } : {}) }));
  }
  if (messages.length > 0) throw validationFailed(messages);
}

/**
 * A valid item's own failure before routing (ES fails just that item): an empty `_id` for an
 * `index`/`create` (`IndexRouting.process`), or an ingest pipeline that does not exist.
 */
function itemFailure(items: BulkItems, i: number, opts: BulkOptions): EsError | undefined {
  const action = items.action(i);
  if (action !== 'index' && action !== 'create') return undefined;
  if (items.idByteLength(i) === 0) return illegalArgument('if _id is specified it must not be empty');
  const pipeline = items.extra(i)?.params?.pipeline ?? opts.pipeline;
  return pipeline === undefined ? undefined : missingPipeline({ pipeline });
}

/** Converts a parsed item into the shard write op. @throws EsError for an unsupported update body */
function toWriteOp(item: BulkItem, id: string, opts: BulkOptions): WriteOp {
  const cond = writeConditionsOf(item.params ?? {});
  switch (item.action) {
    case 'index':
    case 'create':
      return { op: 'index', _id: id, source: item.sourceText ?? JSON.stringify(item.source), create: item.action === 'create', ...routingOf(item), ...cond };
    case 'delete':
      return { op: 'delete', _id: id, ...cond };
    case 'update': {
      const body = updateBodyOf(item);
      if (body.script) throw new EsError(400, 'illegal_argument_exception', 'scripted updates are not supported by Folio');
      return {
        op: 'update',
        _id: id,
        doc: body.doc ?? {},
        docAsUpsert: body.docAsUpsert,
        ...(body.upsert !== undefined ? { upsert: body.upsert } : {}),
        ...(body.detectNoop ? {} : { detectNoop: false }),
        ...(fetchSourceOf(item, opts) !== undefined ? { fetchSource: true } : {}),
        ...routingOf(item),
        ...cond,
      };
    }
  }
}

/** The item's custom routing, kept with the document as its `_routing` (ES `RoutingFieldMapper`). */
function routingOf(item: BulkItem): { routing?: string } {
  return item.routing !== undefined ? { routing: item.routing } : {};
}

/**
 * Records the items that fail before routing in `failed`: the parser's failures and each valid
 * item's own ({@link itemFailure}).
 * @returns the positions whose error names no index (ES reports it as thrown: `{type, reason}`)
 */
async function failBeforeRouting(items: BulkItems, opts: BulkOptions, failed: Map<number, unknown>, slices: EventLoopSlices): Promise<Set<number>> {
  const bare = new Set<number>();
  for (let i = 0; i < items.length; i++) {
    const parseFailure = items.extra(i)?.failure;
    const pause = slices.tick();
    if (pause) await pause;
    const own = parseFailure ? undefined : itemFailure(items, i, opts);
    if (own) bare.add(i);
    const failure = parseFailure ?? own;
    if (failure) failed.set(i, failure);
  }
  return bare;
}

/** One shard's ops of a bulk, as bytes, with the positions of their items in the request (shard-ops.ts). */
interface ShardGroup {
  view: IndexView;
  shard: number;
  ops: ShardOpsBuilder;
}

/**
 * Routes each item not failed yet to its shard with ES's formula (its `routing`, else its `_id`
 * `ids[i]`) and groups the write ops per shard, in request order; an item whose index failed, or
 * whose op cannot be built, fails alone in `failed`.
 */
async function groupByShard(
  items: BulkItems,
  views: Map<string, IndexView | EsError>,
  failed: Map<number, unknown>,
  opts: BulkOptions,
  slices: EventLoopSlices,
): Promise<Map<string, ShardGroup>> {
  const groups = new Map<string, ShardGroup>();
  for (let i = 0; i < items.length; i++) {
    const pause = slices.tick();
    if (pause) await pause;
    if (failed.has(i)) continue;
    const view = views.get(items.index(i)!)!;
    if (view instanceof EsError) {
      failed.set(i, view);
      continue;
    }
    const m = view.metadata;
    try {
      const id = items.id(i)!;
      const extra = items.extra(i);
      // A delete without parameters (the common one) needs no item object.
      const op = extra === undefined && items.action(i) === 'delete' ? undefined : toWriteOp(items.get(i), id, opts);
      const shard = shardForRouting(extra?.routing ?? id, m.numberOfShards, m.routingNumShards);
      const key = `${m.name}\u0000${shard}`;
      let g = groups.get(key);
      if (g === undefined) groups.set(key, (g = { view, shard, ops: new ShardOpsBuilder() }));
      if (op === undefined) g.ops.addDelete(i, id);
      else g.ops.add(i, op);
    } catch (err) {
      failed.set(i, err);
    }
  }
  return groups;
}

/**
 * Writes every shard's group in parallel (replication.ts); the items of a group whose write fails
 * fail in `failed` with its EsError, or ES's 503 `unavailable_shards_exception`.
 */
async function writeGroups(
  groups: Map<string, ShardGroup>,
  items: BulkItems,
  refresh: RefreshPolicy,
  deps: WriteDeps,
  failed: Map<number, unknown>,
): Promise<ShardWrites> {
  // Each item's shard write and its place in it, in typed arrays: no object or pointer per item (issue 11).
  const outcomes: ShardWriteOutcome[] = [];
  const outcomeOf = new Int32Array(items.length).fill(-1);
  const slotOf = new Int32Array(items.length);
  await Promise.all(
    [...groups.values()].map(async (g) => {
      const index = g.view.metadata.name;
      const built = g.ops;
      try {
        const res = await writeShard(
          deps,
          g.view,
          g.shard,
          built.build((p) => items.id(p)!),
          refresh,
        );
        const o = outcomes.push(res) - 1;
        for (let j = 0; j < built.count; j++) {
          outcomeOf[built.position(j)] = o;
          slotOf[built.position(j)] = j;
        }
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        const unavailable =
          err instanceof EsError ? err : new EsError(503, 'unavailable_shards_exception', `[${index}][${g.shard}] primary shard is not active: ${reason}`);
        for (let j = 0; j < built.count; j++) failed.set(built.position(j), unavailable);
      }
    }),
  );
  const outcome = (p: number): ShardWriteOutcome | undefined => (outcomeOf[p] < 0 ? undefined : outcomes[outcomeOf[p]]);
  return {
    result: (p) => {
      const results = outcome(p)?.results;
      return results === undefined || slotOf[p] >= results.length ? null : results.get(slotOf[p]);
    },
    shardInfo: (p) => outcome(p)?.shardInfo ?? null,
    forcedRefresh: (p) => outcome(p)?.forcedRefresh ?? false,
  };
}

/**
 * Executes parsed bulk items (held as columns: rest/bulk-items.ts; the items without an `_id` get
 * their generated one in `items`). Per-item failures (a bad document, a version conflict, an unreachable
 * shard, an unknown pipeline) are reported in their item with `errors: true`; the call itself only
 * throws for failures that concern the whole request. The reply's items are built on demand
 * ({@link BulkOutcome.item}), so a large reply can be serialized without holding an object per item
 * (coordinator/http/http.ts `sendJsonItemsSliced`).
 * @throws EsError 400 `action_request_validation_exception` when an item fails ES's validation
 *   (write-request.ts): nothing is written, as ES's `BulkRequest.validate`.
 */
export async function executeBulkOutcome(items: BulkItems, refresh: RefreshPolicy, deps: WriteDeps, opts: BulkOptions = {}): Promise<BulkOutcome> {
  const startedAt = Date.now();
  // A bulk of 100,000 items is validated, routed and answered in slices that yield to the event loop
  // (shared/event-loop-slices.ts), so it does not hold the coordinator's other requests.
  const slices = new EventLoopSlices();
  await validateItems(items, slices);
  const failed = new Map<number, unknown>();
  const bare = await failBeforeRouting(items, opts, failed, slices);
  // Aliases: each item to its alias's write index (and `require_alias` checked) before indices are auto-created.
  items = await resolveBulkTargets(items, failed, deps.view);
  const names = new Set<string>();
  for (let i = 0; i < items.length; i++) if (!failed.has(i)) names.add(items.index(i)!);
  const views = await ensureIndices(names, deps);
  await applyDynamicMappings(items, views, failed, deps, slices);

  items.fillIds(generateId); // each item's `_id` from here on: its own, or the one generated for it
  const groups = await groupByShard(items, views, failed, opts, slices);
  const writes = await writeGroups(groups, items, refresh, deps, failed);

  const run: BulkRun = { items, views, failed, bare, writes, opts };
  return { errors: await anyItemFailed(run), took: Date.now() - startedAt, length: items.length, item: (i) => bulkResponseItem(run, i) };
}

/**
 * {@link executeBulkOutcome} with every reply item built (in slices that yield to the event loop):
 * ES's `BulkResponse`, for callers that read the items (single-document writes, `_reindex`,
 * `_update_by_query`). @throws as {@link executeBulkOutcome}
 */
export async function executeBulk(items: readonly BulkItem[], refresh: RefreshPolicy, deps: WriteDeps, opts: BulkOptions = {}): Promise<BulkResponse> {
  const outcome = await executeBulkOutcome(BulkItems.of(items), refresh, deps, opts);
  const slices = new EventLoopSlices();
  const out: BulkResponseItem[] = [];
  for (let i = 0; i < outcome.length; i++) {
    const pause = slices.tick();
    if (pause) await pause;
    out.push(outcome.item(i));
  }
  return { errors: outcome.errors, took: outcome.took, items: out };
}
