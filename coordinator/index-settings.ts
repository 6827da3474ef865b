/**
 * Validation of index names and of the `PUT /{index}` body (`settings`, `mappings`), with ES's
 * defaults (`number_of_shards` 1, `number_of_replicas` 1, `refresh_interval` 1s) and error texts;
 * `max_result_window` defaults higher than ES's 10,000 (see {@link DEFAULT_MAX_RESULT_WINDOW}).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-create-index.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/MetadataCreateIndexService.java
 */
import { EsError, illegalArgument } from '../shared/errors.ts';
import type { Mapping } from '../shared/mapping.ts';
import { parseTimeValue } from '../shared/params.ts';
import type { NewIndexSpec, SearchLimitSettings } from './cluster-view.ts';

/**
 * Folio's default `index.max_result_window`: 10,000,000 instead of ES's 10,000. ES caps the window
 * because every shard sends its top `from + size` and the coordinator merges K × (from + size)
 * entries. Folio pages past `from` ≥ DEEP_PAGE_FROM by exact distributed selection, whose traffic
 * and coordinator memory do not grow with `from` (coordinator/search/select-phase.ts), so the cap
 * only has to bound `size` and the shard-side rank work: 10 M is above any realistic page depth
 * yet still rejects absurd values. Set the setting to 10000 to get ES's limit and its exact error.
 */
export const DEFAULT_MAX_RESULT_WINDOW = 10_000_000;

/** Java's `Integer.MAX_VALUE`, the largest value of an int setting. */
const JAVA_INT_MAX = 2_147_483_647;

function invalidName(name: string, why: string): EsError {
  return new EsError(400, 'invalid_index_name_exception', `Invalid index name [${name}], ${why}`, {
    metadata: { index_uuid: '_na_', index: name },
  });
}

