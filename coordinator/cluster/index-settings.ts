/**
 * Index names and index settings as ES's create-index and update-settings services handle them:
 * the `PUT /{index}` body (`settings`, `mappings`), the `PUT /{index}/_settings` body and its
 * application to one index (dynamic settings on open indices, any non-final setting on closed
 * ones, `null` resets, `preserve_existing`), with ES's defaults and error texts. The settings are
 * kept as ES keeps them (flat `index.` keys, string values) in `IndexMetadata.settings`, and the
 * typed fields the shard nodes use are derived from them ({@link typedSettings}).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-create-index.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-update-settings.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/MetadataCreateIndexService.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/MetadataUpdateSettingsService.java
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { checkFieldAliases } from '../rest/field-alias-check.ts';
import { parseMapping, refuseTypedCreateMapping } from '../rest/mapping-parse.ts';
import { parseTimeValue } from '../rest/params.ts';
import type { IndexMetadata, IndexSettingValue } from '../../protocol/metadata.ts';
import { defaultRoutingNumShards } from './routing.ts';
import type { NewIndexSpec } from './new-index.ts';
import {
  checkSettingKey,
  checkSettingValue,
  DEFAULT_MAX_RESULT_WINDOW,
  flattenIndexSettings,
  INDEX_SETTINGS,
  intValue,
  knownSetting,
  normalizeIndexKey,
} from './index-setting-definitions.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';

export { DEFAULT_MAX_RESULT_WINDOW };

/** Explicit index settings: flat `index.` keys → values as ES stores them. */
export type IndexSettings = Record<string, IndexSettingValue>;

function invalidName(name: string, why: string): EsError {
  return new EsError(400, 'invalid_index_name_exception', `Invalid index name [${name}], ${why}`, {
    metadata: { index_uuid: '_na_', index: name },
  });
}

