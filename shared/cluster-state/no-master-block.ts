/**
 * ES's error for a cluster state change that no elected master can publish. Folio raises it when
 * the cluster-state store cannot be reached or a change keeps losing its compare-and-swap.
 */
import { EsError } from '../../protocol/errors.ts';

/**
 * ES's error when no elected master can publish a change: 503 `cluster_block_exception`
 * ("blocked by: [SERVICE_UNAVAILABLE/2/no master];"); `detail` goes to the error's metadata.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-discovery-settings.html (cluster.no_master_block)
 */
export function noMasterBlock(detail: string): EsError {
  return new EsError(503, 'cluster_block_exception', 'blocked by: [SERVICE_UNAVAILABLE/2/no master];', { metadata: { 'folio.detail': detail } });
}
