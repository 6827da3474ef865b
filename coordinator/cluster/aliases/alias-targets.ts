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
export async function resolveBulkTargets(items: readonly BulkItem[], failed: Map<number, unknown>, view: ClusterView): Promise<readonly BulkItem[]> {
  const byName = new Map<string, readonly AliasTarget[] | undefined>();
  for (let i = 0; i < items.length; i++) {
    const name = items[i].index;
    if (failed.has(i) || name === undefined || byName.has(name)) continue;
    byName.set(name, await aliasTargets(view, name));
  }
  if (![...byName.values()].some((t) => t !== undefined) && !items.some((it) => it.requireAlias === true)) return items;
  const out = [...items];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (failed.has(i) || item.index === undefined) continue;
    const targets = byName.get(item.index);
    if (!targets) {
      if (item.requireAlias === true) failed.set(i, requireAliasFailure(item.index));
      continue;
    }
    try {
      const target = writeTargetOf(item.index, targets);
      out[i] = { ...item, index: target.index.name, routing: aliasIndexRouting(item.index, target.alias, item.routing) };
    } catch (err) {
      failed.set(i, err);
    }
  }
  return out;
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
