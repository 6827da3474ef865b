/**
 * The index settings Folio knows, with ES's keys, defaults, properties (dynamic, final, private)
 * and value checks (`Setting.intSetting`, `boolSetting`, `timeSetting`, enum settings), and ES's
 * texts for a key it does not know or may not set. A value is kept as ES keeps it, a string; each
 * definition checks it and gives the text ES would store.
 *
 * Some settings are accepted for compatibility without changing what Folio does (see
 * docs/compatibility.md, *Index settings*): they are stored and printed as ES does, so a client
 * that sets and reads them back (dumps and restores, templates) gets the ES answer.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/settings/IndexScopedSettings.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/settings/AbstractScopedSettings.java
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { javaParseInt } from '../../shared/java-number.ts';
import { didYouMean, parseJavaBoolean, parseTimeValue } from '../rest/params.ts';
import type { IndexSettingValue } from '../../protocol/metadata.ts';

/**
 * Folio's default `index.max_result_window`: 10,000,000 instead of ES's 10,000. ES caps the window
 * because every shard sends its top `from + size` and the coordinator merges K × (from + size)
 * entries. Folio pages past `from` ≥ DEEP_PAGE_FROM by exact distributed selection, whose traffic
 * and coordinator memory do not grow with `from` (coordinator/search/select-phase.ts), so the cap
 * only has to bound `size` and the shard-side rank work: 10 M is above any realistic page depth
 * yet still rejects absurd values. Set the setting to 10000 to get ES's limit and its exact error.
 */
export const DEFAULT_MAX_RESULT_WINDOW = 10_000_000;

/** ES's prefix of every index setting (`Settings.Builder.normalizePrefix`). */
export const INDEX_PREFIX = 'index.';

/** One known index setting. */
export interface IndexSettingDefinition {
  /** The full key, `index.` included. */
  key: string;
  /** ES's default as `include_defaults` prints it; null: not printed. */
  defaultValue: string | null;
  /** ES `Property.Dynamic`: may change on an open index. */
  dynamic: boolean;
  /** ES `Property.Final`: may not change at all once the index exists, even closed. */
  final?: boolean;
  /** ES `Property.PrivateIndex`: set by the system only (`uuid`, `creation_date`, …). */
  private?: boolean;
  /** A list setting (its value is a JSON array). */
  list?: boolean;
  /**
   * The value as ES stores it, after ES's check of it.
   * @throws EsError 400 `illegal_argument_exception` with ES's text
   */
  check(raw: IndexSettingValue): IndexSettingValue;
}

/** A family of settings under one prefix (ES's group and affix settings, e.g. `index.analysis.`). */
export interface IndexSettingGroup {
  prefix: string;
  dynamic: boolean;
}

function scalar(key: string, raw: IndexSettingValue): string {
  if (Array.isArray(raw)) throw illegalArgument(`Failed to parse value [${raw.join(',')}] for setting [${key}]`);
  return raw;
}

/** ES `Setting.intSetting(key, default, min[, max])`: a Java int in [min, max]. */
function intSetting(key: string, dflt: number | null, min: number, max?: number, extra: Partial<IndexSettingDefinition> = {}): IndexSettingDefinition {
  return {
    key,
    defaultValue: dflt === null ? null : String(dflt),
    dynamic: true,
    ...extra,
    check(raw) {
      const text = scalar(key, raw);
      const n = javaParseInt(text);
      if (n === null) throw illegalArgument(`Failed to parse value [${text}] for setting [${key}]`);
      if (n < min) throw illegalArgument(`Failed to parse value [${text}] for setting [${key}] must be >= ${min}`);
      if (max !== undefined && n > max) throw illegalArgument(`Failed to parse value [${text}] for setting [${key}] must be <= ${max}`);
      return text;
    },
  };
}

/** ES `Setting.boolSetting`: `true` or `false` exactly (`Booleans.parseBoolean`'s text). */
function boolSetting(key: string, dflt: boolean, extra: Partial<IndexSettingDefinition> = {}): IndexSettingDefinition {
  return {
    key,
    defaultValue: String(dflt),
    dynamic: true,
    ...extra,
    check(raw) {
      const text = scalar(key, raw);
      parseJavaBoolean(text);
      return text;
    },
  };
}

