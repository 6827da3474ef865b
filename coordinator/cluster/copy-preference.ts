/**
 * The copies one shard is read on under a `preference` (preference.ts), as ES's
 * `OperationRouting.preferenceActiveShardIterator` and `IndexShardRoutingTable` order them:
 * - a custom string: the ready copies rotated by `31 · murmur3(string) + ShardId.hashCode()`
 *   (`activeInitializingShardsIt(seed)`), so the same string reads the same copy of a shard on every
 *   request while the copies are unchanged, and different strings spread over the copies. A copy whose
 *   node failed lately (backed off by replica-selection.ts) goes last: ES's departed nodes hold no
 *   active copy;
 * - `_prefer_nodes`: copies on those nodes first (`preferNodeActiveInitializingShardsIt`), the others
 *   after them to fail over to;
 * - `_only_nodes`: only copies on the nodes the specs resolve to (node-specs.ts), failing over among
 *   them (`onlyNodeSelectorActiveInitializingShardsIt`); none for a shard is ES's 400;
 * - `_only_local`: no copy (the coordinator holds none, `onlyNodeActiveInitializingShardsIt`):
 *   the shard is unavailable ({@link NO_COPY});
 * - otherwise (`_local`, `_shards:…` alone) adaptive replica selection, as without a preference.
 * Only searches with a preference come here: the default path stays `shardTargets` (index-view.ts).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/routing/IndexShardRoutingTable.java
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { readyCopies, type IndexView, type ShardTarget } from './index-view.ts';
import { resolveNodeSpecs, type NodeIdentity } from './node-specs.ts';
import { parsePreference, type Preference } from './preference.ts';
import type { ReplicaSelection } from '../transport/replica-selection.ts';

/** The node of a target whose shard has no copy the preference allows (`_only_local`): no node is read. */
export const NO_COPY = -1;

/** A preference for one search, its node names resolved to node ordinals. */
export interface ResolvedPreference {
  /** Shard numbers read in each index (null: all). */
  shards: ReadonlySet<number> | null;
  copies:
    | { kind: 'default' }
    | { kind: 'only_local' }
    | { kind: 'prefer_nodes'; nodes: ReadonlySet<number> }
    | { kind: 'only_nodes'; nodes: ReadonlySet<number>; specs: readonly string[] }
    | { kind: 'custom'; hash: number };
}

/**
 * `p` with its node ids and specs resolved against `nodes` (by ordinal): `_prefer_nodes` compares ids
 * exactly, as ES; `_only_nodes` resolves as `DiscoveryNodes.resolveNodes` (node-specs.ts).
 */
export function resolvePreference(p: Preference, nodes: readonly NodeIdentity[]): ResolvedPreference {
  const c = p.copies;
  if (c.kind === 'prefer_nodes') {
    const ids = new Set(c.ids);
    const chosen = new Set(nodes.flatMap((n, i) => (n.id !== undefined && ids.has(n.id) ? [i] : [])));
    return { shards: p.shards, copies: { kind: 'prefer_nodes', nodes: chosen } };
  }
  if (c.kind === 'only_nodes') return { shards: p.shards, copies: { kind: 'only_nodes', nodes: resolveNodeSpecs(c.specs, nodes), specs: c.specs } };
  return { shards: p.shards, copies: c };
}

/** Where a preference's node names are looked up: the cluster view (`ClusterView.nodeIdentities`). */
export interface NodeDirectory {
  nodeIdentities(): readonly NodeIdentity[];
}

/**
 * A `preference` text parsed and resolved; undefined for none (nothing allocated then). `nodes` is
 * asked only by a preference that names nodes.
 * @throws EsError 400 for a preference ES refuses (preference.ts)
 */
export function resolvedPreference(text: string | null | undefined, nodes: NodeDirectory): ResolvedPreference | undefined {
  const parsed = parsePreference(text);
  if (parsed === null) return undefined;
  const named = parsed.copies.kind === 'prefer_nodes' || parsed.copies.kind === 'only_nodes';
  return resolvePreference(parsed, named ? nodes.nodeIdentities() : []);
}