/** @throws EsError 400 invalid_index_name_exception with ES's reason texts */
export function validateIndexName(name: string): void {
  if (name !== name.toLowerCase()) throw invalidName(name, 'must be lowercase');
  if (/[\\/*?"<>| ,#:]/.test(name))
    throw invalidName(name, "must not contain the following characters ['\\\\', '/', '*', '?', '\"', '<', '>', '|', ' ', ',', '#', ':']");
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
  const want = normalizeIndexKey(key);
  for (const [k, v] of flattenIndexSettings(settings)) if (normalizeIndexKey(k) === want) return v;
  return undefined;
}

/** The text of a single-valued setting, or undefined. */
function text(settings: IndexSettings, key: string): string | undefined {
  const v = settings[key];
  return v === undefined || Array.isArray(v) ? undefined : v;
}

/** The typed fields of `IndexMetadata` that explicit `settings` give (defaults where absent). */
export type TypedSettings = Pick<
  IndexMetadata,
  'numberOfShards' | 'numberOfReplicas' | 'routingNumShards' | 'maxResultWindow' | 'refreshIntervalMs' | 'translogDurability' | 'gcDeletesMs'
>;

/**
 * The typed fields of explicit (already checked) settings: ES's defaults where a setting is absent
 * (`number_of_shards` 1, `number_of_replicas` 1, `refresh_interval` 1s, Folio's
 * {@link DEFAULT_MAX_RESULT_WINDOW}); `translogDurability` and `gcDeletesMs` stay undefined when
 * absent (the shard nodes' defaults then apply).
 */
export function typedSettings(settings: IndexSettings): TypedSettings {
  const numberOfShards = intValue(settings['index.number_of_shards'], 1);
  const refresh = text(settings, 'index.refresh_interval');
  const durability = text(settings, 'index.translog.durability');
  const gcDeletes = text(settings, 'index.gc_deletes');
  return {
    numberOfShards,
    numberOfReplicas: intValue(settings['index.number_of_replicas'], 1),
    routingNumShards: intValue(settings['index.number_of_routing_shards'], defaultRoutingNumShards(numberOfShards)),
    maxResultWindow: intValue(settings['index.max_result_window'], DEFAULT_MAX_RESULT_WINDOW),
    refreshIntervalMs: refresh === undefined ? 1000 : parseTimeValue(refresh, 'index.refresh_interval'),
    translogDurability: durability === undefined ? undefined : (durability.toLowerCase() as 'request' | 'async'),
    gcDeletesMs: gcDeletes === undefined ? undefined : parseTimeValue(gcDeletes, 'index.gc_deletes'),
  };
}

/**
 * The explicit settings of an index: `metadata.settings`, or for an index created before Folio kept
 * them, the ones its typed fields imply (shards, replicas, and the others where they differ from the default).
 */
export function explicitSettings(m: IndexMetadata): IndexSettings {
  if (m.settings) return m.settings;
  const out: IndexSettings = { 'index.number_of_shards': String(m.numberOfShards), 'index.number_of_replicas': String(m.numberOfReplicas) };
  if (m.maxResultWindow !== DEFAULT_MAX_RESULT_WINDOW) out['index.max_result_window'] = String(m.maxResultWindow);
  if (m.refreshIntervalMs !== 1000) out['index.refresh_interval'] = m.refreshIntervalMs < 0 ? '-1' : `${m.refreshIntervalMs}ms`;
  if (m.translogDurability) out['index.translog.durability'] = m.translogDurability;
  if (m.gcDeletesMs !== undefined) out['index.gc_deletes'] = m.gcDeletesMs < 0 ? '-1' : `${m.gcDeletesMs}ms`;
  return out;
}

/** Whether the index has `index.hidden: true` (ES's hidden indices, left out of wildcards by default). */
export function isHidden(m: IndexMetadata): boolean {
  return m.settings?.['index.hidden'] === 'true';
}

/** Sorted copy of a settings object (ES's `Settings` are a sorted map). */
function sorted(settings: IndexSettings): IndexSettings {
  return Object.fromEntries(Object.entries(settings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * `number_of_routing_shards` against `number_of_shards` (ES `INDEX_NUMBER_OF_ROUTING_SHARDS_SETTING`'s
 * validator and `IndexMetadata.getRoutingFactor`).
 * @throws EsError 400 `illegal_argument_exception`
 */
function checkRoutingShards(settings: IndexSettings): void {
  if (settings['index.number_of_routing_shards'] === undefined) return;
  const shards = intValue(settings['index.number_of_shards'], 1);
  const routing = intValue(settings['index.number_of_routing_shards'], shards);
  if (routing < shards) throw illegalArgument(`index.number_of_routing_shards [${routing}] must be >= index.number_of_shards [${shards}]`);
  if (routing % shards !== 0) throw illegalArgument(`the number of source shards [${shards}] must be a factor of [${routing}]`);
}

/**
 * The index spec of a `PUT /{index}` body (or an auto-created index when `body` is empty): settings
 * normalized to `index.` keys, each key known (ES's `unknown setting` text otherwise) and not
 * private, each value checked; `number_of_shards` and `number_of_replicas` always stored, as ES does.
 * @throws EsError 400 `parsing_exception` for an unknown top-level key, `illegal_argument_exception` for a bad setting
 */
export function parseCreateIndexBody(body: unknown): NewIndexSpec {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b !== 'object' || Array.isArray(b)) throw illegalArgument('index creation body must be an object');
  for (const k of Object.keys(b)) {
    if (!['settings', 'mappings', 'aliases'].includes(k)) {
      throw new EsError(400, 'parsing_exception', `unknown key [${k}] for create index`, { metadata: { line: 1, col: 1 } });
    }
  }
  const rawSettings = b.settings ?? {};
  if (typeof rawSettings !== 'object' || rawSettings === null || Array.isArray(rawSettings)) throw illegalArgument('index settings must be an object');
  refuseTypedCreateMapping(b.mappings);
  const mappings = parseMapping(b.mappings);
  checkFieldAliases(mappings);
  const settings: IndexSettings = {};
  for (const [rawKey, value] of flattenIndexSettings(rawSettings as Record<string, unknown>)) {
    const key = normalizeIndexKey(rawKey);
    checkSettingKey(key, 'create');
    if (value !== null) settings[key] = checkSettingValue(key, value);
  }
  settings['index.number_of_shards'] ??= '1';
  settings['index.number_of_replicas'] ??= '1';
  checkRoutingShards(settings);
  return { ...typedSettings(settings), settings: sorted(settings), mappings };
}

/** The changes of a `PUT /{index}/_settings` body: normalized keys → new value, or null to reset. */
export type SettingsChanges = Map<string, IndexSettingValue | null>;

/**
 * Reads a `PUT /{index}/_settings` body (the settings, or `{"settings": {…}}`, as ES's
 * `RestUpdateSettingsAction`): keys normalized to `index.…` and checked (unknown or private keys are
 * refused); values are checked when applied ({@link applySettingsChanges}). A key with a `*` and a
 * null value resets every setting it matches.
 * @throws EsError 400 `action_request_validation_exception` `no settings to update`; `illegal_argument_exception` for a bad key
 */
export function parseSettingsUpdate(body: unknown): SettingsChanges {
  if (body === undefined) throw new EsError(400, 'parse_exception', 'request body is required');
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new EsError(400, 'action_request_validation_exception', 'Validation Failed: 1: no settings to update;');
  const b = body as Record<string, unknown>;
  const inner = b.settings !== null && typeof b.settings === 'object' && !Array.isArray(b.settings) ? (b.settings as Record<string, unknown>) : b;
  const changes: SettingsChanges = new Map();
  for (const [rawKey, value] of flattenIndexSettings(inner)) {
    const key = normalizeIndexKey(rawKey);
    if (!(key.includes('*') && value === null)) checkSettingKey(key, 'update');
    changes.set(key, value);
  }
  if (changes.size === 0) throw new EsError(400, 'action_request_validation_exception', 'Validation Failed: 1: no settings to update;');
  return changes;
}

/** ES's `Index.toString()` in messages: `[name/uuid]`. */
function indexRef(m: IndexMetadata): string {
  return `[${m.name}/${m.uuid}]`;
}

/**
 * ES `MetadataUpdateSettingsService`'s refusal of non-dynamic settings while any target is open
 * (`reopen` not asked): `Can't update non dynamic settings [[index.number_of_shards]] for open indices [[i/uuid]]`.
 * @throws EsError 400 `illegal_argument_exception` when `changes` holds a static setting and `open` is not empty
 */
export function checkStaticOnOpen(changes: SettingsChanges, open: readonly IndexMetadata[]): void {
  if (open.length === 0) return;
  const statics = [...changes.keys()].filter((k) => !k.includes('*') && knownSetting(k)?.dynamic === false).sort();
  if (statics.length === 0) return;
  throw illegalArgument(`Can't update non dynamic settings [[${statics.join(', ')}]] for open indices [${open.map(indexRef).join(', ')}]`);
}

/** Options of {@link applySettingsChanges}. */
export interface ApplyOptions {
  /** ES `preserve_existing`: settings the index already has keep their value. */
  preserveExisting?: boolean;
  /** The index is open (and not reopened): only dynamic settings change (ES `updateDynamicSettings`). */
  onlyDynamic?: boolean;
}

/**
 * One index's settings after `changes` (ES `IndexScopedSettings.updateDynamicSettings` for an open
 * index, `updateSettings` for a closed one): a null resets a setting to its default (a key with `*`
 * every setting it matches that may be reset), `number_of_replicas` is stored again with its default
 * when reset, a final setting (`number_of_shards`) refuses any change, values are checked. Static
 * settings on an open index must have been refused before ({@link checkStaticOnOpen}).
 * @returns the next metadata (typed fields derived from the settings), or null when nothing changes
 * @throws EsError 400 `illegal_argument_exception` `final i setting [index.number_of_shards], not updateable`, or a value's error
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/settings/AbstractScopedSettings.java (updateSettings)
 */
export function applySettingsChanges(m: IndexMetadata, changes: SettingsChanges, opts: ApplyOptions = {}): IndexMetadata | null {
  const current = explicitSettings(m);
  const next: IndexSettings = { ...current };
  const deletable = (k: string) => {
    const known = knownSetting(k);
    return known !== undefined && !known.final && !known.private && (!opts.onlyDynamic || known.dynamic);
  };
  for (const [key, value] of changes) {
    if (key.includes('*') && value === null) {
      for (const k of Object.keys(next)) if (wildcardMatch(key, k) && deletable(k)) delete next[k];
      continue;
    }
    if (knownSetting(key)?.final) throw illegalArgument(`final ${m.name} setting [${key}], not updateable`);
    if (opts.preserveExisting && current[key] !== undefined) continue;
    if (value === null) delete next[key];
    else next[key] = checkSettingValue(key, value);
  }
  next['index.number_of_replicas'] ??= String(INDEX_SETTINGS.get('index.number_of_replicas')!.defaultValue);
  if (JSON.stringify(sorted(next)) === JSON.stringify(sorted(current)) && m.settings) return null;
  const typed = typedSettings(next);
  // number_of_shards and number_of_routing_shards are final: the stored values stay
  const out: IndexMetadata = { ...m, ...typed, numberOfShards: m.numberOfShards, routingNumShards: m.routingNumShards, settings: sorted(next) };
  if (typed.translogDurability === undefined) delete out.translogDurability;
  if (typed.gcDeletesMs === undefined) delete out.gcDeletesMs;
  return out;
}

/**
 * The `number_of_replicas` a change asks for (its default, 1, when reset), or undefined when it does
 * not touch it: what the shard limit is checked against (ES `validateShardLimitOnReplicaUpdate`).
 */
export function replicasChange(changes: SettingsChanges): number | undefined {
  if (!changes.has('index.number_of_replicas')) return undefined;
  const v = changes.get('index.number_of_replicas');
  return v === null || v === undefined ? 1 : intValue(checkSettingValue('index.number_of_replicas', v), 1);
}
