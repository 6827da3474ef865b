/**
 * The index settings as `GET /{index}/_settings[/{name}]` and `GET /{index}` print them (ES
 * `RestGetSettingsAction`, `TransportGetSettingsAction`, `GetSettingsResponse`): the explicit
 * settings plus the ones ES keeps for every index (`uuid`, `creation_date`, `provided_name`,
 * `version.created`), nested by their dotted keys or flat with `flat_settings`, filtered by `{name}`
 * patterns, with `include_defaults` adding every known setting that is not set under `defaults`.
 * Values are strings (lists stay lists), as ES prints them.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-get-settings.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/admin/indices/settings/get/TransportGetSettingsAction.java
 */
import type { IndexMetadata, IndexSettingValue } from '../../protocol/metadata.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';
import { INDEX_SETTINGS } from './index-setting-definitions.ts';
import { explicitSettings } from './index-settings.ts';

/** `index.version.created` Folio reports (an ES 8 index version id). */
export const INDEX_VERSION_CREATED = '8500000';

/** Every setting ES prints for the index, flat and sorted by key. */
export function allIndexSettings(m: IndexMetadata): [string, IndexSettingValue][] {
  const out: Record<string, IndexSettingValue> = {
    ...explicitSettings(m),
    'index.uuid': m.uuid,
    'index.creation_date': String(m.creationDate),
    'index.provided_name': m.name,
    'index.version.created': INDEX_VERSION_CREATED,
  };
  return Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Flat keys → ES's nested object (`index.number_of_shards` → `{index: {number_of_shards}}`), or the flat object when `flat`. */
export function settingsTree(entries: Iterable<[string, IndexSettingValue]>, flat: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    if (flat) {
      out[k] = v;
      continue;
    }
    const parts = k.split('.');
    let at = out;
    for (const p of parts.slice(0, -1)) {
      const next = at[p];
      if (next === null || typeof next !== 'object' || Array.isArray(next)) at[p] = {};
      at = at[p] as Record<string, unknown>;
    }
    at[parts[parts.length - 1]] = v;
  }
  return out;
}

/** How a get-settings request prints each index. */
export interface GetSettingsOptions {
  /** `{name}` patterns (ES `Regex.simpleMatch` on the full key); empty or absent: every setting. */
  names?: readonly string[];
  /** `flat_settings`. */
  flat: boolean;
  /** `include_defaults`. */
  includeDefaults: boolean;
}

/** ES `paramAsStringArrayOrEmptyIfAll("name")`: the `{name}` patterns, none for `_all` or absent. */
export function settingNames(name: string | undefined): string[] {
  const names = (name ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return names.length === 1 && names[0] === '_all' ? [] : names;
}

/**
 * One index's entry of a get-settings reply: `{settings, defaults?}`, or null when a `{name}`
 * filter leaves no setting and no defaults are asked for (ES leaves such an index out).
 */
export function getSettingsEntry(m: IndexMetadata, o: GetSettingsOptions): Record<string, unknown> | null {
  const names = o.names ?? [];
  const wanted = (k: string) => names.length === 0 || names.some((p) => wildcardMatch(p, k));
  const set = allIndexSettings(m);
  const shown = set.filter(([k]) => wanted(k));
  if (!o.includeDefaults) return shown.length === 0 ? null : { settings: settingsTree(shown, o.flat) };
  const present = new Set(set.map(([k]) => k));
  const defaults: [string, IndexSettingValue][] = [...INDEX_SETTINGS.values()]
    .filter((d) => d.defaultValue !== null && !d.private && !present.has(d.key) && wanted(d.key))
    .map((d) => [d.key, d.defaultValue!] as [string, IndexSettingValue])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { settings: settingsTree(shown, o.flat), defaults: settingsTree(defaults, o.flat) };
}
