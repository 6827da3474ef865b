/**
 * `GET /_cat/indices[/{index}]`, `GET /_cat/shards[/{index}]` and `GET /_cat/aliases[/{alias}]`: ES's default columns, aliases
 * and formats (text, `?v`, `?h=`, `?s=`, `?bytes=`, `?help`, `?format=json`), built from the index
 * metadata and the shard nodes' `GET /_internal/v1/stats`.
 *
 * Store sizes are **estimates**: the shard nodes report document counts, not bytes, so
 * `store.size` is (live + deleted docs) × {@link ESTIMATED_STORE_BYTES_PER_DOC}. `_cat/shards` lists
 * every copy: `STARTED` when it serves, `INITIALIZING` while it recovers from its primary (out of
 * sync, its node answering), else `UNASSIGNED` with ES's reason (`NODE_LEFT`: its node does not
 * answer; `ALLOCATION_FAILED`: out of sync and not recoverable now (its primary is down, or its
 * node no longer reports it); `INDEX_CREATED`: a replica no node can hold, as ES shows replicas it
 * cannot place).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cat-indices.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cat-shards.html
 */
import type { Context, Hono } from 'hono';
import { illegalArgument } from '../../../protocol/errors.ts';
import { CAT_ALIASES_COLUMNS, catAliasesRows } from '../../cluster/aliases/alias-responses.ts';
import { renderCatTable, type CatCell, type CatColumn, type CatTable } from '../cat-table.ts';
import { copyActive, copyInitializing, indexHealth } from '../../cluster/cluster-health.ts';
import type { ClusterView } from '../../cluster/cluster-view.ts';
import type { IndexView } from '../../cluster/index-view.ts';
import { checkParams, queryParams, sendJson } from '../http.ts';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom } from '../../cluster/indices-options.ts';
import { isClosed } from '../../cluster/index-state.ts';
import { fetchClusterStats, shardKey, type ClusterStats, type ShardStatsEntry } from '../../cluster/node-probe.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import type { ShardClient } from '../../transport/shard-client.ts';

/** Rough on-disk bytes per document used for the estimated `store.size` columns. */
export const ESTIMATED_STORE_BYTES_PER_DOC = 1024;

/** Services the cat routes use. */
export interface CatRouteDeps {
  view: ClusterView;
  client: ShardClient;
}

/** `_cat/indices` columns (ES `RestIndicesAction.getTableWithHeader`, the ones Folio can fill). */
export const CAT_INDICES_COLUMNS: readonly CatColumn[] = [
  { name: 'health', aliases: ['h'], desc: 'current health status' },
  { name: 'status', aliases: ['s'], desc: 'open/close status' },
  { name: 'index', aliases: ['i', 'idx'], desc: 'index name' },
  { name: 'uuid', aliases: ['id', 'uuid'], desc: 'index uuid' },
  { name: 'pri', aliases: ['p', 'shards.primary', 'shardsPrimary'], desc: 'number of primary shards', right: true },
  { name: 'rep', aliases: ['r', 'shards.replica', 'shardsReplica'], desc: 'number of replica shards', right: true },
  { name: 'docs.count', aliases: ['dc', 'docsCount'], desc: 'available docs', right: true },
  { name: 'docs.deleted', aliases: ['dd', 'docsDeleted'], desc: 'deleted docs', right: true },
  { name: 'creation.date', aliases: ['cd'], desc: 'index creation date (millisecond value)', default: false },
  { name: 'creation.date.string', aliases: ['cds'], desc: 'index creation date (as string)', default: false },
  { name: 'store.size', aliases: ['ss', 'storeSize'], desc: 'store size of primaries & replicas (estimated)', right: true },
  { name: 'pri.store.size', desc: 'store size of primaries (estimated)', right: true },
  { name: 'dataset.size', desc: 'total size of dataset (estimated)', right: true },
  { name: 'segments.count', aliases: ['sc', 'segmentsCount'], desc: 'number of segments', default: false, right: true },
];

