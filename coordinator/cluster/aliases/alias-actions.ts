/**
 * Applies an `_aliases` request's actions to the indices' metadata, all or nothing, as ES's
 * `MetadataIndexAliasesService.applyAliasActions` does on one cluster state: `remove_index` first,
 * then each `add` and `remove` in order, then the checks every alias must pass afterwards (at most
 * one write index, one `is_hidden` value). Pure: the caller stores the outcome in one
 * compare-and-swap (cluster-view.ts `changeIndices`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-aliases.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/MetadataIndexAliasesService.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/AliasAction.java
 */
import { ALIAS_NAMES_INDEX, EsError, illegalArgument, indexNotFound, invalidAliasName, invalidIndexName, type ErrorCause } from '../../../protocol/errors.ts';
import type { AliasMetadata, IndexMetadata } from '../../../protocol/metadata.ts';
import { parseQuery } from '../../rest/query-dsl.ts';
import { wildcardMatch } from '../../../shared/wildcard.ts';
import { validateAlias, type AliasActionSpec } from './alias-requests.ts';

/** An action with its index expressions resolved to concrete indices. */
export interface ResolvedAliasAction extends AliasActionSpec {
  concrete: string[];
}

/** ES `IndicesAliasesResponse.AliasActionResult`: one per action, listed when any action failed. */
export interface AliasActionResult {
  action: { type: AliasActionSpec['type']; indices: string[]; aliases: string[] };
  status: number;
  error?: ErrorCause;
}

/** The outcome of {@link applyAliasActions}: what to store and delete, and each action's result. */
export interface AliasActionsOutcome {
  put: IndexMetadata[];
  delete: string[];
  results: AliasActionResult[];
}

/**
 * ES `AliasesNotFoundException`: 404 `aliases_not_found_exception` `aliases [a, b] missing`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/action/admin/indices/AliasesNotFoundException.java
 */
export function aliasesNotFound(names: readonly string[]): EsError {
  return new EsError(404, 'aliases_not_found_exception', `aliases [${names.join(', ')}] missing`, {
    metadata: { 'resource.type': 'aliases', 'resource.id': names.length === 1 ? names[0] : [...names] },
  });
}

/**
 * The aliases of one index that `patterns` select (ES `Metadata.findAliases`): `_all`, `*` and
 * simple wildcards include, a pattern starting with `-` excludes what it matches; no pattern: all.
 */
export function matchAliases(patterns: readonly string[], aliases: readonly string[]): string[] {
  if (patterns.length === 0) return [...aliases];
  return aliases.filter((alias) => {
    let matched = false;
    for (const p of patterns) {
      if (!p.startsWith('-')) matched ||= p === '_all' || wildcardMatch(p, alias);
      else if (matched) matched = !wildcardMatch(p.slice(1), alias);
    }
    return matched;
  });
}

/** ES `Index.toString()`: `[name/uuid]`. */
const indexRef = (m: IndexMetadata): string => `[${m.name}/${m.uuid}]`;

/**
 * The checks ES makes of every alias after a change (`Metadata.Builder` building the aliases):
 * at most one index with `is_write_index: true`, and `is_hidden` alike on all indices. ES throws
 * `IllegalStateException` (a 500); Folio answers 400 with ES's type and text (docs/compatibility.md).
 * @throws EsError 400 `illegal_state_exception`
 */
export function checkAlias(alias: string, indices: readonly IndexMetadata[]): void {
  const on = indices.filter((m) => m.aliases?.[alias] !== undefined).sort((a, b) => (a.name < b.name ? -1 : 1));
  const writers = on.filter((m) => m.aliases![alias].is_write_index === true);
  if (writers.length > 1)
    throw new EsError(400, 'illegal_state_exception', `alias [${alias}] has more than one write index [${writers.map((m) => m.name).join(',')}]`);
  const hidden = on.filter((m) => m.aliases![alias].is_hidden === true);
  const shown = on.filter((m) => m.aliases![alias].is_hidden !== true);
  if (hidden.length > 0 && shown.length > 0) {
    throw new EsError(
      400,
      'illegal_state_exception',
      `alias [${alias}] has is_hidden set to true on indices [${hidden.map(indexRef).join(',')}] but does not have is_hidden set to true on indices [${shown.map(indexRef).join(',')}]; alias must have the same is_hidden setting on all indices`,
    );
  }
}

/**
 * ES's check of an alias filter (`AliasValidator.validateAliasFilter`): it must parse as a query.
 * @throws EsError 400 `illegal_argument_exception` `failed to parse filter for alias [a]` with the parse error as its cause
 */
export function checkAliasFilter(alias: string, filter: Record<string, unknown> | undefined): void {
  if (filter === undefined) return;
  try {
    parseQuery(filter);
  } catch (err) {
    const cause: ErrorCause = err instanceof EsError ? err.toCause() : { type: 'illegal_argument_exception', reason: String(err) };
    throw illegalArgument(`failed to parse filter for alias [${alias}]`, cause);
  }
}

