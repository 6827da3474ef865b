/**
 * The `preference` parameter of searches and gets, parsed as Elasticsearch parses it
 * (`Preference.parse` and `OperationRouting.preferenceActiveShardIterator`):
 * - `_shards:<n>,<m>` reads only those shard numbers of each index, optionally followed by `|` and
 *   another preference for the copies of those shards;
 * - `_local` (the coordinator holds no copy: the normal order), `_only_local` (no copy at all),
 *   `_prefer_nodes:<id>,…`, `_only_nodes:<spec>,…`;
 * - any other string starting with `_` is refused; a string not starting with `_` is a custom
 *   preference, whose Murmur3 hash fixes each shard's copy order (copy-preference.ts).
 * Errors are ES's texts; a search parses its preference once, when it has an index to apply it to
 * (ES parses it per shard, so a search of no shard never sees them).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-search.html#search-preference
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/routing/Preference.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/routing/OperationRouting.java
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { hashRouting } from './routing.ts';

/** How a preference orders (or restricts) one shard's copies, once the `_shards` part is taken off. */
export type CopyPreference =
  /** No order of its own: adaptive replica selection (no preference, `_local`, `_shards:…` alone). */
  | { kind: 'default' }
  /** `_only_local` (and `_onlyLocal`): copies on the coordinator only, which holds none. */
  | { kind: 'only_local' }
  /** `_prefer_nodes:a,b`: copies on nodes with these ids first (ES compares ids exactly). */
  | { kind: 'prefer_nodes'; ids: readonly string[] }
  /** `_only_nodes:spec,…`: copies on the nodes the specs resolve to (node-specs.ts), none elsewhere. */
  | { kind: 'only_nodes'; specs: readonly string[] }
  /** A custom string: `hash` is ES `Murmur3HashFunction.hash` of it. */
  | { kind: 'custom'; hash: number };

/** A parsed preference: the shard numbers it restricts each index to (null: all), and the copy order. */
export interface Preference {
  shards: ReadonlySet<number> | null;
  copies: CopyPreference;
}

/** The preference types of ES's `Preference` enum, by the text before the first `:`. */
const TYPES: Record<string, 'SHARDS' | 'PREFER_NODES' | 'LOCAL' | 'ONLY_LOCAL' | 'ONLY_NODES'> = {
  _shards: 'SHARDS',
  _prefer_nodes: 'PREFER_NODES',
  _local: 'LOCAL',
  _only_local: 'ONLY_LOCAL',
  _onlyLocal: 'ONLY_LOCAL',
  _only_nodes: 'ONLY_NODES',
};

/** ES `Preference.parse`: the type named before the first `:`. @throws EsError 400 `no Preference for [_x]` */
function preferenceType(text: string): (typeof TYPES)[string] {
  const colon = text.indexOf(':');
  const name = colon === -1 ? text : text.slice(0, colon);
  const type = Object.hasOwn(TYPES, name) ? TYPES[name] : undefined;
  if (type === undefined) throw illegalArgument(`no Preference for [${name}]`);
  return type;
}

/**
 * Java `String.substring(begin, end)` on a preference: a type written without its `:` (`_shards`,
 * `_only_nodes`) makes ES's `substring(type.length() + 1)` throw. ES answers that with a 500
 * `string_index_out_of_bounds_exception`; Folio answers the same type and text with a 400 (bad input
 * is never a 500 here: docs/compatibility.md).
 */
function substring(text: string, begin: number, end = text.length): string {
  if (begin > end) throw new EsError(400, 'string_index_out_of_bounds_exception', `begin ${begin}, end ${end}, length ${text.length}`);
  return text.slice(begin, end);
}

/** Java `Integer.parseInt` (radix 10). @throws EsError 400 `number_format_exception` `For input string: "x"` */
export function javaParseInt(text: string): number {
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < -(2 ** 31) || n > 2 ** 31 - 1) throw new EsError(400, 'number_format_exception', `For input string: "${text}"`);
  return n;
}

/** The shard numbers of `_shards:0,2` (ES `Strings.splitStringByCommaToArray`: empty items are skipped). */
function shardNumbers(list: string): Set<number> {
  return new Set(
    list
      .split(',')
      .filter((s) => s !== '')
      .map(javaParseInt),
  );
}

/** Java `String.split(",")`: trailing empty items are dropped, leading and inner ones kept. */
function javaSplit(list: string): string[] {
  const parts = list.split(',');
  while (parts.length > 0 && parts.at(-1) === '') parts.pop();
  return parts.length === 0 ? [''] : parts;
}

/** The copy part of a preference (what follows `_shards:…|`, or all of it). */
function copyPreference(text: string): CopyPreference {
  if (text[0] !== '_') return { kind: 'custom', hash: hashRouting(text) };
  const type = preferenceType(text);
  switch (type) {
    case 'PREFER_NODES':
      return { kind: 'prefer_nodes', ids: substring(text, '_prefer_nodes'.length + 1).split(',') };
    case 'LOCAL':
      return { kind: 'default' };
    case 'ONLY_LOCAL':
      return { kind: 'only_local' };
    case 'ONLY_NODES':
      return { kind: 'only_nodes', specs: javaSplit(substring(text, '_only_nodes'.length + 1)) };
    case 'SHARDS':
      throw illegalArgument(`unknown preference [${type}]`); // `_shards:0|_shards:1`, as ES
  }
}

/**
 * Parses a `preference` value; null for none (absent or empty, as ES).
 * @example parsePreference('_shards:0,2|_prefer_nodes:shard-1') // {shards: {0, 2}, copies: {kind: 'prefer_nodes', ids: ['shard-1']}}
 * @throws EsError 400 `illegal_argument_exception` `no Preference for [_x]` for an unknown `_x`,
 *   `unknown preference [SHARDS]` for `_shards` after `|`; `number_format_exception`
 *   `For input string: "x"` for a shard number that is not an int
 */
export function parsePreference(text: string | null | undefined): Preference | null {
  if (text === null || text === undefined || text === '') return null;
  if (text[0] !== '_' || preferenceType(text) !== 'SHARDS') return { shards: null, copies: copyPreference(text) };
  const bar = text.indexOf('|');
  const shards = shardNumbers(substring(text, '_shards'.length + 1, bar === -1 ? text.length : bar));
  const rest = bar === -1 ? '' : text.slice(bar + 1);
  return { shards, copies: rest === '' ? { kind: 'default' } : copyPreference(rest) };
}
