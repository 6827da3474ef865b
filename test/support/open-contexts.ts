/**
 * Open search contexts (point in time, scroll) on each shard node, read from its
 * `folio_search_contexts_open{kind}` gauge: what `search.max_open_pit_context` and
 * `search.max_open_scroll_context` count, per node (as ES and OpenSearch count them).
 */
import { http } from '../e2e/http.ts';
import { sampleValue } from './prom-text.ts';

/**
 * `kind` contexts open on each node of `nodeUrls`, in that order.
 * @throws Error when a node's scrape lacks the gauge
 */
export async function openContextsByNode(nodeUrls: readonly string[], kind: 'pit' | 'scroll'): Promise<number[]> {
  return Promise.all(
    nodeUrls.map(async (node) => {
      const v = sampleValue((await http<string>(node, 'GET', '/metrics')).body, 'folio_search_contexts_open', `kind="${kind}"`);
      if (v === undefined) throw new Error(`no folio_search_contexts_open{kind="${kind}"} on ${node}`);
      return v;
    }),
  );
}
