/**
 * A shard node's membership in the cluster state: while it serves, the node keeps the key
 * `folio/nodes/<node id>` (shared/cluster-state/keys.ts `nodeKey`) attached to a lease of its own
 * ({@link NODE_LEASE_TTL_SECONDS}), renewed by a `LeaseKeeper`. The key is deleted by the store when
 * the lease expires (the process died, hangs, or cannot reach the store) and at once when the node
 * stops ({@link NodeMembership.stop} revokes the lease), and the cluster manager takes a node whose
 * key is gone as departed (coordinator/cluster/copy-maintenance.ts): it promotes the replicas of the
 * primaries it held. A node that loses its lease registers again with a new one as soon as the
 * store answers. Safety does not rest on the lease (a paused node can outlive it): every copy still
 * refuses ops from an older primary term.
 * @see docs/cluster-state.md ("Node membership")
 * @see https://etcd.io/docs/v3.4/learning/api/#lease-api
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-fault-detection.html
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { nodeKey } from '../shared/cluster-state/keys.ts';
import type { Logger } from '../shared/logger.ts';
import { LeaseKeeper } from '../shared/state-store/lease-keeper.ts';
import type { StateStore } from '../shared/state-store/types.ts';

/**
 * TTL (s) of a node's lease: how long a node that died without a word (SIGKILL, a hang, a cut link
 * to the store) keeps its membership. ES removes a node after 3 failed follower checks 1 s apart
 * (`cluster.fault_detection.follower_check.*`); a 3 s lease is renewed every second.
 */
export const NODE_LEASE_TTL_SECONDS = 3;
/** Pause (ms) before registering again after the store failed or the lease was lost. */
const RETRY_MS = 500;

/** The value of a node's membership key. */
export interface NodeRegistration {
  nodeId: string;
  /** Epoch ms of this registration. */
  registeredAt: number;
}

/** See the module comment. */
export class NodeMembership {
  private readonly store: StateStore;
  private readonly nodeId: string;
  private readonly ttlSeconds: number;
  private readonly log: Logger | undefined;
  private readonly stopping = new AbortController();
  private keeper: LeaseKeeper | null = null;
  private running: Promise<void> = Promise.resolve();
  private registeredFlag = false;

  constructor(store: StateStore, nodeId: string, log?: Logger, ttlSeconds = NODE_LEASE_TTL_SECONDS) {
    this.store = store;
    this.nodeId = nodeId;
    this.ttlSeconds = ttlSeconds;
    this.log = log;
  }

  /** Whether the node's key is in the store now, as far as this process knows. */
  get registered(): boolean {
    return this.registeredFlag;
  }

  /** Registers, in the background, and keeps the registration until {@link stop}. */
  start(): void {
    this.running = this.loop();
  }

  /** Leaves the cluster: stops renewing and revokes the lease, so the key is deleted now. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.registeredFlag = false;
    await this.keeper?.revoke().catch((err: Error) => this.log?.warn({ err: err.message }, 'node lease not revoked; it expires by itself'));
    await this.running;
  }

  private async loop(): Promise<void> {
    const signal = this.stopping.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const lease = await this.store.grantLease(this.ttlSeconds);
        const keeper = new LeaseKeeper(this.store, lease);
        this.keeper = keeper;
        const value: NodeRegistration = { nodeId: this.nodeId, registeredAt: Date.now() };
        await this.store.txn({ compare: [], ops: [{ op: 'put', key: nodeKey(this.nodeId), value: JSON.stringify(value), lease: lease.id }] });
        if (signal.aborted) return; // stop() revokes the lease
        this.registeredFlag = true;
        failures = 0;
        this.log?.info({ key: nodeKey(this.nodeId), ttlSeconds: this.ttlSeconds }, 'node registered in the cluster state');
        const why = await Promise.race([keeper.lost, new Promise<null>((resolve) => signal.addEventListener('abort', () => resolve(null), { once: true }))]);
        this.registeredFlag = false;
        if (why) this.log?.warn({ err: why.message }, 'node lease lost; registering again');
      } catch (err) {
        this.registeredFlag = false;
        this.keeper?.stop();
        if (signal.aborted) return;
        if (failures++ === 0) this.log?.warn({ err: (err as Error).message }, 'node registration failed; retrying');
      }
      await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
    }
  }
}
