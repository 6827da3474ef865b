/**
 * The request bodies of the alias APIs, read as ES reads them, into {@link AliasActionSpec}s:
 * - `POST /_aliases` `{"actions": [{"add"|"remove"|"remove_index": {…}}]}` (`IndicesAliasesRequest.PARSER`);
 * - `PUT|POST /{index}/_alias/{name}` with its optional body (`RestIndexPutAliasAction`);
 * - `DELETE /{index}/_alias/{name}` (`RestIndexDeleteAliasesAction`);
 * - the `aliases` of a create-index body (`Alias.fromXContent`).
 * Alias names are checked as ES's `AliasValidator.validateAliasStandalone` checks them.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-aliases.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/admin/indices/alias/IndicesAliasesRequest.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/admin/indices/alias/Alias.java
 */
import { EsError, illegalArgument, invalidAliasName, validationFailed, type ErrorCause } from '../../../protocol/errors.ts';
import { isObject, NO_LOCATION, scalarText, tokenName, xContentBoolean } from '../../rest/params.ts';
import type { AliasMetadata } from '../../../protocol/metadata.ts';

/** One action of an `_aliases` request, before its index expressions are resolved. */
export interface AliasActionSpec {
  type: 'add' | 'remove' | 'remove_index';
  /** Index expressions (names, wildcards, `_all`); never aliases. */
  indices: string[];
  /** `add`: alias names; `remove`: names or patterns; `remove_index`: empty. */
  aliases: string[];
  /** `add`: the alias's metadata on each index. */
  metadata?: AliasMetadata;
  /** `remove`: fail (404) when an index does not have the alias; unset: skip it. */
  mustExist?: boolean;
}

/**
 * ES's description of an alias or index name that breaks the naming rules
 * (`MetadataCreateIndexService.validateIndexOrAliasName`), or null when the name is fine.
 */
