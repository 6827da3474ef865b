/**
 * The cluster settings Folio knows, with ES's keys, defaults, parsers and error texts
 * (`Setting.boolSetting`, `Setting.intSetting`, `Setting.positiveTimeSetting`). A value is stored
 * as ES stores it, a string; each definition turns it into its typed value.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/settings/Setting.java
 */
import { illegalArgument } from '../../../protocol/errors.ts';
import { javaParseInt } from '../../../shared/java-number.ts';
import { parseJavaBoolean, parseTimeValue } from '../../rest/params.ts';
import { formatTimeValue } from '../../../shared/time-value.ts';

/** One known cluster setting. */
export interface SettingDefinition<T> {
  key: string;
  /** ES's default, as ES prints it under `defaults`. */
  defaultValue: string;
  /** The typed value of a stored string. @throws EsError 400 with ES's text when invalid */
  parse(raw: string): T;
}

/** ES `Setting.boolSetting`: `true` or `false` exactly. */
export function boolSetting(key: string, defaultValue: boolean): SettingDefinition<boolean> {
  return { key, defaultValue: String(defaultValue), parse: parseJavaBoolean };
}

/** ES `Setting.intSetting(key, default, min)`: a Java int of at least `min`. */
export function intSetting(key: string, defaultValue: number, min: number): SettingDefinition<number> {
  return {
    key,
    defaultValue: String(defaultValue),
    parse(raw) {
      const n = javaParseInt(raw);
      if (n === null) throw illegalArgument(`Failed to parse value [${raw}] for setting [${key}]`);
      if (n < min) throw illegalArgument(`Failed to parse value [${raw}] for setting [${key}] must be >= ${min}`);
      return n;
    },
  };
}

/** ES `Setting.positiveTimeSetting`: a time value (`24h`, `5m`) of at least 0, in milliseconds. */
export function positiveTimeSetting(key: string, defaultValue: string): SettingDefinition<number> {
  return {
    key,
    defaultValue,
    parse(raw) {
      const ms = parseTimeValue(raw, key);
      if (ms < 0) throw illegalArgument(`failed to parse value [${raw}] for setting [${key}], must be >= [0ms]`);
      return ms;
    },
  };
}

/**
 * `action.destructive_requires_name` (ES 8 default true): deleting indices by `_all` or a wildcard is
 * refused. @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-management-settings.html
 */
export const DESTRUCTIVE_REQUIRES_NAME = boolSetting('action.destructive_requires_name', true);
/**
 * `search.max_keep_alive` (24h): the longest PIT or scroll keep-alive a request may ask for.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-settings.html
 */
export const MAX_KEEP_ALIVE = positiveTimeSetting('search.max_keep_alive', '24h');
/**
 * `search.default_keep_alive` (5m): ES's keep-alive of a search context opened without one; must
 * not exceed `search.max_keep_alive` ({@link checkKeepAliveSettings}). Folio's cursors always carry
 * their own keep-alive (a scroll's `scroll`, a PIT's `keep_alive`), so only the bound applies.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-settings.html
 */
export const DEFAULT_KEEP_ALIVE = positiveTimeSetting('search.default_keep_alive', '5m');
/** `search.max_open_scroll_context` (500): open scroll shard contexts per shard node (applied by the nodes). */
export const MAX_OPEN_SCROLL_CONTEXT = intSetting('search.max_open_scroll_context', 500, 0);
/** `search.max_open_pit_context` (OpenSearch, 300): open PIT shard contexts per shard node (applied by the nodes). */
export const MAX_OPEN_PIT_CONTEXT = intSetting('search.max_open_pit_context', 300, 0);
/**
 * `cluster.max_shards_per_node` (1000): creating an index or adding replicas may not take the
 * cluster's shard copies above this × the number of data nodes (ShardLimitValidator).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/misc-cluster-settings.html#cluster-shard-limit
 */
export const MAX_SHARDS_PER_NODE = intSetting('cluster.max_shards_per_node', 1000, 1);

/**
 * `search.max_buckets` (65,536): the most buckets one search's aggregations may return
 * (`too_many_buckets_exception` past it). @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-settings.html
 */
export const MAX_BUCKETS = intSetting('search.max_buckets', 65_536, 0);

/** Every known cluster setting, by key. */
export const KNOWN_SETTINGS: ReadonlyMap<string, SettingDefinition<unknown>> = new Map(
  [DESTRUCTIVE_REQUIRES_NAME, DEFAULT_KEEP_ALIVE, MAX_KEEP_ALIVE, MAX_OPEN_SCROLL_CONTEXT, MAX_OPEN_PIT_CONTEXT, MAX_SHARDS_PER_NODE, MAX_BUCKETS].map((d) => [
    d.key,
    d as SettingDefinition<unknown>,
  ]),
);

/**
 * ES `SearchService.validateKeepAlives`, run on the settings a `PUT /_cluster/settings` would leave
 * (each key: transient, else persistent, else its default): `search.default_keep_alive` may not
 * exceed `search.max_keep_alive`, whichever of the two the request changes.
 * @throws EsError 400 `illegal_argument_exception` `Default keep alive setting for request
 *   [search.default_keep_alive] should be smaller than max keep alive [search.max_keep_alive], was (5m > 1m)`
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/SearchService.java (validateKeepAlives)
 */
export function checkKeepAliveSettings(value: (key: string) => string | undefined): void {
  const defaultMs = DEFAULT_KEEP_ALIVE.parse(value(DEFAULT_KEEP_ALIVE.key) ?? DEFAULT_KEEP_ALIVE.defaultValue);
  const maxMs = MAX_KEEP_ALIVE.parse(value(MAX_KEEP_ALIVE.key) ?? MAX_KEEP_ALIVE.defaultValue);
  if (defaultMs > maxMs) {
    throw illegalArgument(
      `Default keep alive setting for request [${DEFAULT_KEEP_ALIVE.key}] should be smaller than max keep alive [${MAX_KEEP_ALIVE.key}], ` +
        `was (${formatTimeValue(defaultMs)} > ${formatTimeValue(maxMs)})`,
    );
  }
}
