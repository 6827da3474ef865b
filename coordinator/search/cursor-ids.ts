/**
 * The opaque cursor strings Folio hands out, all base64url JSON so that any coordinator can use
 * them (coordinators are stateless; the state is in the string and in the shard nodes' contexts):
 * - PIT id (`POST /{index}/_pit` → `id`): the indices and, per shard, the node and context id, and
 *   the alias filters of indices opened through filtered aliases;
 * - scroll id (`_scroll_id`): a PIT-like context list plus the original request; the walk's
 *   position lives in the shard nodes' scroll contexts (shard-node/search-contexts.ts), so the id
 *   is the same for every batch of a scroll, as ES's is (`SearchScrollAsyncAction.sendResponse`);
 * - snapshot token (`Folio-Snapshot` header): per shard, the refresh generation a search read and
 *   the copy (node) it read it on (generations are per copy).
 * ES's own ids are base64 of a binary encoding; clients treat them as opaque strings.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/point-in-time-api.html
 */
import { illegalArgument } from '../../protocol/errors.ts';

/** One shard of a PIT or scroll: where its context lives. `shardIndex` is its position in the cursor (for `_shard_doc`). */
export interface CursorShard {
  index: string;
  shard: number;
  /** Ordinal of the shard node in FOLIO_NODES. */
  node: number;
  /** Node-local context id. */
  context: number;
  shardIndex: number;
}

/** A decoded PIT id. */
export interface PitId {
  indices: string[];
  shards: CursorShard[];
  /** The alias filters of the indices reached through filtered aliases when it was opened (ES keeps them per shard in the id). */
  filters?: Record<string, Record<string, unknown>[]>;
}

/** A decoded scroll id: the contexts and the original request (each batch re-runs it after the contexts' position). */
export interface ScrollState extends PitId {
  /** The original request body, or undefined. */
  body: unknown;
  /** The original URL parameters (its `scroll` included), as a query string. */
  params: string;
  /** The original request path (error texts). */
  path: string;
}

/** One shard of a snapshot token: the generation a search read, and on which copy (node ordinal). */
export interface SnapshotShard {
  index: string;
  shard: number;
  generation: number;
  /** The copy's node; absent in tokens from before replicas (any copy is then asked). */
  node?: number;
}

type Wire = Record<string, unknown>;

function encode(kind: string, value: Wire): string {
  return Buffer.from(JSON.stringify({ k: kind, ...value }), 'utf8').toString('base64url');
}

function decode(kind: string, id: string): Wire | null {
  try {
    const v = JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as Wire;
    return v !== null && typeof v === 'object' && v.k === kind ? v : null;
  } catch {
    return null;
  }
}

const shardsToWire = (shards: readonly CursorShard[]) => shards.map((s) => [s.index, s.shard, s.node, s.context, s.shardIndex]);

function shardsFromWire(v: unknown): CursorShard[] | null {
  if (!Array.isArray(v)) return null;
  const out: CursorShard[] = [];
  for (const e of v) {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || !e.slice(1, 5).every((n) => Number.isInteger(n))) return null;
    const [index, shard, node, context, shardIndex] = e as [string, number, number, number, number];
    out.push({ index, shard, node, context, shardIndex });
  }
  return out;
}

/** Encodes a PIT id. */
export function encodePitId(pit: PitId): string {
  return encode('pit', { i: pit.indices, s: shardsToWire(pit.shards), ...(pit.filters && Object.keys(pit.filters).length > 0 ? { f: pit.filters } : {}) });
}

/**
 * Decodes a PIT id.
 * @throws EsError 400 `illegal_argument_exception` `invalid id: […]` for a string Folio did not make (ES's text).
 */
export function decodePitId(id: string): PitId {
  const v = decode('pit', id);
  const shards = v ? shardsFromWire(v.s) : null;
  if (!v || !shards || !Array.isArray(v.i)) throw illegalArgument(`invalid id: [${id}]`);
  return { indices: v.i as string[], shards, ...filtersFromWire(v.f) };
}

/** The `f` (alias filters) of a PIT or scroll id, when it has a valid one. */
function filtersFromWire(f: unknown): { filters?: Record<string, Record<string, unknown>[]> } {
  if (f === null || typeof f !== 'object' || Array.isArray(f)) return {};
  const ok = Object.values(f).every((list) => Array.isArray(list) && list.every((q) => q !== null && typeof q === 'object' && !Array.isArray(q)));
  return ok ? { filters: f as Record<string, Record<string, unknown>[]> } : {};
}

/** Encodes a scroll id. */
export function encodeScrollId(s: ScrollState): string {
  return encode('scroll', {
    i: s.indices,
    s: shardsToWire(s.shards),
    b: s.body ?? null,
    q: s.params,
    p: s.path,
    ...(s.filters && Object.keys(s.filters).length > 0 ? { f: s.filters } : {}),
  });
}

/**
 * Decodes a scroll id.
 * @throws EsError 400 `illegal_argument_exception` `Cannot parse scroll id` (ES's text).
 */
export function decodeScrollId(id: string): ScrollState {
  const v = decode('scroll', id);
  const shards = v ? shardsFromWire(v.s) : null;
  if (!v || !shards || !Array.isArray(v.i) || typeof v.q !== 'string' || typeof v.p !== 'string') throw illegalArgument('Cannot parse scroll id');
  return { indices: v.i as string[], shards, body: v.b ?? undefined, params: v.q, path: v.p, ...filtersFromWire(v.f) };
}

/** Encodes a `Folio-Snapshot` token. */
export function encodeSnapshot(shards: readonly SnapshotShard[]): string {
  return encode('snap', { g: shards.map((s) => (s.node === undefined ? [s.index, s.shard, s.generation] : [s.index, s.shard, s.generation, s.node])) });
}

/**
 * Decodes a `Folio-Snapshot` token.
 * @throws EsError 400 `illegal_argument_exception` `invalid Folio-Snapshot header: […]`.
 */
export function decodeSnapshot(token: string): SnapshotShard[] {
  const v = decode('snap', token.trim());
  const g = v?.g;
  const valid = (e: unknown) =>
    Array.isArray(e) && typeof e[0] === 'string' && Number.isInteger(e[1]) && Number.isInteger(e[2]) && (e.length < 4 || Number.isInteger(e[3]));
  if (!Array.isArray(g) || !g.every(valid)) throw illegalArgument(`invalid Folio-Snapshot header: [${token}]`);
  return g.map((e: [string, number, number, number?]) => ({ index: e[0], shard: e[1], generation: e[2], ...(e[3] !== undefined ? { node: e[3] } : {}) }));
}
