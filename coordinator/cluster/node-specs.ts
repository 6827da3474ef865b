/**
 * Node specifications as ES's `DiscoveryNodes.resolveNodes` reads them (the `_only_nodes`
 * preference, the cluster APIs' `{node_id}`), over Folio's shard nodes: `_all`; `_local` and
 * `_master` (the coordinator, which holds no copy: no shard node); a node's id (its FOLIO_NODE_ID,
 * which is also its name in `_cat/shards`); a `*` pattern over ids, names and hosts (the host of its
 * FOLIO_NODES URL); `data:true`/`data:false` (every shard node is a data node).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster.html#cluster-nodes
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/node/DiscoveryNodes.java
 */
import { wildcardMatch } from '../../shared/wildcard.ts';

/** A shard node as a node spec names it. */
export interface NodeIdentity {
  /** Its id (FOLIO_NODE_ID) as its last reply told the coordinator; undefined before one. */
  id: string | undefined;
  /** The host of its FOLIO_NODES URL (name or address). */
  host: string;
}

/** The host of a node URL (the URL itself when it does not parse). */
export function hostOfUrl(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}

/** Java `Booleans.parseBoolean(value, true)`: `false` is false, anything else true. */
const roleValue = (value: string): boolean => value !== 'false';

/**
 * The ordinals of the nodes `specs` name, in spec order of discovery (a Set). A spec matching no
 * node adds nothing (ES does not fail there; `_only_nodes` fails when a shard then has no copy).
 * @example resolveNodeSpecs(['shard-*'], [{id: 'shard-0', host: '127.0.0.1'}]) // Set {0}
 */
export function resolveNodeSpecs(specs: readonly string[], nodes: readonly NodeIdentity[]): Set<number> {
  const out = new Set<number>();
  for (const spec of specs) {
    if (spec === '_local' || spec === '_master') continue;
    const exact = nodes.findIndex((n) => n.id === spec);
    if (exact !== -1) {
      out.add(exact);
      continue;
    }
    nodes.forEach((n, i) => {
      if (spec === '_all' || (n.id !== undefined && wildcardMatch(spec, n.id)) || wildcardMatch(spec, n.host)) out.add(i);
    });
    const colon = spec.indexOf(':');
    if (colon !== -1 && spec.slice(0, colon) === 'data') {
      if (roleValue(spec.slice(colon + 1))) nodes.forEach((_, i) => out.add(i));
      else out.clear();
    }
  }
  return out;
}