/** `_cat/shards` columns (ES `RestShardsAction.getTableWithHeader`, the ones Folio can fill). */
export const CAT_SHARDS_COLUMNS: readonly CatColumn[] = [
  { name: 'index', aliases: ['i', 'idx'], desc: 'index name' },
  { name: 'shard', aliases: ['s', 'sh'], desc: 'shard name' },
  { name: 'prirep', aliases: ['p', 'pr', 'primaryOrReplica'], desc: 'primary or replica' },
  { name: 'state', aliases: ['st'], desc: 'shard state' },
  { name: 'docs', aliases: ['d', 'dc'], desc: 'number of docs in shard', right: true },
  { name: 'store', aliases: ['sto'], desc: 'store size of shard (estimated)', right: true },
  { name: 'dataset', desc: 'total size of dataset (estimated)', right: true },
  { name: 'ip', desc: 'ip of node where it lives' },
  { name: 'id', desc: 'unique id of node where it lives', default: false },
  { name: 'node', aliases: ['n'], desc: 'name of node where it lives' },
  { name: 'unassigned.reason', aliases: ['ur'], desc: 'reason shard became unassigned', default: false },
  { name: 'segments.count', aliases: ['sc', 'segmentsCount'], desc: 'number of segments', default: false, right: true },
];

const bytesOfDocs = (s: ShardStatsEntry) => (s.docs + s.deleted) * ESTIMATED_STORE_BYTES_PER_DOC;

/** The stats of each primary of `view`, from the node it is placed on (null when that node is down). */
function primaryStats(view: IndexView, stats: ClusterStats): (ShardStatsEntry | null)[] {
  return view.placement.map((node, shard) =>
    stats.nodes[node]?.reachable ? (stats.shards.get(shardKey(view.metadata.name, shard))?.get(node) ?? null) : null,
  );
}

/**
 * The `_cat/indices` table. Counts are over primaries (as ES's `docs.count`); an index whose
 * shards all failed to report shows empty counts.
 */
export function catIndicesTable(views: readonly IndexView[], stats: ClusterStats, healthFilter?: string): CatTable {
  const reachable = stats.nodes.map((n) => n.reachable);
  const rows: CatCell[][] = [];
  for (const v of views) {
    const m = v.metadata;
    const health = indexHealth(m, v.copies, reachable).status;
    if (healthFilter !== undefined && health !== healthFilter) continue;
    // A closed index shows its health, state, shards and replicas; its stats columns stay empty, as ES's.
    const closed = isClosed(m);
    const prim = closed ? [] : primaryStats(v, stats).filter((s): s is ShardStatsEntry => s !== null);
    const sum = (f: (s: ShardStatsEntry) => number): number | null => (prim.length === 0 ? null : prim.reduce((n, s) => n + f(s), 0));
    const bytes = sum(bytesOfDocs);
    const size = bytes === null ? null : { bytes };
    rows.push([
      health,
      closed ? 'close' : 'open',
      m.name,
      m.uuid,
      m.numberOfShards,
      m.numberOfReplicas,
      sum((s) => s.docs),
      sum((s) => s.deleted),
      m.creationDate,
      new Date(m.creationDate).toISOString(),
      size,
      size,
      size,
      sum((s) => s.segments),
    ]);
  }
  return { columns: CAT_INDICES_COLUMNS, rows };
}

/**
 * The `_cat/shards` table: per shard its primary, its replicas, then the replicas no node holds
 * (unassigned), at most as many of those as there are shard nodes: a shard has at most
 * 2 × nodes rows, whatever its `number_of_replicas` (ES lists every configured replica; its shard
 * limit keeps that count small, and `_cat/indices` and `_cluster/health` still count them all).
 */