/** @throws EsError 400 invalid_index_name_exception with ES's reason texts */
export function validateIndexName(name: string): void {
  if (name !== name.toLowerCase()) throw invalidName(name, 'must be lowercase');
  if (/[\\/*?"<>| ,#:]/.test(name)) throw invalidName(name, 'must not contain the following characters [\'\\\\\', \'/\', \'*\', \'?\', \'"\', \'<\', \'>\', \'|\', \' \', \',\', \'#\', \':\']');
  if (/^[-_+]/.test(name)) throw invalidName(name, "must not start with '_', '-', or '+'");
  if (name === '.' || name === '..') throw invalidName(name, "must not be '.' or '..'");
  if (Buffer.byteLength(name) > 255) throw invalidName(name, 'index name is too long, (' + Buffer.byteLength(name) + ' > 255)');
}

/**
 * Reads a setting from `settings` in any of ES's spellings, nested or dotted, with or without the
 * `index.` prefix: `{"index":{"translog":{"durability":…}}}`, `{"index.translog.durability":…}`,
 * `{"translog.durability":…}` all name `translog.durability`.
 */
export function readSetting(settings: Record<string, unknown>, key: string): unknown {
  const flat = new Map<string, unknown>();
  const walk = (obj: Record<string, unknown>, prefix: string): void => {
    for (const [k, v] of Object.entries(obj)) {
      const path = prefix + k;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, path + '.');
      else flat.set(path.startsWith('index.') ? path.slice(6) : path, v);
    }
  };
  walk(settings, '');
  return flat.get(key);
}

/** ES `index.translog.durability`: `request` or `async` (case-insensitive), undefined when absent. */
export function translogDurabilitySetting(settings: Record<string, unknown>): 'request' | 'async' | undefined {
  const raw = readSetting(settings, 'translog.durability');
  if (raw === undefined || raw === null) return undefined;
  const v = String(raw).toLowerCase();
  if (v !== 'request' && v !== 'async') {
    throw illegalArgument(`No enum constant org.elasticsearch.index.translog.Translog.Durability.${String(raw).toUpperCase()}`);
  }
  return v;
}

function intSetting(settings: Record<string, unknown>, key: string, dflt: number, min: number): number {
  const raw = readSetting(settings, key);
  if (raw === undefined || raw === null) return dflt;
  const n = typeof raw === 'number' ? raw : Number(raw);
  // ES int settings are Java ints (`Integer.parseInt`): anything else fails to parse.
  if (!Number.isInteger(n) || n > JAVA_INT_MAX || n < -JAVA_INT_MAX - 1) throw illegalArgument(`Failed to parse value [${raw}] for setting [index.${key}]`);
  if (n < min) throw illegalArgument(`Failed to parse value [${raw}] for setting [index.${key}] must be >= ${min}`);
  return n;
}

/** Parses `index.refresh_interval` (`1s`, `-1`, `500ms`) into ms; -1 disables. */
export function refreshIntervalSetting(settings: Record<string, unknown>, dflt: number): number {
  const raw = readSetting(settings, 'refresh_interval');
  if (raw === undefined || raw === null) return dflt;
  if (String(raw) === '-1') return -1;
  return parseTimeValue(String(raw), 'index.refresh_interval');
}

/**
 * Parses `index.gc_deletes` (a time value, ≥ -1 ms as in ES; `-1` collects tombstones as soon as
 * they may go) into ms; undefined when absent (the shard nodes then keep ES's default, 60 s).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules.html#dynamic-index-settings
 */
export function gcDeletesSetting(settings: Record<string, unknown>): number | undefined {
  const raw = readSetting(settings, 'gc_deletes');
  if (raw === undefined || raw === null) return undefined;
  return parseTimeValue(String(raw), 'index.gc_deletes');
}

/**
 * The search-limit settings in `settings` (`index.max_regex_length` ≥ 1, `index.max_rescore_window`
 * ≥ 1, `index.max_script_fields` ≥ 0, `index.max_terms_count` ≥ 1; ES int settings), only those present.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules.html#dynamic-index-settings
 */
export function searchLimitSettings(settings: Record<string, unknown>): SearchLimitSettings {
  const out: SearchLimitSettings = {};
  const present = (key: string) => readSetting(settings, key) !== undefined && readSetting(settings, key) !== null;
  if (present('max_regex_length')) out.maxRegexLength = intSetting(settings, 'max_regex_length', 0, 1);
  if (present('max_rescore_window')) out.maxRescoreWindow = intSetting(settings, 'max_rescore_window', 0, 1);
  if (present('max_script_fields')) out.maxScriptFields = intSetting(settings, 'max_script_fields', 0, 0);
  if (present('max_terms_count')) out.maxTermsCount = intSetting(settings, 'max_terms_count', 0, 1);
  return out;
}

/** The index spec of a `PUT /{index}` body (or an auto-created index when `body` is empty). */
export function parseCreateIndexBody(body: unknown): NewIndexSpec {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b !== 'object' || Array.isArray(b)) throw illegalArgument('index creation body must be an object');
  for (const k of Object.keys(b)) {
    if (!['settings', 'mappings', 'aliases'].includes(k)) {
      throw new EsError(400, 'parsing_exception', `unknown key [${k}] for create index`, { metadata: { line: 1, col: 1 } });
    }
  }
  const settings = (b.settings ?? {}) as Record<string, unknown>;
  const mappings = (b.mappings ?? { properties: {} }) as Mapping;
  if (typeof mappings !== 'object' || Array.isArray(mappings)) throw new EsError(400, 'mapper_parsing_exception', 'Failed to parse mapping: mappings must be an object');
  const numberOfShards = intSetting(settings, 'number_of_shards', 1, 1);
  if (numberOfShards > 1024) throw illegalArgument(`Failed to parse value [${numberOfShards}] for setting [index.number_of_shards] must be <= 1024`);
  return {
    numberOfShards,
    numberOfReplicas: intSetting(settings, 'number_of_replicas', 1, 0),
    maxResultWindow: intSetting(settings, 'max_result_window', DEFAULT_MAX_RESULT_WINDOW, 1),
    refreshIntervalMs: refreshIntervalSetting(settings, 1000),
    translogDurability: translogDurabilitySetting(settings),
    gcDeletesMs: gcDeletesSetting(settings),
    searchLimits: searchLimitSettings(settings),
    mappings: { ...mappings, properties: mappings.properties ?? {} },
  };
}

/** The dynamic settings a `PUT /{index}/_settings` changes. */
export interface SettingsUpdate extends SearchLimitSettings {
  maxResultWindow?: number;
  refreshIntervalMs?: number;
  numberOfReplicas?: number;
  translogDurability?: 'request' | 'async';
  gcDeletesMs?: number;
}

/** Dynamic settings accepted by `PUT /{index}/_settings`. */
export function parseSettingsUpdate(body: unknown): SettingsUpdate {
  const b = (body ?? {}) as Record<string, unknown>;
  const settings = (b.settings ?? b) as Record<string, unknown>;
  const out: SettingsUpdate = {};
  const durability = translogDurabilitySetting(settings);
  if (durability !== undefined) out.translogDurability = durability;
  const gcDeletes = gcDeletesSetting(settings);
  if (gcDeletes !== undefined) out.gcDeletesMs = gcDeletes;
  if (readSetting(settings, 'max_result_window') !== undefined) out.maxResultWindow = intSetting(settings, 'max_result_window', DEFAULT_MAX_RESULT_WINDOW, 1);
  if (readSetting(settings, 'refresh_interval') !== undefined) out.refreshIntervalMs = refreshIntervalSetting(settings, 1000);
  if (readSetting(settings, 'number_of_replicas') !== undefined) out.numberOfReplicas = intSetting(settings, 'number_of_replicas', 1, 0);
  Object.assign(out, searchLimitSettings(settings));
  if (readSetting(settings, 'number_of_shards') !== undefined) {
    throw illegalArgument('Can\'t update non dynamic settings [[index.number_of_shards]] for open indices');
  }
  if (Object.keys(out).length === 0) throw new EsError(400, 'action_request_validation_exception', 'Validation Failed: 1: no settings to update;');
  return out;
}
