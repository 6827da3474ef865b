/**
 * `GET /_cluster/settings` and `PUT /_cluster/settings`, in ES's shapes: settings nested by their
 * dotted keys unless `flat_settings=true`; `include_defaults=true` adds every known setting not set
 * under `defaults`; a PUT answers `{"acknowledged": true, "persistent": {…}, "transient": {…}}`
 * with the keys it set. The settings live on the shard nodes (coordinator/cluster/cluster-settings/settings-store.ts),
 * so every coordinator sees them and persistent ones survive restarts.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-get-settings.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-update-settings.html
 */
import type { Hono } from 'hono';
import { parseBooleanParam } from '../../rest/params.ts';
import type { ClusterSettings } from '../../cluster/cluster-settings/cluster-settings.ts';
import { KNOWN_SETTINGS } from '../../cluster/cluster-settings/setting-definitions.ts';
import { parseSettingsChanges, settingsObject } from '../../cluster/cluster-settings/settings-update.ts';
import { checkParams, queryParams, readJsonBody, sendJson } from '../http.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';

/** Registers the cluster settings routes (before the index routes, whose `/:index` would match). */
export function registerClusterSettingsRoutes(app: Hono, settings: ClusterSettings, maxBodyBytes: number): void {
  const flag = (c: Parameters<typeof checkParams>[0], name: string): boolean => {
    const v = queryParams(c).get(name);
    return v !== null && parseBooleanParam(v);
  };

  app.get('/_cluster/settings', async (c) => {
    checkParams(c, ROUTE_PARAMS.clusterGetSettings);
    const flat = flag(c, 'flat_settings');
    const withDefaults = flag(c, 'include_defaults');
    const state = await settings.refresh();
    const body: Record<string, unknown> = {
      persistent: settingsObject(Object.entries(state.persistent.settings), flat),
      transient: settingsObject(Object.entries(state.transient.settings), flat),
    };
    if (withDefaults) {
      const set = new Set([...Object.keys(state.persistent.settings), ...Object.keys(state.transient.settings)]);
      body.defaults = settingsObject(
        [...KNOWN_SETTINGS.values()].filter((d) => !set.has(d.key)).map((d) => [d.key, d.defaultValue]),
        flat,
      );
    }
    return sendJson(c, 200, body);
  });

  app.put('/_cluster/settings', async (c) => {
    checkParams(c, ROUTE_PARAMS.clusterPutSettings);
    const flat = flag(c, 'flat_settings');
    const applied = await settings.update(parseSettingsChanges(await readJsonBody(c, maxBodyBytes)));
    return sendJson(c, 200, { acknowledged: true, persistent: settingsObject(applied.persistent, flat), transient: settingsObject(applied.transient, flat) });
  });
}