export function catShardsTable(views: readonly IndexView[], stats: ClusterStats): CatTable {
  const rows: CatCell[][] = [];
  const reachable = stats.nodes.map((n) => n.reachable);
  for (const v of views) {
    const m = v.metadata;
    v.copies.forEach((copies, shard) => {
      const primaryActive = copies.some((c) => c.primary && copyActive(c, reachable));
      for (const c of copies) {
        const role = c.primary ? 'p' : 'r';
        const info = stats.nodes[c.node];
        if (info && copyActive(c, reachable)) {
          const s = stats.shards.get(shardKey(m.name, shard))?.get(c.node) ?? null;
          const size = s ? { bytes: bytesOfDocs(s) } : null;
          rows.push([m.name, shard, role, 'STARTED', s?.docs ?? null, size, size, info.host, info.name, info.name, null, s?.segments ?? null]);
        } else if (info && copyInitializing(c, primaryActive, reachable)) {
          rows.push([m.name, shard, role, 'INITIALIZING', null, null, null, info.host, info.name, info.name, null, null]);
        } else {
          const reason = !reachable[c.node] ? 'NODE_LEFT' : 'ALLOCATION_FAILED';
          rows.push([m.name, shard, role, 'UNASSIGNED', null, null, null, null, null, null, reason, null]);
        }
      }
      // Replicas no node can hold: at most one row per shard node (the copies more nodes could place),
      // so the table stays proportional to the real copies whatever `number_of_replicas` says.
      const replicas = copies.filter((c) => !c.primary).length;
      const listed = Math.min(m.numberOfReplicas, replicas + Math.max(1, stats.nodes.length));
      for (let r = replicas; r < listed; r++) {
        rows.push([m.name, shard, 'r', 'UNASSIGNED', null, null, null, null, null, null, 'INDEX_CREATED', null]);
      }
    });
  }
  return { columns: CAT_SHARDS_COLUMNS, rows };
}

/** Sends a rendered cat table: `text/plain` or a JSON array (through `sendJson`, so `filter_path` applies). */
export function sendCat(c: Context, table: CatTable): Response {
  const q = (k: string) => c.req.query(k);
  const out = renderCatTable(table, {
    format: q('format'),
    h: q('h'),
    s: q('s'),
    v: q('v'),
    help: q('help'),
    bytes: q('bytes'),
    accept: c.req.header('accept'),
  });
  if (out.kind === 'json') return sendJson(c, 200, out.rows);
  return c.body(out.text, 200, { 'content-type': 'text/plain; charset=UTF-8' });
}

/**
 * The views of the indices an expression names (all when absent) under `_cat/indices`' indices
 * options (open and closed; hidden ones only with `expand_wildcards` `hidden` or `all`), sorted by
 * name, after a reload (copies and what nodes report).
 */
async function freshViewsOf(deps: CatRouteDeps, expression: string | undefined, params: URLSearchParams): Promise<IndexView[]> {
  await deps.view.reload();
  const names = await resolveIndices(expression, deps.view, indicesOptionsFrom(params, INDICES_OPTIONS.catIndices));
  return Promise.all(names.map((n) => deps.view.get(n)));
}

/** Registers the cat routes on `app`. */
export function registerCatRoutes(app: Hono, deps: CatRouteDeps): void {
  const indices = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.catIndices);
    const health = c.req.query('health');
    if (health !== undefined && !['green', 'yellow', 'red'].includes(health.toLowerCase())) throw illegalArgument(`unknown cluster health status [${health}]`);
    const [views, stats] = await Promise.all([freshViewsOf(deps, c.req.param('index'), queryParams(c)), fetchClusterStats(deps.client)]);
    return sendCat(c, catIndicesTable(views, stats, health?.toLowerCase()));
  };
  app.get('/_cat/indices', indices);
  app.get('/_cat/indices/:index', indices);

  const shards = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.catShards);
    const [views, stats] = await Promise.all([freshViewsOf(deps, c.req.param('index'), new URLSearchParams()), fetchClusterStats(deps.client)]);
    return sendCat(c, catShardsTable(views, stats));
  };
  app.get('/_cat/shards', shards);
  app.get('/_cat/shards/:index', shards);

  // ES `RestAliasAction`: every index (open, closed, hidden) with the aliases the names select.
  const aliases = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.catAliases);
    const name = c.req.param('alias');
    const names = name === undefined ? null : name.split(',').filter((s) => s !== '');
    const indices = await resolveIndices(undefined, deps.view, indicesOptionsFrom(queryParams(c), INDICES_OPTIONS.getAliases));
    const metadata = indices.flatMap((n) => deps.view.peek(n)?.metadata ?? []);
    return sendCat(c, { columns: CAT_ALIASES_COLUMNS, rows: catAliasesRows(metadata, names) });
  };
  app.get('/_cat/aliases', aliases);
  app.get('/_cat/aliases/:alias', aliases);
}
