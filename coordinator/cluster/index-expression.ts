/**
 * Resolves the `{index}` part of a path (`cities`, `cit*`, `a,b`, `_all`, `*,-mails`, an alias)
 * into concrete index names, as ES's `IndexNameExpressionResolver` under a request's
 * `IndicesOptions` (`ignore_unavailable`, `allow_no_indices`, `expand_wildcards`, and whether the
 * API refuses closed indices): an alias stands for its indices; wildcards match index and alias
 * names, and expand to open and/or closed indices, hidden indices (`index.hidden: true`) and hidden
 * aliases (`is_hidden`) only with `expand_wildcards` `hidden`/`all` or, for a name that starts with
 * `.`, a pattern that starts with `.`; `-pattern` after a wildcard excludes a name. Each API has
 * ES's defaults (indices-options.ts). For a search, the names an expression reached also give
 * each index its alias filters and search routing ({@link resolveSearchScope}).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/api-conventions.html#api-multi-index
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/IndexNameExpressionResolver.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/IndicesOptions.java
 */
import { EsError, illegalArgument, indexNotFound } from '../../protocol/errors.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';
import { aliasIsHidden, type AliasCatalog, type AliasTarget } from './aliases/alias-lookup.ts';
import type { ClusterView } from './cluster-view.ts';
import { isHidden } from './index-settings.ts';
import { indexClosed, isClosed } from './index-state.ts';
import { INDICES_OPTIONS, type IndicesOptions } from './indices-options.ts';

/**
 * ES `IndexNameExpressionResolver.notFoundException` for expressions that resolved to nothing:
 * `_all` (or none) → `no such index [_all] and no indices exist`; one expression → `no such index [x]`
 * (with ES's hint for a lone `-x`); several → `no such index [null]` with `resource.type: index_expression`.
 */
export function expressionNotFound(expressions: readonly string[]): EsError {
  if (expressions.length === 0 || (expressions.length === 1 && expressions[0] === '_all')) {
    return new EsError(404, 'index_not_found_exception', 'no such index [_all] and no indices exist', {
      metadata: { 'resource.type': 'index_or_alias', 'resource.id': '_all', index_uuid: '_na_', index: '_all' },
    });
  }
  if (expressions.length === 1) {
    const e = expressions[0];
    if (!e.startsWith('-')) return indexNotFound(e);
    return new EsError(
      404,
      'index_not_found_exception',
      `no such index [${e}] and if you intended to exclude this index, ensure that you use wildcards that include it before explicitly excluding it`,
      {
        metadata: { 'resource.type': 'index_or_alias', 'resource.id': e, index_uuid: '_na_', index: e },
      },
    );
  }
  return new EsError(404, 'index_not_found_exception', 'no such index [null]', {
    metadata: { 'resource.type': 'index_expression', 'resource.id': [...expressions] },
  });
}

/** What the resolver reads of the cluster: index names, each index's metadata, and the aliases. */
export interface IndexCatalog {
  names(): readonly string[];
  metadata(name: string): IndexMetadata | undefined;
  /** The aliases (absent: none). */
  aliases?: AliasCatalog;
}

/**
 * ES's refusal of an alias where only indices are taken (`IndicesOptions.ignoreAliases`, e.g. the
 * `index` of an `_aliases` action).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/IndexNameExpressionResolver.java (aliasesNotSupportedException)
 */
export function aliasesNotSupported(expression: string): EsError {
  return illegalArgument(`The provided expression [${expression}] matches an alias, specify the corresponding concrete indices instead.`);
}

/**
 * The outcome of resolving an expression: the concrete indices, sorted, and the names (of indices
 * and aliases) the expression reached after wildcards and exclusions (ES's "resolved
 * expressions"), or `all` for `_all`, `*` or nothing: what alias filters and search routing are
 * decided from.
 */
export interface Resolution {
  indices: string[];
  reached: ReadonlySet<string> | 'all';
}

