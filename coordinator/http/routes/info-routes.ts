/**
 * `GET /`: the cluster info that clients read at connect time (`version.number`, `tagline`).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/main/MainResponse.java
 */
import type { Hono } from 'hono';
import { checkParams, sendJson } from '../http.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';

/** The ES version Folio presents: 8.x, so the official 8.x clients accept it. */
export const ES_COMPAT_VERSION = '8.15.0';

/** Registers `GET /` and `HEAD /`. */
export function registerInfoRoutes(app: Hono, info: { nodeName: string; clusterName: string; clusterUuid: string }): void {
  app.get('/', (c) => {
    checkParams(c, ROUTE_PARAMS.main);
    return sendJson(c, 200, {
      name: info.nodeName,
      cluster_name: info.clusterName,
      cluster_uuid: info.clusterUuid,
      version: {
        number: ES_COMPAT_VERSION,
        build_flavor: 'default',
        build_type: 'folio',
        build_hash: 'folio',
        build_date: '2026-11-22T00:00:00.000Z',
        build_snapshot: false,
        lucene_version: '9.11.1',
        minimum_wire_compatibility_version: '7.17.0',
        minimum_index_compatibility_version: '7.0.0',
      },
      tagline: 'You Know, for Search',
    });
  });
}
