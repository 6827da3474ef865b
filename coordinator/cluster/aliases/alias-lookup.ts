/**
 * Every alias of the cluster, read from the indices' metadata (each index keeps its own aliases, as
 * ES's `IndexMetadata.getAliases()`), and the answers the APIs need of one alias: its indices, its
 * write index, the one index of a single-document operation, and the routing of a write. ES builds
 * the same lookup once per cluster state (`Metadata.getIndicesLookup()`, `IndexAbstraction.Alias`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/aliases.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/IndexAbstraction.java
 */
import { EsError, illegalArgument } from '../../../protocol/errors.ts';
import type { AliasMetadata, IndexMetadata } from '../../../protocol/metadata.ts';

/** One index an alias names, with the alias's metadata on that index. */
export interface AliasTarget {
  index: IndexMetadata;
  alias: AliasMetadata;
}

/** What the index-name resolution reads of the aliases (index-expression.ts). */
export interface AliasCatalog {
  /** Every alias name, sorted. */
  names(): readonly string[];
  /** The indices the alias names, sorted by index name; undefined when no alias has that name. */
  targets(alias: string): readonly AliasTarget[] | undefined;
}

/** The aliases of a set of indices. Immutable: built again when an index changes (cluster-view.ts). */
export class AliasLookup implements AliasCatalog {
  private readonly byAlias = new Map<string, AliasTarget[]>();
  private readonly sortedNames: string[];

  constructor(indices: Iterable<IndexMetadata>) {
    for (const index of indices) {
      for (const [name, alias] of Object.entries(index.aliases ?? {})) {
        const list = this.byAlias.get(name);
        if (list) list.push({ index, alias });
        else this.byAlias.set(name, [{ index, alias }]);
      }
    }
    for (const list of this.byAlias.values()) list.sort((a, b) => (a.index.name < b.index.name ? -1 : a.index.name > b.index.name ? 1 : 0));
    this.sortedNames = [...this.byAlias.keys()].sort();
  }

  names(): readonly string[] {
    return this.sortedNames;
  }

  targets(alias: string): readonly AliasTarget[] | undefined {
    return this.byAlias.get(alias);
  }
}

/**
 * Whether an alias is hidden (ES `IndexAbstraction.Alias.isHidden`: `is_hidden` is the same on all
 * of its indices, ES checks that at every change).
 */
export function aliasIsHidden(targets: readonly AliasTarget[]): boolean {
  return targets.some((t) => t.alias.is_hidden === true);
}

/**
 * ES `IndexAbstraction.Alias.getWriteIndex()`: the index with `is_write_index: true`, else the
 * alias's only index unless it has `is_write_index: false`.
 * @throws EsError 400 `illegal_argument_exception` with ES's text when the alias has no write index
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/IndexNameExpressionResolver.java (concreteWriteIndex)
 */
export function writeTargetOf(aliasName: string, targets: readonly AliasTarget[]): AliasTarget {
  const explicit = targets.find((t) => t.alias.is_write_index === true);
  if (explicit) return explicit;
  if (targets.length === 1 && targets[0].alias.is_write_index !== false) return targets[0];
  throw illegalArgument(
    `no write index is defined for alias [${aliasName}]. The write index may be explicitly disabled using is_write_index=false ` +
      'or the alias points to multiple indices without one being designated as a write index',
  );
}

/**
 * The one index of a single-document read (GET, `_source`, `_mget` items) through an alias (ES
 * `concreteSingleIndex`).
 * @throws EsError 400 `illegal_argument_exception` `alias [a] has more than one index associated with it [x, y], can't execute a single index op`
 */
export function singleTargetOf(aliasName: string, targets: readonly AliasTarget[]): AliasTarget {
  if (targets.length === 1) return targets[0];
  throw illegalArgument(
    `alias [${aliasName}] has more than one index associated with it [${targets.map((t) => t.index.name).join(', ')}], can't execute a single index op`,
  );
}

/**
 * The routing of a write or single-document read through an alias (ES `Metadata.resolveRouting`):
 * the alias's `index_routing` when it has one (a request routing must then equal it), else the
 * request's.
 * @throws EsError 400 `illegal_argument_exception` when the request routing differs from the alias's
 */
export function aliasIndexRouting(aliasName: string, alias: AliasMetadata, routing: string | undefined): string | undefined {
  const own = alias.index_routing;
  if (own === undefined) return routing;
  if (own.includes(','))
    throw illegalArgument(`index/alias [${aliasName}] provided with routing value [${own}] that resolved to several routing values, rejecting operation`);
  if (routing !== undefined && routing !== own) {
    throw illegalArgument(
      `Alias [${aliasName}] has index routing associated with it [${own}], and was provided with routing value [${routing}], rejecting operation`,
    );
  }
  return own;
}

/**
 * ES's refusal of a write with `require_alias=true` to a name that is not an alias: 404
 * `index_not_found_exception` (and no index is auto-created).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/bulk/TransportBulkAction.java
 */
export function requireAliasFailure(name: string): EsError {
  return new EsError(404, 'index_not_found_exception', `no such index [${name}] and [require_alias] request flag is [true] and [${name}] is not an alias`, {
    metadata: { 'resource.type': 'index_or_alias', 'resource.id': name, index_uuid: '_na_', index: name },
  });
}