/** Whether a wildcard (or match-all) reaches this index by its state and hidden setting. */
function reachable(m: IndexMetadata, pattern: string, o: IndicesOptions): boolean {
  if (isClosed(m) ? !o.expandClosed : !o.expandOpen) return false;
  return visible(isHidden(m), m.name, pattern, o);
}

/** ES's hidden rule for wildcards: a hidden index or alias only with `expand_wildcards` hidden, or a `.` pattern for a `.` name. */
function visible(hidden: boolean, name: string, pattern: string, o: IndicesOptions): boolean {
  if (!hidden || o.expandHidden) return true;
  return pattern.startsWith('.') && name.startsWith('.') && pattern !== '*';
}

/**
 * Pure resolution over a catalog whose concrete names are known (see {@link resolveIndices}).
 * @returns the concrete names, sorted
 * @throws EsError 404 `index_not_found_exception` (ES's shapes), 400 `index_closed_exception`
 */
export function resolveNames(expression: string | undefined, catalog: IndexCatalog, o: IndicesOptions): string[] {
  return resolveExpression(expression, catalog, o).indices;
}

/**
 * {@link resolveNames} with the names the expression reached (ES `concreteIndices` and
 * `resolveExpressions`). Names are collected first (an alias named, or matched by a wildcard, is
 * one name; `-x` removes the name `x`), then each alias stands for its indices: all of them when
 * named, those `expand_wildcards` reaches by state when only a wildcard matched it.
 * @throws EsError 404 `index_not_found_exception` (ES's shapes), 400 `index_closed_exception`,
 *   400 for an alias under `ignoreAliases`
 */
