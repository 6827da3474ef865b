/**
 * ES's `IndicesOptions`: how a request's index expression resolves (`ignore_unavailable`,
 * `allow_no_indices`, `expand_wildcards`, whether closed indices or aliases are refused), with
 * ES's defaults of each request type ({@link INDICES_OPTIONS}) and their override by the request's
 * parameters ({@link indicesOptionsFrom}). The resolver that applies them is index-expression.ts.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/api-conventions.html#api-multi-index
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/IndicesOptions.java
 */
import { type EsError, illegalArgument } from '../../protocol/errors.ts';
import { parseJavaBoolean } from '../rest/params.ts';

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
  /** ES `ignoreAliases`: the expression names indices only; an alias name is refused (400) and wildcards skip aliases. */
  ignoreAliases?: boolean;
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
  /** `GetSettingsRequest` (`fromOptions(false, true, true, true)`). */
  openClosed: opts(false, true, true, true, false, false),
  /** `DeleteIndexRequest`: as {@link INDICES_OPTIONS.openClosed}, but an alias is refused (ES deletes indices by their names only). */
  deleteIndex: { ...opts(false, true, true, true, false, false), ignoreAliases: true },
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
  /** `GetAliasesRequest`, `_cat/aliases` (`strictExpandHidden`: open, closed and hidden). */
  getAliases: opts(false, true, true, true, true, false),
  /** `IndicesAliasesRequest`'s actions (`fromOptions(false, false, true, false, …, ignoreAliases)`): indices only, every one must exist. */
  aliasActions: { ...opts(false, false, true, false, false, false), ignoreAliases: true },
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