/** ES `Setting.timeSetting(key, default, min)`: a time value of at least `minMs` (`-1` allowed when `minMs` is -1). */
function timeSetting(key: string, dflt: string, minMs: number, extra: Partial<IndexSettingDefinition> = {}): IndexSettingDefinition {
  return {
    key,
    defaultValue: dflt,
    dynamic: true,
    ...extra,
    check(raw) {
      const text = scalar(key, raw);
      if (text === '-1' && minMs <= -1) return text;
      const ms = parseTimeValue(text, key);
      if (ms < minMs) throw illegalArgument(`failed to parse value [${text}] for setting [${key}], must be >= [${minMs}ms]`);
      return text;
    },
  };
}

/** A free-form string setting (no check). */
function stringSetting(key: string, dflt: string | null, extra: Partial<IndexSettingDefinition> = {}): IndexSettingDefinition {
  return { key, defaultValue: dflt, dynamic: true, ...extra, check: (raw) => scalar(key, raw) };
}

/** `index.translog.durability`: a `Translog.Durability` name, any case (ES's `No enum constant` text). */
const TRANSLOG_DURABILITY: IndexSettingDefinition = {
  key: 'index.translog.durability',
  defaultValue: 'REQUEST',
  dynamic: true,
  check(raw) {
    const text = scalar('index.translog.durability', raw);
    const upper = text.toUpperCase();
    if (upper !== 'REQUEST' && upper !== 'ASYNC') throw illegalArgument(`No enum constant org.elasticsearch.index.translog.Translog.Durability.${upper}`);
    return text;
  },
};

/**
 * Every index setting Folio knows, by key. Those Folio applies: `number_of_shards`,
 * `number_of_replicas`, `number_of_routing_shards`, `refresh_interval`, `max_result_window`,
 * `translog.durability`, `gc_deletes`, `hidden`, `max_slices_per_scroll`, `requests.cache.enable`. The others are stored and printed only.
 */
export const INDEX_SETTINGS: ReadonlyMap<string, IndexSettingDefinition> = new Map(
  [
    intSetting('index.number_of_shards', 1, 1, 1024, { dynamic: false, final: true }),
    intSetting('index.number_of_routing_shards', null, 1, undefined, { dynamic: false, final: true }),
    intSetting('index.number_of_replicas', 1, 0),
    timeSetting('index.refresh_interval', '1s', -1),
    intSetting('index.max_result_window', DEFAULT_MAX_RESULT_WINDOW, 1),
    TRANSLOG_DURABILITY,
    timeSetting('index.gc_deletes', '60s', -1),
    boolSetting('index.hidden', false),
    intSetting('index.highlight.max_analyzed_offset', 1_000_000, 1), // read by the shards' highlighter
    boolSetting('index.requests.cache.enable', true), // the shard request cache (coordinator/search/request-cache-policy.ts)
    // accepted and stored, without effect on Folio (see the module comment)
    intSetting('index.max_inner_result_window', 100, 1),
    intSetting('index.max_rescore_window', 10_000, 1),
    intSetting('index.max_docvalue_fields_search', 100, 0),
    intSetting('index.max_script_fields', 32, 0),
    intSetting('index.max_ngram_diff', 1, 0),
    intSetting('index.max_shingle_diff', 3, 0),
    intSetting('index.max_terms_count', 65_536, 1),
    intSetting('index.max_regex_length', 1000, 1),
    intSetting('index.max_slices_per_scroll', 1024, 1),
    intSetting('index.max_refresh_listeners', 1000, 0),
    intSetting('index.priority', 1, 0),
    intSetting('index.mapping.total_fields.limit', 1000, 0),
    intSetting('index.mapping.depth.limit', 20, 1),
    intSetting('index.mapping.nested_fields.limit', 50, 0),
    intSetting('index.mapping.nested_objects.limit', 10_000, 0),
    boolSetting('index.mapping.ignore_malformed', false, { dynamic: false }),
    boolSetting('index.mapping.coerce', true, { dynamic: false }),
    stringSetting('index.codec', 'default', { dynamic: false }),
    // ES 8 refuses `false` at creation; Folio accepts it as ES 7 and OpenSearch do (its writes keep their history by sequence number either way)
    boolSetting('index.soft_deletes.enabled', true, { dynamic: false, final: true }),
    // private: set by the system only
    stringSetting('index.uuid', null, { dynamic: false, private: true }),
    stringSetting('index.creation_date', null, { dynamic: false, private: true }),
    stringSetting('index.provided_name', null, { dynamic: false, private: true }),
    stringSetting('index.version.created', null, { dynamic: false, private: true }),
    boolSetting('index.verified_before_close', false, { dynamic: false, private: true }),
  ].map((d) => [d.key, d]),
);

