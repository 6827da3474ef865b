/**
 * The ordered list of shard-node URLs (FOLIO_NODES, or FOLIO_NODE_COUNT + FOLIO_NODE_URL_TEMPLATE),
 * read by coordinators (placement: a node's ordinal is its position) and, optionally, by shard nodes
 * (the addresses a primary forwards its writes to: shard-node/config.ts). Like ES's
 * `discovery.seed_hosts`, a static list of addresses.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-discovery-settings.html
 */
import { envInt, envStr } from './env.ts';

/** Placeholders FOLIO_NODE_URL_TEMPLATE may contain. */
const TEMPLATE_PLACEHOLDERS = new Set(['{i}', '{namespace}']);

/** Throws unless `url` is an absolute http(s) URL; `source` names the variable in the message. */
function checkNodeUrl(url: string, source: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${source}: [${url}] is not a URL (expected e.g. http://shard-0:9300)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`${source}: [${url}] must use http or https`);
}

/**
 * Expands FOLIO_NODE_URL_TEMPLATE for shard ordinals 0..count-1: `{i}` becomes the ordinal and
 * `{namespace}` the namespace. @throws Error when the template lacks `{i}`, has an unknown
 * placeholder, or needs a namespace that is missing
 * @example expandNodeUrlTemplate('http://shard-{i}.shard.{namespace}.svc.cluster.local:9300', 2, 'search')
 * // ['http://shard-0.shard.search.svc.cluster.local:9300', 'http://shard-1.shard.search.svc.cluster.local:9300']
 */
export function expandNodeUrlTemplate(template: string, count: number, namespace: string | undefined): string[] {
  if (!template.includes('{i}')) throw new Error(`FOLIO_NODE_URL_TEMPLATE must contain {i} (the shard-node ordinal), got [${template}]`);
  for (const ph of template.match(/\{[^{}]*\}/g) ?? []) {
    if (!TEMPLATE_PLACEHOLDERS.has(ph)) throw new Error(`FOLIO_NODE_URL_TEMPLATE: unknown placeholder ${ph} (only {i} and {namespace})`);
  }
  if (template.includes('{namespace}') && namespace === undefined) {
    throw new Error(
      'FOLIO_NODE_URL_TEMPLATE uses {namespace} but FOLIO_NAMESPACE is unset (in Kubernetes, set it from the downward API: fieldRef metadata.namespace)',
    );
  }
  return Array.from({ length: count }, (_, i) =>
    template
      .replaceAll('{i}', String(i))
      .replaceAll('{namespace}', namespace ?? '')
      .replace(/\/+$/, ''),
  );
}

/**
 * The ordered shard-node list: FOLIO_NODES (comma-separated), or FOLIO_NODE_COUNT +
 * FOLIO_NODE_URL_TEMPLATE expanded by {@link expandNodeUrlTemplate} (Kubernetes StatefulSet pod
 * names), or `http://127.0.0.1:9300` when neither is set. @throws Error for a bad combination or value
 */
export function resolveNodeList(env: NodeJS.ProcessEnv): string[] {
  const list = envStr(env, 'FOLIO_NODES', '');
  const countRaw = envStr(env, 'FOLIO_NODE_COUNT', '');
  const template = envStr(env, 'FOLIO_NODE_URL_TEMPLATE', '');
  const namespaceRaw = envStr(env, 'FOLIO_NAMESPACE', '');
  const namespace = namespaceRaw === '' ? undefined : namespaceRaw;
  if (list !== '' && (countRaw !== '' || template !== '')) {
    throw new Error('set either FOLIO_NODES or FOLIO_NODE_COUNT + FOLIO_NODE_URL_TEMPLATE, not both');
  }
  let nodes: string[];
  if (countRaw !== '' || template !== '') {
    if (countRaw === '') throw new Error('FOLIO_NODE_URL_TEMPLATE is set but FOLIO_NODE_COUNT is not');
    if (template === '') throw new Error('FOLIO_NODE_COUNT is set but FOLIO_NODE_URL_TEMPLATE is not');
    const count = envInt(env, 'FOLIO_NODE_COUNT', 0);
    if (count < 1) throw new Error(`FOLIO_NODE_COUNT must be at least 1, got [${countRaw}]`);
    nodes = expandNodeUrlTemplate(template, count, namespace);
    for (const url of nodes) checkNodeUrl(url, 'FOLIO_NODE_URL_TEMPLATE');
  } else {
    nodes = (list === '' ? 'http://127.0.0.1:9300' : list)
      .split(',')
      .map((s) => s.trim().replace(/\/+$/, ''))
      .filter((s) => s !== '');
    if (nodes.length === 0) throw new Error('FOLIO_NODES must name at least one shard node');
    for (const url of nodes) checkNodeUrl(url, 'FOLIO_NODES');
  }
  return nodes;
}