export function nameProblem(name: string): string | null {
  if (/[\\/*?"<>| ,#:]/.test(name)) return "must not contain the following characters ['\\\\', '/', '*', '?', '\"', '<', '>', '|', ' ', ',', '#', ':']";
  if (/^[-_+]/.test(name)) return "must not start with '_', '-', or '+'";
  const bytes = Buffer.byteLength(name);
  if (bytes > 255) return `index name is too long, (${bytes} > 255)`;
  if (name === '.' || name === '..') return "must not be '.' or '..'";
  return null;
}

/**
 * ES `AliasValidator.validateAliasStandalone`: a name (any case, unlike index names) and at most
 * one index routing value.
 * @throws EsError 400 `illegal_argument_exception` `alias name is required` or `alias [a] has several
 *   index routing values associated with it`; `invalid_alias_name_exception` for a bad name
 */
export function validateAlias(name: string, metadata: AliasMetadata | undefined): void {
  if (name.trim() === '') throw illegalArgument('alias name is required');
  const problem = nameProblem(name);
  if (problem) throw invalidAliasName(name, problem);
  if (metadata?.index_routing?.includes(',')) throw illegalArgument(`alias [${name}] has several index routing values associated with it`);
}

/**
 * An alias's metadata from its parts, `routing` setting both routings unless one is given, in the
 * order ES prints them (`AliasMetadata.toXContent`).
 */
export function aliasMetadata(parts: {
  filter?: Record<string, unknown>;
  routing?: string;
  indexRouting?: string;
  searchRouting?: string;
  isWriteIndex?: boolean;
  isHidden?: boolean;
}): AliasMetadata {
  const indexRouting = parts.indexRouting ?? parts.routing;
  const searchRouting = parts.searchRouting ?? parts.routing;
  return {
    ...(parts.filter !== undefined ? { filter: parts.filter } : {}),
    ...(indexRouting !== undefined ? { index_routing: indexRouting } : {}),
    ...(searchRouting !== undefined ? { search_routing: searchRouting } : {}),
    ...(parts.isWriteIndex !== undefined ? { is_write_index: parts.isWriteIndex } : {}),
    ...(parts.isHidden !== undefined ? { is_hidden: parts.isHidden } : {}),
  };
}

/** ES's `x_content_parse_exception` chain of nested object parsers, innermost cause last (the root cause). */
function parseFailure(outer: string[], inner: ErrorCause): EsError {
  let cause: ErrorCause = inner;
  for (let i = outer.length - 1; i > 0; i--) cause = { type: 'x_content_parse_exception', reason: `${NO_LOCATION} ${outer[i]}`, caused_by: cause };
  return new EsError(400, 'x_content_parse_exception', `${NO_LOCATION} ${outer[0]}`, { causedBy: cause, rootCauses: [inner] });
}

const causeOf = (err: unknown): ErrorCause => (err instanceof EsError ? err.toCause() : { type: 'illegal_argument_exception', reason: String(err) });

/** The `index_routing` spellings ES accepts (`ParseField` deprecated names included). */
const INDEX_ROUTING = ['index_routing', 'indexRouting', 'index-routing'];
const SEARCH_ROUTING = ['search_routing', 'searchRouting', 'search-routing'];

/** Fields of each action (ES declares `must_exist` on `remove` and `remove_index` only, routing and flags on `add`). */
const ACTION_FIELDS: Record<AliasActionSpec['type'], ReadonlySet<string>> = {
  add: new Set(['index', 'indices', 'alias', 'aliases', 'filter', 'routing', 'is_write_index', 'is_hidden', ...INDEX_ROUTING, ...SEARCH_ROUTING]),
  remove: new Set(['index', 'indices', 'alias', 'aliases', 'must_exist']),
  remove_index: new Set(['index', 'indices', 'alias', 'aliases', 'must_exist']),
};

/** A string, or a list of them (ES's `declareStringArray` takes a single value too). */
function stringList(field: string, v: unknown): string[] {
  const list = Array.isArray(v) ? v : [v];
  for (const x of list) if (typeof x !== 'string') throw illegalArgument(`[${field}] must be a string or an array of strings, found [${tokenName(x)}]`);
  return list as string[];
}

/** A routing value: a string or a number, read as text (ES `ValueType.INT` fields). */
function routingValue(field: string, v: unknown): string {
  if (typeof v === 'string' || typeof v === 'number') return scalarText(v);
  throw illegalArgument(`[${field}] must be a string or a number, found [${tokenName(v)}]`);
}

/**
 * One action's object (`{"index": …, "alias": …}`), as the add/remove/remove_index parsers of
 * `AliasActions` read it, and its `validate()`.
 * @throws EsError 400: the field's own error (wrapped by the caller)
 */
function parseActionBody(type: AliasActionSpec['type'], body: Record<string, unknown>): AliasActionSpec {
  let indices: string[] | undefined;
  let aliases: string[] = [];
  const parts: Parameters<typeof aliasMetadata>[0] = {};
  let mustExist: boolean | undefined;
  for (const [field, v] of Object.entries(body)) {
    if (!ACTION_FIELDS[type].has(field)) throw new EsError(400, 'x_content_parse_exception', `${NO_LOCATION} [${type}] unknown field [${field}]`);
    if (field === 'index' || field === 'indices') {
      if (indices !== undefined) throw illegalArgument('Only one of [index] and [indices] is supported');
      if (field === 'index' && typeof v !== 'string') throw illegalArgument(`[index] must be a string, found [${tokenName(v)}]`);
      const list = stringList(field, v);
      if (field === 'indices' && list.length === 0) throw illegalArgument("[indices] can't be empty");
      if (list.some((x) => x === '')) throw illegalArgument(field === 'index' ? "[index] can't be empty string" : "[indices] can't contain empty string");
      indices = list;
    } else if (field === 'alias' || field === 'aliases') {
      if (type === 'remove_index') throw illegalArgument(`[${field}] is unsupported for [REMOVE_INDEX]`);
      if (aliases.length > 0) throw illegalArgument('Only one of [alias] and [aliases] is supported');
      if (field === 'alias' && typeof v !== 'string') throw illegalArgument(`[alias] must be a string, found [${tokenName(v)}]`);
      const list = stringList(field, v);
      if (field === 'aliases' && list.length === 0) throw illegalArgument("[aliases] can't be empty");
      if (list.some((x) => x === '')) throw illegalArgument(field === 'alias' ? "[alias] can't be empty string" : "[aliases] can't contain empty string");
      aliases = list;
    } else if (field === 'filter') {
      if (!isObject(v)) throw illegalArgument(`[filter] must be an object, found [${tokenName(v)}]`);
      parts.filter = v;
    } else if (field === 'routing') parts.routing = routingValue(field, v);
    else if (INDEX_ROUTING.includes(field)) parts.indexRouting = routingValue(field, v);
    else if (SEARCH_ROUTING.includes(field)) parts.searchRouting = routingValue(field, v);
    else if (field === 'is_write_index') parts.isWriteIndex = xContentBoolean(v);
    else if (field === 'is_hidden') parts.isHidden = xContentBoolean(v);
    else if (field === 'must_exist') mustExist = xContentBoolean(v);
  }
  // AliasActions.validate()
  if (indices === undefined) throw illegalArgument('One of [index] or [indices] is required');
  if (type !== 'remove_index' && aliases.length === 0) throw illegalArgument('One of [alias] or [aliases] is required');
  return { type, indices, aliases, ...(type === 'add' ? { metadata: aliasMetadata(parts) } : {}), ...(mustExist !== undefined ? { mustExist } : {}) };
}

/**
 * The actions of a `POST /_aliases` body.
 * @throws EsError 400 `x_content_parse_exception` (ES's nested `[aliases] failed to parse field
 *   [actions]` chain, its innermost cause as root cause) for a malformed action;
 *   `action_request_validation_exception` `Must specify at least one alias action` without actions;
 *   `parse_exception` without a body
 */
export function parseAliasesBody(body: unknown): AliasActionSpec[] {
  if (body === undefined) throw new EsError(400, 'parse_exception', 'request body is required');
  if (!isObject(body)) throw new EsError(400, 'x_content_parse_exception', `${NO_LOCATION} [aliases] Expected START_OBJECT but was: ${tokenName(body)}`);
  const actions: AliasActionSpec[] = [];
  for (const [field, v] of Object.entries(body)) {
    if (field !== 'actions') throw new EsError(400, 'x_content_parse_exception', `${NO_LOCATION} [aliases] unknown field [${field}]`);
    const list = Array.isArray(v) ? v : [v];
    for (const entry of list) {
      if (!isObject(entry))
        throw parseFailure(['[aliases] failed to parse field [actions]'], {
          type: 'x_content_parse_exception',
          reason: `${NO_LOCATION} [alias_action] Expected START_OBJECT but was: ${tokenName(entry)}`,
        });
      const keys = Object.keys(entry);
      for (const k of keys) {
        if (!(k in ACTION_FIELDS))
          throw parseFailure(['[aliases] failed to parse field [actions]'], {
            type: 'x_content_parse_exception',
            reason: `${NO_LOCATION} [alias_action] unknown field [${k}]`,
          });
      }
      if (keys.length === 0)
        throw parseFailure(['[aliases] failed to parse field [actions]'], {
          type: 'illegal_argument_exception',
          reason: 'Expected one of [add], [remove] or [remove_index]',
        });
      if (keys.length > 1)
        throw parseFailure(['[aliases] failed to parse field [actions]'], {
          type: 'illegal_argument_exception',
          reason: 'Too many operations declared on operation entry',
        });
      const type = keys[0] as AliasActionSpec['type'];
      const inner = entry[type];
      if (!isObject(inner))
        throw parseFailure(['[aliases] failed to parse field [actions]', `[alias_action] failed to parse field [${type}]`], {
          type: 'x_content_parse_exception',
          reason: `${NO_LOCATION} [${type}] Expected START_OBJECT but was: ${tokenName(inner)}`,
        });
      try {
        actions.push(parseActionBody(type, inner));
      } catch (err) {
        throw parseFailure(['[aliases] failed to parse field [actions]', `[alias_action] failed to parse field [${type}]`], causeOf(err));
      }
    }
  }
  if (actions.length === 0) throw validationFailed(['Must specify at least one alias action']);
  return actions;
}

/**
 * The add action of `PUT /{index}/_alias/{name}` (ES `RestIndexPutAliasAction`): the path's index
 * and alias, overridden by the body's `index` and `alias`; `routing`, `index_routing`,
 * `search_routing`, `is_write_index`, `is_hidden`, `filter` from the body. Other fields are ignored,
 * as ES ignores them.
 * @throws EsError 400 for a value of the wrong type, or an empty index or alias
 */
export function parsePutAliasBody(index: string, name: string, body: unknown): AliasActionSpec {
  let indices = index.split(',').filter((s) => s !== '');
  let alias = name;
  const parts: Parameters<typeof aliasMetadata>[0] = {};
  if (body !== undefined) {
    if (!isObject(body)) throw illegalArgument('No index alias is specified');
    for (const [field, v] of Object.entries(body)) {
      if (field === 'filter') {
        if (isObject(v)) parts.filter = v;
      } else if (v === null || typeof v === 'object') {
        continue;
      } else if (field === 'index')
        indices = scalarText(v)
          .split(',')
          .filter((s) => s !== '');
      else if (field === 'alias') alias = scalarText(v);
      else if (field === 'routing') parts.routing = scalarText(v);
      else if (INDEX_ROUTING.includes(field)) parts.indexRouting = scalarText(v);
      else if (SEARCH_ROUTING.includes(field)) parts.searchRouting = scalarText(v);
      else if (field === 'is_write_index') parts.isWriteIndex = xContentBoolean(v);
      else if (field === 'is_hidden') parts.isHidden = xContentBoolean(v);
    }
  }
  if (indices.length === 0) throw illegalArgument("[indices] can't be empty");
  if (alias === '') throw illegalArgument("[alias] can't be empty string");
  return { type: 'add', indices, aliases: [alias], metadata: aliasMetadata(parts) };
}

/**
 * The `aliases` of a create-index body (ES `Alias.fromXContent` for each entry): `filter`
 * (an object), `routing`, `index_routing`, `search_routing` (strings), `is_write_index`,
 * `is_hidden` (booleans); each name checked ({@link validateAlias}).
 * @throws EsError 400 `illegal_argument_exception` with ES's texts for an unknown field or token,
 *   `invalid_alias_name_exception` for a bad name
 */
export function parseCreateIndexAliases(raw: unknown): Record<string, AliasMetadata> {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw new EsError(400, 'parsing_exception', `key [aliases] must be an object`, { metadata: { line: 1, col: 1 } });
  const out: Record<string, AliasMetadata> = {};
  for (const [name, def] of Object.entries(raw)) {
    if (!isObject(def)) throw illegalArgument(`No alias is specified`);
    const parts: Parameters<typeof aliasMetadata>[0] = {};
    for (const [field, v] of Object.entries(def)) {
      if (isObject(v)) {
        if (field === 'filter') parts.filter = v;
        else throw illegalArgument(`Unknown field [${field}] in alias [${name}]`);
      } else if (typeof v === 'string') {
        if (field === 'routing') parts.routing = v;
        else if (INDEX_ROUTING.includes(field)) parts.indexRouting = v;
        else if (SEARCH_ROUTING.includes(field)) parts.searchRouting = v;
        else throw illegalArgument(`Unsupported String type value [${v}] for field [${field}] in alias [${name}]`);
      } else if (typeof v === 'boolean') {
        if (field === 'is_write_index') parts.isWriteIndex = v;
        else if (field === 'is_hidden') parts.isHidden = v;
        else throw illegalArgument(`Unsupported boolean type value [${v}] for field [${field}] in alias [${name}]`);
      } else {
        throw illegalArgument(`Unknown token [${tokenName(v)}] in alias [${name}]`);
      }
    }
    const metadata = aliasMetadata(parts);
    validateAlias(name, metadata);
    out[name] = metadata;
  }
  return out;
}

/** The remove action of `DELETE /{index}/_alias/{name}` (ES `RestIndexDeleteAliasesAction`): comma lists and patterns as given. */
export function deleteAliasAction(index: string, name: string): AliasActionSpec {
  const indices = index.split(',').filter((s) => s !== '');
  const aliases = name.split(',').filter((s) => s !== '');
  if (indices.length === 0) throw illegalArgument("[indices] can't be empty");
  if (aliases.length === 0) throw illegalArgument("[aliases] can't be empty");
  return { type: 'remove', indices, aliases };
}
