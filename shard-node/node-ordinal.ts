/**
 * This shard node's ordinal in FOLIO_NODES, as the coordinators first named it, and the guard
 * that keeps it: shard copies are named by ordinal, so a coordinator that addresses this node by
 * another ordinal than before would make it drop its copies. The role ES's `NodeMetadata` plays
 * when it refuses to start on a data path written by another node.
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/env/NodeMetadata.java
 */
import { EsError } from '../protocol/errors.ts';

/** The ordinal a node holds its copies by, first set by recovery or by the first coordinator that names it. */
export class NodeOrdinal {
  readonly nodeId: string;
  /** This node's ordinal in FOLIO_NODES, as the coordinators first named it (null: not yet). */
  value: number | null = null;

  constructor(nodeId: string) {
    this.nodeId = nodeId;
  }

  /** Takes `ordinal` (read back from persisted metadata at recovery) unless one is held already. */
  adopt(ordinal: number | null): void {
    this.value ??= ordinal;
  }

  /**
   * Guards the data against a reordered FOLIO_NODES: takes `ordinal` when none is held, else
   * refuses a different one (undefined: the request names none, nothing to check).
   * @throws EsError 409 `illegal_state_exception` on a different ordinal than the one this node holds its copies by.
   */
  check(ordinal: number | undefined): void {
    if (ordinal === undefined) return;
    this.value ??= ordinal;
    if (this.value !== ordinal) {
      throw new EsError(
        409,
        'illegal_state_exception',
        `node [${this.nodeId}] holds its copies as FOLIO_NODES[${this.value}] but was addressed as FOLIO_NODES[${ordinal}]: the node list must keep its order`,
      );
    }
  }
}