/** Java `String.hashCode()` (UTF-16 code units, 32-bit). */
function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** ES `ShardId.hashCode()`: `31 · (31 · name.hashCode() + uuid.hashCode()) + shard`, 32-bit. */
export function shardIdHash(index: string, uuid: string, shard: number): number {
  const indexHash = (Math.imul(31, javaStringHash(index)) + javaStringHash(uuid)) | 0;
  return (Math.imul(31, indexHash) + shard) | 0;
}

/**
 * The copies of a shard in a custom preference's order: `ready` rotated by
 * `floorMod(31 · hash + shardHash, n)` (ES `RotationShardShuffler`), backed-off nodes last.
 */
export function customOrder(ready: readonly number[], hash: number, shardHash: number, avoided: (node: number) => boolean): number[] {
  const n = ready.length;
  const seed = (Math.imul(31, hash) + shardHash) | 0;
  const d = ((seed % n) + n) % n;
  const rotated = [...ready.slice(d), ...ready.slice(0, d)];
  return [...rotated.filter((node) => !avoided(node)), ...rotated.filter((node) => avoided(node))];
}

/** How copies rank without a preference of their own: adaptive replica selection and its backoff (replica-selection.ts). */
export type CopyRanking = Pick<ReplicaSelection, 'order' | 'avoided'>;

/** One shard's copies under `copies`, best first (empty: none allowed). @throws EsError 400 (`_only_nodes`, no copy) */
function orderedCopies(p: ResolvedPreference['copies'], view: IndexView, shard: number, ranking: CopyRanking, picks: Map<number, number>): number[] {
  const ready = readyCopies(view, shard);
  switch (p.kind) {
    case 'default':
      return ranking.order(ready, picks);
    case 'only_local':
      return [];
    case 'prefer_nodes': {
      const preferred = ready.filter((n) => p.nodes.has(n));
      const others = ready.filter((n) => !p.nodes.has(n));
      return preferred.length > 0 ? [...ranking.order(preferred, picks), ...others] : ranking.order(others, picks);
    }
    case 'only_nodes': {
      const chosen = ready.filter((n) => p.nodes.has(n));
      if (chosen.length === 0) {
        // ES's wording, "criteria" for one spec and "criterion" for several, as it is.
        const word = p.specs.length === 1 ? 'criteria' : 'criterion';
        throw illegalArgument(`no data nodes with ${word} [${p.specs.join(',')}] found for shard: [${view.metadata.name}][${shard}]`);
      }
      return ranking.order(chosen, picks);
    }
    case 'custom':
      return customOrder(ready, p.hash, shardIdHash(view.metadata.name, view.metadata.uuid, shard), (n) => ranking.avoided(n));
  }
}

/**
 * The shards of `view` a search with preference `p` reads (all, or those `_shards` names), each with
 * its copies in the preference's order; a shard with no copy allowed has node {@link NO_COPY}. `picks`:
 * the search's adaptive replica selection picks so far (see `ClusterView.targets`).
 * @throws EsError 400 `illegal_argument_exception` `no data nodes with criteria [x] found for shard: [index][0]`
 */
export function preferredShardTargets(view: IndexView, p: ResolvedPreference, ranking: CopyRanking, picks: Map<number, number> = new Map()): ShardTarget[] {
  const out: ShardTarget[] = [];
  const fixedOrder = p.copies.kind === 'custom' || p.copies.kind === 'prefer_nodes';
  for (let shard = 0; shard < view.copies.length; shard++) {
    if (p.shards && !p.shards.has(shard)) continue;
    const ordered = orderedCopies(p.copies, view, shard, ranking, picks);
    const target: ShardTarget = { index: view.metadata.name, shard, node: ordered[0] ?? NO_COPY, alternates: ordered.slice(1) };
    if (fixedOrder) target.fixedOrder = true;
    out.push(target);
  }
  return out;
}

/**
 * The copies a get of shard `shard` reads under `p` (its `_shards` part does not apply to a get): in
 * the table's order (primary first) where the preference leaves the order open; empty for `_only_local`.
 * @throws EsError 400 as {@link preferredShardTargets} for `_only_nodes`
 */
export function preferredGetCopies(p: ResolvedPreference, view: IndexView, shard: number, avoided: (node: number) => boolean): number[] {
  return orderedCopies(p.copies, view, shard, { order: (ready) => [...ready], avoided }, new Map());
}
