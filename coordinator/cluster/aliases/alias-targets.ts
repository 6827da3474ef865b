/**
 * The concrete index of a document operation named by an alias: a write (`_bulk` items, `_doc`,
 * `_create`, `_update`, delete) goes to the alias's write index with its `index_routing`, a read
 * (GET, `_source`, `_mget` items) to its only index; `require_alias=true` refuses a name that is not
 * an alias. ES resolves these in `TransportBulkAction` (`IndexNameExpressionResolver.concreteWriteIndex`,
 * `Metadata.resolveWriteIndexRouting`) and `TransportSingleShardAction` (`concreteSingleIndex`,
 * `resolveIndexRouting`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/aliases.html#write-index
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-index_.html#index-api-query-params (require_alias)
 */
import type { BulkItem } from '../../rest/bulk-parse.ts';
import { BulkItems } from '../../rest/bulk-items.ts';
import type { ClusterView } from '../cluster-view.ts';
import type { IndexView } from '../index-view.ts';
import { aliasIndexRouting, requireAliasFailure, singleTargetOf, writeTargetOf, type AliasTarget } from './alias-lookup.ts';

/** The alias `name` names, from this process's lookup or (a name it knows as nothing) the store. */
async function aliasTargets(view: ClusterView, name: string): Promise<readonly AliasTarget[] | undefined> {
  const known = view.aliasLookup().targets(name);
  if (known || view.peek(name)) return known;
  return view.findAlias(name);
}

/**
 * The bulk items with each alias replaced by its write index and the alias's `index_routing`
 * applied; items naming an index or a missing name (auto-created later) are kept as they are. An
 * item that cannot be written this way is added to `failed` (its position): `require_alias` on a
 * name that is not an alias (404, ES's text), an alias without a write index, or a routing that
 * contradicts the alias's (400). Returns `items` itself when no item names an alias or requires one,
 * so a plain bulk pays one map lookup per distinct index name.
 */
export async function resolveBulkTargets<T extends readonly BulkItem[] | BulkItems>(items: T, failed: Map<number, unknown>, view: ClusterView): Promise<T> {
  const at = bulkItemAccess(items);
  const byName = new Map<string, readonly AliasTarget[] | undefined>();
  for (let i = 0; i < items.length; i++) {
    const name = at.index(i);
    if (failed.has(i) || name === undefined || byName.has(name)) continue;
    byName.set(name, await aliasTargets(view, name));
  }
  if (![...byName.values()].some((t) => t !== undefined) && !at.anyRequireAlias()) return items;
  const out = at.copy();
  for (let i = 0; i < items.length; i++) {
    const index = at.index(i);
    if (failed.has(i) || index === undefined) continue;
    const targets = byName.get(index);
    if (!targets) {
      if (at.requireAlias(i) === true) failed.set(i, requireAliasFailure(index));
      continue;
    }
    try {
      const target = writeTargetOf(index, targets);
      out.retarget(i, target.index.name, aliasIndexRouting(index, target.alias, at.routing(i)));
    } catch (err) {
      failed.set(i, err);
    }
  }
  return out.items as T;
}

/** What {@link resolveBulkTargets} reads and writes of items held as objects or as columns. */
interface BulkItemAccess {
  index(i: number): string | undefined;
  routing(i: number): string | undefined;
  requireAlias(i: number): boolean | undefined;
  anyRequireAlias(): boolean;
  copy(): { items: readonly BulkItem[] | BulkItems; retarget(i: number, index: string, routing: string | undefined): void };
}

function bulkItemAccess(items: readonly BulkItem[] | BulkItems): BulkItemAccess {
  if (items instanceof BulkItems) {
    const anyRequireAlias = (): boolean => {
      for (let i = 0; i < items.length; i++) if (items.extra(i)?.requireAlias === true) return true;
      return false;
    };
    return {
      index: (i) => items.index(i),
      routing: (i) => items.routing(i),
      requireAlias: (i) => items.extra(i)?.requireAlias,
      anyRequireAlias,
      copy: () => {
        const out = items.copy();
        return { items: out, retarget: (i, index, routing) => out.retarget(i, index, routing) };
      },
    };
  }
  const list = items;
  return {
    index: (i) => list[i].index,
    routing: (i) => list[i].routing,
    requireAlias: (i) => list[i].requireAlias,
    anyRequireAlias: () => list.some((it) => it.requireAlias === true),
    copy: () => {
      const out = [...list];
      return { items: out, retarget: (i, index, routing) => (out[i] = { ...list[i], index, routing }) };
    },
  };
}

/**
 * The write index `name` stands for: the alias's write index, or `name` itself (an index, or a
 * missing name).
 * @throws EsError 400 when `name` is an alias without a write index
 */
export async function writeIndexName(view: ClusterView, name: string): Promise<string> {
  const targets = await aliasTargets(view, name);
  return targets ? writeTargetOf(name, targets).index.name : name;
}

/**
 * The open index and routing of a single-document read of `name`: the index itself, or the one
 * index of an alias with the alias's `index_routing`.
 * @throws EsError 404 for a missing index, 400 `index_closed_exception`, 400 for an alias of
 *   several indices or a routing that contradicts the alias's
 */
export async function readTarget(view: ClusterView, name: string, routing: string | undefined): Promise<{ view: IndexView; routing: string | undefined }> {
  const targets = await aliasTargets(view, name);
  if (!targets) return { view: await view.getOpen(name), routing };
  const target = singleTargetOf(name, targets);
  return { view: await view.getOpen(target.index.name), routing: aliasIndexRouting(name, target.alias, routing) };
}