const sameAlias = (a: AliasMetadata, b: AliasMetadata): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Applies resolved actions to `current` (the metadata of every index the actions name and of every
 * index the touched aliases name). `isIndex(name)`: whether an index of that name exists outside
 * this change (an alias may not take its name).
 * @returns the indices to store and delete, and each action's result (a `remove` that removed
 *   nothing is an error result, 404 `aliases_not_found_exception`, as ES 8.14+ reports it)
 * @throws EsError 404 `index_not_found_exception` for an index gone meanwhile or deleted by an
 *   earlier `remove_index`; 404 `resource_not_found_exception` `required alias [a] does not exist`
 *   (`must_exist`); 400 `invalid_alias_name_exception`, `illegal_argument_exception` (a filter that
 *   does not parse, several index routing values), `illegal_state_exception` ({@link checkAlias})
 */
export function applyAliasActions(
  actions: readonly ResolvedAliasAction[],
  current: ReadonlyMap<string, IndexMetadata>,
  isIndex: (name: string) => boolean,
): AliasActionsOutcome {
  const next = new Map(current);
  const changed = new Set<string>();
  const deleted: string[] = [];
  // ES deletes the `remove_index` indices first, then applies the alias actions to what is left.
  for (const a of actions) {
    if (a.type !== 'remove_index') continue;
    for (const name of a.concrete) {
      if (!next.has(name)) throw indexNotFound(name);
      next.delete(name);
      deleted.push(name);
    }
  }
  const touched = new Set<string>();
  const results: AliasActionResult[] = [];
  for (const a of actions) {
    let removed = 0;
    for (const name of a.type === 'remove_index' ? [] : a.concrete) {
      const m = next.get(name);
      if (!m) throw indexNotFound(name);
      const aliases = { ...(m.aliases ?? {}) };
      let dirty = false;
      if (a.type === 'add') {
        for (const alias of a.aliases) {
          validateAlias(alias, a.metadata);
          if (next.has(alias) || (!current.has(alias) && isIndex(alias))) throw invalidAliasName(alias, ALIAS_NAMES_INDEX);
          checkAliasFilter(alias, a.metadata?.filter);
          const md = a.metadata ?? {};
          touched.add(alias);
          if (aliases[alias] && sameAlias(aliases[alias], md)) continue;
          aliases[alias] = md;
          dirty = true;
        }
      } else {
        const present = Object.keys(aliases);
        let names = matchAliases(a.aliases, present);
        if (names.length === 0 && a.mustExist === true) names = a.aliases;
        for (const alias of names) {
          if (!aliases[alias]) {
            if (a.mustExist === true) throw new EsError(404, 'resource_not_found_exception', `required alias [${alias}] does not exist`);
            continue;
          }
          delete aliases[alias];
          touched.add(alias);
          removed++;
          dirty = true;
        }
      }
      if (!dirty) continue;
      const out: IndexMetadata = { ...m, aliases };
      if (Object.keys(aliases).length === 0) delete out.aliases;
      next.set(name, out);
      changed.add(name);
    }
    const result: AliasActionResult = { action: { type: a.type, indices: [...a.concrete].sort(), aliases: [...a.aliases] }, status: 200 };
    if (a.type === 'remove' && removed === 0) {
      const err = aliasesNotFound(a.aliases);
      result.status = 404;
      result.error = err.toCause();
    }
    results.push(result);
  }
  const remaining = [...next.values()];
  for (const alias of touched) checkAlias(alias, remaining);
  return {
    put: [...changed]
      .filter((n) => next.has(n))
      .sort()
      .map((n) => next.get(n)!),
    delete: deleted,
    results,
  };
}

/**
 * ES's checks of the `aliases` of a create-index request (`MetadataCreateIndexService`): the index
 * may not take an alias's name, an alias may not take an index's name (or the new index's), each
 * filter must parse, and each alias must still pass {@link checkAlias} with the new index among its
 * indices (`others(alias)`: the indices it names now).
 * @throws EsError 400 `invalid_index_name_exception` `Invalid index name [x], already exists as alias`,
 *   `invalid_alias_name_exception`, `illegal_argument_exception`, `illegal_state_exception`
 */
export function checkNewIndexAliases(
  index: string,
  aliases: Record<string, AliasMetadata>,
  isIndex: (name: string) => boolean,
  isAlias: (name: string) => boolean,
  others: (alias: string) => readonly IndexMetadata[],
): void {
  if (isAlias(index)) throw invalidIndexName(index, 'already exists as alias');
  for (const [alias, md] of Object.entries(aliases)) {
    validateAlias(alias, md);
    if (alias === index || isIndex(alias)) throw invalidAliasName(alias, ALIAS_NAMES_INDEX);
    checkAliasFilter(alias, md.filter);
    const self = { name: index, uuid: '_na_', aliases: { [alias]: md } } as unknown as IndexMetadata;
    checkAlias(alias, [...others(alias), self]);
  }
}
