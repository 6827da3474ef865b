/**
 * Resolves the `{index}` part of a path (`cities`, `cit*`, `a,b`, `_all`, `*,-mails`) into concrete
 * index names, as ES's `IndexNameExpressionResolver` under a request's `IndicesOptions`
 * (`ignore_unavailable`, `allow_no_indices`, `expand_wildcards`, and whether the API refuses closed
 * indices): wildcards expand to open and/or closed indices, hidden indices (`index.hidden: true`)
 * only with `expand_wildcards` `hidden`/`all` or, for a hidden index whose name starts with `.`, a
 * pattern that starts with `.`; `-pattern` after a wildcard excludes. Each API has ES's defaults
 * ({@link INDICES_OPTIONS}).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/api-conventions.html#api-multi-index
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/IndexNameExpressionResolver.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/IndicesOptions.java
 */
import { EsError, illegalArgument, indexNotFound } from '../shared/errors.ts';
import { parseJavaBoolean } from '../shared/params.ts';
import type { IndexMetadata } from '../shared/protocol.ts';
import { wildcardMatch } from '../shared/wildcard.ts';
import type { ClusterView } from './cluster-view.ts';
import { isHidden } from './index-settings.ts';
import { indexClosed, isClosed } from './index-state.ts';

/** ES `IndicesOptions`, the part Folio uses. */
export interface IndicesOptions {
  /** A missing (or, where closed indices are refused, closed) concrete index is skipped instead of failing. */
  ignoreUnavailable: boolean;
  /** A wildcard or `_all` that matches nothing is fine (else 404). */
  allowNoIndices: boolean;
  /** `expand_wildcards`: which indices wildcards reach. */
  expandOpen: boolean;
  expandClosed: boolean;
  expandHidden: boolean;
  /** ES `forbidClosedIndices`: a closed index is refused (400 `index_closed_exception`) or, with `ignoreUnavailable`, skipped. */
  forbidClosed: boolean;
}

const opts = (ignoreUnavailable: boolean, allowNoIndices: boolean, open: boolean, closed: boolean, hidden: boolean, forbidClosed: boolean): IndicesOptions => ({
  ignoreUnavailable,
  allowNoIndices,
  expandOpen: open,
  expandClosed: closed,
  expandHidden: hidden,
  forbidClosed,
});

/** ES's default `IndicesOptions` of each request type. */
export const INDICES_OPTIONS = {
  /** `SearchRequest`, count, PIT, refresh, flush (`strictExpandOpenAndForbidClosed`). */
  search: opts(false, true, true, false, false, true),
  /** `GetSettingsRequest`, `DeleteIndexRequest` (`fromOptions(false, true, true, true)`). */
  openClosed: opts(false, true, true, true, false, false),
  /** `UpdateSettingsRequest`, `PutMappingRequest` (`fromOptions(false, false, true, true)`). */
  strictOpenClosed: opts(false, false, true, true, false, false),
  /** `GetIndexRequest`, `GetMappingsRequest`, `CloseIndexRequest` (`strictExpandOpen`). */
  strictOpen: opts(false, true, true, false, false, false),
  /** `OpenIndexRequest` (`fromOptions(false, true, false, true)`): wildcards reach closed indices. */
  openIndex: opts(false, true, false, true, false, false),
  /** `_cat/indices` (`strictExpand`: open and closed). */
  catIndices: opts(false, true, true, true, false, false),
  /** `ClusterHealthRequest` (open, closed and hidden; a missing name is reported, not skipped). */
  health: opts(false, true, true, true, true, false),
} satisfies Record<string, IndicesOptions>;

/** ES `IndicesOptions` boolean parameters (`nodeBooleanValue`): true/false, `''` = true. */
function booleanParam(name: string, value: string): boolean {
  if (value === '') return true;
  try {
    return parseJavaBoolean(value);
  } catch (e) {
    throw illegalArgument(`Could not convert [${name}] to boolean`, (e as EsError).toCause());
  }
}

/**
 * ES `IndicesOptions.fromRequest`: `defaults` overridden by the request's `ignore_unavailable`,
 * `allow_no_indices` and `expand_wildcards` (a comma list of `open`, `closed`, `hidden`, `none`,
 * `all`, replacing the default states).
 * @throws EsError 400 `No valid expand wildcard value [x]`, or a boolean parameter's error
 */