/**
 * Families of settings accepted under a prefix and stored as given: `index.analysis.*` (analyzer
 * definitions, static) and `index.routing.allocation.*` (allocation filters and the tier preference
 * ES 8 adds to every index, dynamic; Folio places copies itself).
 */
export const INDEX_SETTING_GROUPS: readonly IndexSettingGroup[] = [
  { prefix: 'index.analysis.', dynamic: false },
  { prefix: 'index.routing.allocation.', dynamic: true },
];

/** ES `Settings.Builder.normalizePrefix("index.")`: a key without the prefix gets it. */
export function normalizeIndexKey(key: string): string {
  return key.startsWith(INDEX_PREFIX) ? key : INDEX_PREFIX + key;
}

/** Whether `key` is known, and how it may change. */
export interface KnownSetting {
  dynamic: boolean;
  final: boolean;
  private: boolean;
  definition?: IndexSettingDefinition;
}

/** The known setting `key` names (a definition or a group), or undefined. */
export function knownSetting(key: string): KnownSetting | undefined {
  const d = INDEX_SETTINGS.get(key);
  if (d) return { dynamic: d.dynamic, final: d.final === true, private: d.private === true, definition: d };
  const g = INDEX_SETTING_GROUPS.find((x) => key.startsWith(x.prefix) && key.length > x.prefix.length);
  return g ? { dynamic: g.dynamic, final: false, private: false } : undefined;
}

/**
 * ES `AbstractScopedSettings.validate` for a key: unknown keys are refused, with a suggestion among
 * the known keys (similarity > 0.7) when there is one; private keys are refused when `privateCheck`
 * says how (`create`: `private index setting [k] can not be set explicitly`; `update`:
 * `can not update private setting [k]; this setting is managed by Elasticsearch`).
 * @throws EsError 400 `illegal_argument_exception`
 */
export function checkSettingKey(key: string, privateCheck: 'create' | 'update'): KnownSetting {
  const known = knownSetting(key);
  if (!known) {
    const hint = didYouMean(key, INDEX_SETTINGS.keys());
    throw illegalArgument(
      `unknown setting [${key}]${hint === '' ? ' please check that any required plugins are installed, or check the breaking changes documentation for removed settings' : hint}`,
    );
  }
  if (known.private) {
    throw illegalArgument(
      privateCheck === 'create'
        ? `private index setting [${key}] can not be set explicitly`
        : `can not update private setting [${key}]; this setting is managed by Elasticsearch`,
    );
  }
  return known;
}

/** The checked value of `key` (groups keep their value as given). @throws EsError 400 with ES's text */
export function checkSettingValue(key: string, value: IndexSettingValue): IndexSettingValue {
  const d = INDEX_SETTINGS.get(key);
  return d ? d.check(value) : value;
}

/** Flattens ES settings JSON (nested or dotted keys) into flat keys; scalars become text, arrays lists of text, null stays null. */
export function flattenIndexSettings(
  o: Record<string, unknown>,
  prefix = '',
  out = new Map<string, IndexSettingValue | null>(),
): Map<string, IndexSettingValue | null> {
  for (const [k, v] of Object.entries(o)) {
    const key = prefix + k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flattenIndexSettings(v as Record<string, unknown>, key + '.', out);
    else if (Array.isArray(v))
      out.set(
        key,
        v.map((x) => (x !== null && typeof x === 'object' ? JSON.stringify(x) : String(x))),
      );
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- v is a JSON scalar here: objects and arrays took the branches above
    else out.set(key, v === null ? null : String(v));
  }
  return out;
}

/** A setting's int value (as ES's int settings), or `dflt` when absent or not an int. */
export function intValue(value: IndexSettingValue | undefined, dflt: number): number {
  if (value === undefined || Array.isArray(value)) return dflt;
  return javaParseInt(value) ?? dflt;
}
