/**
 * ES's rules for a `PUT /_cluster/settings` body, as pure functions: which keys a body sets or
 * resets per scope, how one scope changes (`AbstractScopedSettings.updateSettings`: a null resets a
 * key, a null key ending in `*` resets every key it matches, an unknown key is refused, a value is
 * validated by its setting), and the nested or flat shape of the settings in replies.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/settings/AbstractScopedSettings.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-update-settings.html
 */
import { EsError, illegalArgument, parsingException, validationFailed } from '../../../protocol/errors.ts';
import { isObject, tokenName } from '../../rest/params.ts';
import { KNOWN_SETTINGS } from './setting-definitions.ts';

/** A cluster settings scope. */
export type SettingsScope = 'persistent' | 'transient';

/** Per scope, the keys a request sets (to ES's string form) or resets (null), in body order. */
export type SettingsChanges = Record<SettingsScope, Map<string, string | null>>;

/** `{"search": {"max_keep_alive": "1h"}}` and `{"search.max_keep_alive": "1h"}` → `search.max_keep_alive` → `1h`. */
export function flattenSettings(o: Record<string, unknown>, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  for (const [k, v] of Object.entries(o)) {
    if (isObject(v)) flattenSettings(v, `${prefix}${k}.`, out);
    else out.set(prefix + k, v);
  }
  return out;
}

/** Flat keys → ES's nested object (`search.max_keep_alive` → `{search: {max_keep_alive}}`), or the flat object when `flat`. */
export function settingsObject(entries: Iterable<[string, string]>, flat: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (flat) {
      out[k] = v;
      continue;
    }
    const parts = k.split('.');
    let at = out;
    for (const p of parts.slice(0, -1)) {
      if (!isObject(at[p])) at[p] = {};
      at = at[p] as Record<string, unknown>;
    }
    at[parts[parts.length - 1]] = v;
  }
  return out;
}

/** A JSON value as ES's settings store it: scalars as their text. @throws EsError 400 for arrays */
function settingText(key: string, v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw illegalArgument(`Failed to parse value [${JSON.stringify(v)}] for setting [${key}]`);
}

/**
 * The changes a `PUT /_cluster/settings` body asks for (ES `ClusterUpdateSettingsRequest.fromXContent`).
 * @throws EsError 400 `parsing_exception` for a non-object, `x_content_parse_exception` for an
 *   unknown top-level field, `action_request_validation_exception` `no settings to update`.
 */
export function parseSettingsChanges(body: unknown): SettingsChanges {
  const b = body ?? {};
  if (!isObject(b)) throw parsingException(`Expected [START_OBJECT] but found [${tokenName(b)}]`);
  const changes: SettingsChanges = { persistent: new Map(), transient: new Map() };
  for (const [field, value] of Object.entries(b)) {
    if (field !== 'persistent' && field !== 'transient')
      throw new EsError(400, 'x_content_parse_exception', `[cluster_update_settings_request] unknown field [${field}]`);
    if (value === null) continue;
    if (!isObject(value)) throw parsingException(`Expected [START_OBJECT] but found [${tokenName(value)}]`);
    for (const [k, v] of flattenSettings(value)) changes[field].set(k, v === null ? null : settingText(k, v));
  }
  if (changes.persistent.size === 0 && changes.transient.size === 0) throw validationFailed(['no settings to update']);
  return changes;
}

/**
 * Applies one scope's changes to its current settings (ES `AbstractScopedSettings.updateSettings`).
 * @returns the scope's next settings and the keys set by this request (ES's reply echoes those).
 * @throws EsError 400 `illegal_argument_exception` `{scope} setting [k], not recognized` for an
 *   unknown key, or the setting's own parse error for an invalid value.
 */
export function applyScopeChanges(
  scope: SettingsScope,
  current: Readonly<Record<string, string>>,
  changes: ReadonlyMap<string, string | null>,
): { next: Record<string, string>; updated: Map<string, string> } {
  const next = new Map(Object.entries(current));
  const updated = new Map<string, string>();
  const resets: string[] = [];
  for (const [key, value] of changes) {
    const def = KNOWN_SETTINGS.get(key);
    if (value === null && (def !== undefined || key.endsWith('*'))) {
      resets.push(key);
    } else if (def === undefined) {
      throw illegalArgument(`${scope} setting [${key}], not recognized`);
    } else if (value !== null) {
      def.parse(value);
      next.set(key, value);
      updated.set(key, value);
    }
  }
  // Resets are applied after the loop and never undo a key this request sets (ES applies deletes, then puts).
  for (const pattern of resets) {
    const prefix = pattern.endsWith('*') ? pattern.slice(0, -1) : null;
    for (const key of [...next.keys()]) {
      if (!updated.has(key) && (prefix !== null ? key.startsWith(prefix) : key === pattern)) next.delete(key);
    }
  }
  return { next: Object.fromEntries(next), updated };
}