export function indicesOptionsFrom(params: URLSearchParams, defaults: IndicesOptions): IndicesOptions {
  const out = { ...defaults };
  const iu = params.get('ignore_unavailable');
  if (iu !== null) out.ignoreUnavailable = booleanParam('ignore_unavailable', iu);
  const ani = params.get('allow_no_indices');
  if (ani !== null) out.allowNoIndices = booleanParam('allow_no_indices', ani);
  const ew = params.get('expand_wildcards');
  if (ew !== null) {
    out.expandOpen = out.expandClosed = out.expandHidden = false;
    for (const raw of ew.split(',')) {
      const w = raw.trim().toLowerCase();
      if (w === 'open') out.expandOpen = true;
      else if (w === 'closed') out.expandClosed = true;
      else if (w === 'hidden') out.expandHidden = true;
      else if (w === 'all') out.expandOpen = out.expandClosed = out.expandHidden = true;
      else if (w !== 'none') throw illegalArgument(`No valid expand wildcard value [${raw}]`);
    }
  }
  return out;
}

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
    return new EsError(404, 'index_not_found_exception', `no such index [${e}] and if you intended to exclude this index, ensure that you use wildcards that include it before explicitly excluding it`, {
      metadata: { 'resource.type': 'index_or_alias', 'resource.id': e, index_uuid: '_na_', index: e },
    });
  }
  return new EsError(404, 'index_not_found_exception', 'no such index [null]', { metadata: { 'resource.type': 'index_expression', 'resource.id': [...expressions] } });
}

/** What the resolver reads of the cluster: index names and each index's metadata. */
export interface IndexCatalog {
  names(): readonly string[];
  metadata(name: string): IndexMetadata | undefined;
}

/** Whether a wildcard (or match-all) reaches this index by its state and hidden setting. */
function reachable(m: IndexMetadata, pattern: string, o: IndicesOptions): boolean {
  if (isClosed(m) ? !o.expandClosed : !o.expandOpen) return false;
  if (!isHidden(m) || o.expandHidden) return true;
  // ES: a hidden index whose name starts with `.` is matched by a pattern that starts with `.`
  return pattern.startsWith('.') && m.name.startsWith('.') && pattern !== '*';
}

/**
 * Pure resolution over a catalog whose concrete names are known (see {@link resolveIndices}).
 * @returns the concrete names, sorted
 * @throws EsError 404 `index_not_found_exception` (ES's shapes), 400 `index_closed_exception`
 */
export function resolveNames(expression: string | undefined, catalog: IndexCatalog, o: IndicesOptions): string[] {
  const parts = (expression ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const expandAny = o.expandOpen || o.expandClosed;
  const all = parts.length === 0 || (parts.length === 1 && (parts[0] === '_all' || parts[0] === '*'));
  const out = new Set<string>();
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
        for (const n of matched) if (exclude) out.delete(n); else out.add(n);
        if (!o.allowNoIndices && matched.length === 0) throw expressionNotFound([name]);
      } else if (exclude) {
        out.delete(name);
      } else if (catalog.metadata(name)) {
        out.add(name);
      } else if (!o.ignoreUnavailable) {
        throw expressionNotFound([name]);
      }
    }
  }
  const concrete: string[] = [];
  for (const n of [...out].sort()) {
    const m = catalog.metadata(n)!;
    if (isClosed(m) && o.forbidClosed) {
      if (!o.ignoreUnavailable) throw indexClosed(m);
      continue;
    }
    concrete.push(n);
  }
  if (!o.allowNoIndices && concrete.length === 0) throw expressionNotFound(all && parts.length <= 1 ? ['_all'] : parts);
  return concrete;
}

/**
 * Concrete index names for an expression under `options` (ES's search defaults when absent),
 * sorted and de-duplicated. An absent expression, `_all` and `*` mean every index the options
 * reach. A concrete name the view does not know is looked up in the store first (another
 * coordinator may have just created it); a wildcard or `_all` reloads the view first.
 * @throws EsError 404 index_not_found_exception, 400 index_closed_exception (see {@link resolveNames})
 */
export async function resolveIndices(expression: string | undefined, view: ClusterView, options: IndicesOptions = INDICES_OPTIONS.search): Promise<string[]> {
  const parts = (expression ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  // Only a wildcard or `_all` needs every index; names alone are looked up one by one (the search path).
  const everyIndex = parts.length === 0 || parts.some((p) => p.includes('*') || p === '_all');
  if (everyIndex) await view.reload();
  const known = new Map<string, IndexMetadata>();
  if (everyIndex) {
    for (const n of view.names()) {
      const v = view.peek(n);
      if (v) known.set(n, v.metadata);
    }
  }
  for (const p of parts) {
    const name = p.startsWith('-') ? p.slice(1) : p;
    if (name.includes('*') || name === '_all' || known.has(name)) continue;
    // not in the cache: read from the store (created through another coordinator)
    const v = view.peek(name) ?? (await view.get(name).catch((err: unknown) => {
      if (err instanceof EsError && err.type === 'index_not_found_exception') return undefined;
      throw err;
    }));
    if (v) known.set(name, v.metadata);
  }
  const names = [...known.keys()].sort();
  return resolveNames(expression, { names: () => names, metadata: (n) => known.get(n) }, options);
}