export function resolveExpression(expression: string | undefined, catalog: IndexCatalog, o: IndicesOptions): Resolution {
  const parts = (expression ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const expandAny = o.expandOpen || o.expandClosed;
  const all = parts.length === 0 || (parts.length === 1 && (parts[0] === '_all' || parts[0] === '*'));
  const aliases = o.ignoreAliases ? undefined : catalog.aliases;
  const out = new Set<string>();
  /** Aliases reached by a wildcard only (their indices are filtered by state), and those named. */
  const wildcardAliases = new Set<string>();
  const namedAliases = new Set<string>();
  if (all) {
    if (expandAny) for (const n of catalog.names()) if (reachable(catalog.metadata(n)!, '*', o)) out.add(n);
  } else {
    let wildcardSeen = false;
    for (const part of parts) {
      const exclude = wildcardSeen && part.startsWith('-');
      const name = exclude ? part.slice(1) : part;
      if (name.includes('*')) {
        wildcardSeen = true;
        if (!expandAny) continue;
        const matched = catalog.names().filter((n) => wildcardMatch(name, n) && reachable(catalog.metadata(n)!, name, o));
        for (const a of aliases?.names() ?? []) {
          if (wildcardMatch(name, a) && visible(aliasIsHidden(aliases!.targets(a)!), a, name, o)) {
            matched.push(a);
            if (!exclude) wildcardAliases.add(a);
          }
        }
        for (const n of matched)
          if (exclude) out.delete(n);
          else out.add(n);
        if (!o.allowNoIndices && matched.length === 0) throw expressionNotFound([name]);
      } else if (exclude) {
        out.delete(name);
      } else if (catalog.metadata(name)) {
        out.add(name);
      } else if (catalog.aliases?.targets(name)) {
        if (o.ignoreAliases) throw aliasesNotSupported(name);
        out.add(name);
        namedAliases.add(name);
      } else if (!o.ignoreUnavailable) {
        throw expressionNotFound([name]);
      }
    }
  }
  const found = new Set<string>();
  for (const n of out) {
    const targets = catalog.metadata(n) ? undefined : aliases?.targets(n);
    if (!targets) {
      found.add(n);
      continue;
    }
    const byState = wildcardAliases.has(n) && !namedAliases.has(n);
    for (const t of targets) if (!byState || (isClosed(t.index) ? o.expandClosed : o.expandOpen)) found.add(t.index.name);
  }
  const concrete: string[] = [];
  for (const n of [...found].sort()) {
    const m = catalog.metadata(n)!;
    if (isClosed(m) && o.forbidClosed) {
      if (!o.ignoreUnavailable) throw indexClosed(m);
      continue;
    }
    concrete.push(n);
  }
  if (!o.allowNoIndices && concrete.length === 0) throw expressionNotFound(all && parts.length <= 1 ? ['_all'] : parts);
  return { indices: concrete, reached: all ? 'all' : out };
}

/**
 * The filters of the aliases through which a search reached `index` (ES
 * `IndexNameExpressionResolver.filteringAliases`): none when the index was reached by its own name,
 * by `_all`, or through any alias without a filter; else each reaching alias's filter (ES then
 * matches a document that passes any of them).
 */
export function aliasFiltersOf(index: IndexMetadata, reached: Resolution['reached']): Record<string, unknown>[] | undefined {
  if (reached === 'all' || reached.has(index.name)) return undefined;
  const filters: Record<string, unknown>[] = [];
  for (const [alias, md] of Object.entries(index.aliases ?? {})) {
    if (!reached.has(alias)) continue;
    if (!md.filter) return undefined;
    filters.push(md.filter);
  }
  return filters.length > 0 ? filters : undefined;
}

/**
 * The routing values each index of a search is read with (ES
 * `IndexNameExpressionResolver.resolveSearchRouting`): an alias's `search_routing` for the indices
 * reached only through such aliases (intersected with the request's `routing`), the request's
 * `routing` for the others; an index absent from the map is read on every shard. Null: no routing.
 */
export function searchRoutingOf(resolution: Resolution, catalog: IndexCatalog, routing: string | null): Map<string, Set<string>> | null {
  const param =
    routing === null
      ? null
      : new Set(
          routing
            .split(',')
            .map((r) => r.trim())
            .filter((r) => r !== ''),
        );
  const out = new Map<string, Set<string>>();
  if (resolution.reached === 'all') {
    if (param) for (const i of resolution.indices) out.set(i, new Set(param));
    return out.size > 0 ? out : null;
  }
  const unrouted = new Set<string>();
  const plain = (index: string) => {
    if (unrouted.has(index)) return;
    unrouted.add(index);
    if (param) out.set(index, new Set(param));
    else out.delete(index);
  };
  for (const name of resolution.reached) {
    const targets = catalog.metadata(name) ? undefined : catalog.aliases?.targets(name);
    if (!targets) {
      plain(name);
      continue;
    }
    for (const t of targets) {
      const index = t.index.name;
      if (unrouted.has(index)) continue;
      const values = (t.alias.search_routing ?? '')
        .split(',')
        .map((r) => r.trim())
        .filter((r) => r !== '');
      if (values.length === 0) {
        plain(index);
        continue;
      }
      const set = out.get(index) ?? new Set<string>();
      for (const v of values) set.add(v);
      if (param) for (const v of [...set]) if (!param.has(v)) set.delete(v);
      if (set.size > 0) out.set(index, set);
      else out.delete(index);
    }
  }
  const concrete = new Set(resolution.indices);
  for (const i of [...out.keys()]) if (!concrete.has(i)) out.delete(i);
  return out.size > 0 ? out : null;
}

/**
 * Concrete index names for an expression under `options` (ES's search defaults when absent),
 * sorted and de-duplicated. An absent expression, `_all` and `*` mean every index the options
 * reach; an alias, its indices. A concrete name the view does not know as an index or an alias is
 * looked up in the store first (another coordinator may have just created it); a wildcard or
 * `_all` reloads the view first.
 * @throws EsError 404 index_not_found_exception, 400 index_closed_exception (see {@link resolveNames})
 */
export async function resolveIndices(expression: string | undefined, view: ClusterView, options: IndicesOptions = INDICES_OPTIONS.search): Promise<string[]> {
  return (await resolveWithCatalog(expression, view, options)).resolution.indices;
}

/** What a search reads of each index an expression reached through aliases ({@link resolveSearchScope}). */
export interface SearchScope {
  indices: string[];
  /** Per index reached only through filtered aliases: their filters (ES query DSL; a document passes if it matches any). */
  filters: Map<string, Record<string, unknown>[]>;
  /** Per index: the routing values whose shards are read (absent index: every shard); null when none. */
  routing: Map<string, Set<string>> | null;
}

/**
 * {@link resolveIndices} for a search: the indices with the filters of the aliases that reached
 * them ({@link aliasFiltersOf}) and their search routing ({@link searchRoutingOf}, with the
 * request's `routing`).
 * @throws EsError as {@link resolveIndices}
 */
export async function resolveSearchScope(
  expression: string | undefined,
  view: ClusterView,
  options: IndicesOptions,
  routing: string | null = null,
): Promise<SearchScope> {
  const { resolution, catalog } = await resolveWithCatalog(expression, view, options);
  const filters = new Map<string, Record<string, unknown>[]>();
  if (resolution.reached !== 'all') {
    for (const i of resolution.indices) {
      const f = aliasFiltersOf(catalog.metadata(i)!, resolution.reached);
      if (f) filters.set(i, f);
    }
  }
  return { indices: resolution.indices, filters, routing: searchRoutingOf(resolution, catalog, routing) };
}

/** The catalog an expression needs (every index for a wildcard, else the names it holds, with the aliases), and its resolution. */
async function resolveWithCatalog(
  expression: string | undefined,
  view: ClusterView,
  options: IndicesOptions,
): Promise<{ resolution: Resolution; catalog: IndexCatalog }> {
  const parts = (expression ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  // Only a wildcard or `_all` needs every index; names alone are looked up one by one (the search path).
  const everyIndex = parts.length === 0 || parts.some((p) => p.includes('*') || p === '_all');
  if (everyIndex) await view.reload();
  const lookup = view.aliasLookup();
  const known = new Map<string, IndexMetadata>();
  /** Aliases read from the store (unknown to this process's lookup yet). */
  const extra = new Map<string, readonly AliasTarget[]>();
  if (everyIndex) {
    for (const n of view.names()) {
      const v = view.peek(n);
      if (v) known.set(n, v.metadata);
    }
  }
  const knowTargets = (targets: readonly AliasTarget[]) => {
    for (const t of targets) if (!known.has(t.index.name)) known.set(t.index.name, t.index);
  };
  for (const p of parts) {
    const name = p.startsWith('-') ? p.slice(1) : p;
    if (name.includes('*') || name === '_all' || known.has(name)) continue;
    const targets = lookup.targets(name);
    if (targets) {
      knowTargets(targets);
      continue;
    }
    // not in the cache: read from the store (created through another coordinator)
    const v =
      view.peek(name) ??
      (await view.get(name).catch((err: unknown) => {
        if (err instanceof EsError && err.type === 'index_not_found_exception') return undefined;
        throw err;
      }));
    if (v) {
      known.set(name, v.metadata);
      continue;
    }
    const stored = await view.findAlias(name);
    if (stored) {
      extra.set(name, stored);
      knowTargets(stored);
    }
  }
  if (everyIndex) for (const a of lookup.names()) knowTargets(lookup.targets(a)!);
  const names = [...known.keys()].sort();
  const aliases =
    extra.size === 0
      ? lookup
      : { names: () => [...new Set([...lookup.names(), ...extra.keys()])].sort(), targets: (a: string) => extra.get(a) ?? lookup.targets(a) };
  const catalog: IndexCatalog = { names: () => names, metadata: (n) => known.get(n), aliases };
  return { resolution: resolveExpression(expression, catalog, options), catalog };
}
