/**
 * The cluster-manager role (ES's elected master, as far as shard copies go): exactly one coordinator
 * at a time decides promotions and recoveries. Every coordinator campaigns in the store's election
 * (keys.ts {@link CLUSTER_MANAGER_ELECTION_PREFIX}) with a lease of {@link MANAGER_LEASE_TTL_SECONDS};
 * the winner hands the election's guard to the {@link CopyMaintainer}, which puts it in the compare
 * of every decision it stores, so a deposed manager (lease expired while it was paused or cut off)
 * cannot store one. When the leader dies its lease expires and the next candidate takes over within
 * the TTL. A lease alone is not mutual exclusion, hence the guard; shard nodes still fence writes by
 * primary term.
 * @see docs/cluster-state.md
 * @see https://etcd.io/docs/v3.4/learning/why/#notes-on-the-usage-of-lock-and-lease
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-discovery.html
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CLUSTER_MANAGER_ELECTION_PREFIX } from '../../shared/cluster-state/keys.ts';
import type { Logger } from '../../shared/logger.ts';
import { Election, type Leadership } from '../../shared/state-store/election.ts';
import { LeaseKeeper } from '../../shared/state-store/lease-keeper.ts';
import type { StateStore } from '../../shared/state-store/types.ts';
import type { Compare } from '../../shared/state-store/types.ts';

/** TTL (s) of a candidate's lease: how long a dead manager holds the role before another takes over. */
export const MANAGER_LEASE_TTL_SECONDS = 5;
/** Pause (ms) before campaigning again after the store failed. */
const RETRY_MS = 1_000;

/** What the cluster manager does while it leads: the {@link import('./copy-maintenance.ts').CopyMaintainer}. */
export interface ManagerDuties {
  /** Starts acting with the election's guard in every stored decision, or stops (null). */
  lead(guard: Compare | null): void;
}

/** See the module comment. */
export class ClusterManagerRole {
  private readonly store: StateStore;
  private readonly maintainer: ManagerDuties;
  private readonly ttlSeconds: number;
  private readonly name: string;
  private readonly log: Logger | undefined;
  private readonly stopping = new AbortController();
  private running: Promise<void> = Promise.resolve();
  private keeper: LeaseKeeper | null = null;
  private leadership: Leadership | null = null;

  /** `name`: what this coordinator proclaims as leader (its node name and address); `ttlSeconds`: its lease's TTL. */
  constructor(store: StateStore, maintainer: ManagerDuties, name: string, log?: Logger, ttlSeconds = MANAGER_LEASE_TTL_SECONDS) {
    this.store = store;
    this.maintainer = maintainer;
    this.ttlSeconds = ttlSeconds;
    this.name = name;
    this.log = log;
  }

  /** Whether this coordinator holds the role now. */
  get leading(): boolean {
    return this.leadership !== null;
  }

  /** Starts campaigning, in the background, until {@link stop}. */
  start(): void {
    this.running = this.campaignLoop();
  }

  /** Stops campaigning; a leader resigns, so another coordinator takes over at once. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.maintainer.lead(null);
    const leadership = this.leadership;
    this.leadership = null;
    await leadership?.resign().catch(() => undefined);
    await this.keeper?.revoke().catch(() => undefined);
    await this.running;
  }

  private async campaignLoop(): Promise<void> {
    const signal = this.stopping.signal;
    const election = new Election(this.store, CLUSTER_MANAGER_ELECTION_PREFIX);
    while (!signal.aborted) {
      try {
        const lease = await this.store.grantLease(this.ttlSeconds);
        const keeper = new LeaseKeeper(this.store, lease);
        this.keeper = keeper;
        const lost = keeper.lost.then((err) => err);
        const leadership = await election.campaign(lease.id, this.name, signal);
        this.leadership = leadership;
        this.maintainer.lead(leadership.guard);
        this.log?.info({ fencingToken: leadership.fencingToken }, 'elected cluster manager');
        const why = await Promise.race([lost, new Promise<null>((resolve) => signal.addEventListener('abort', () => resolve(null), { once: true }))]);
        this.maintainer.lead(null);
        this.leadership = null;
        if (why) this.log?.warn({ err: why.message }, 'cluster manager lease lost; campaigning again');
      } catch (err) {
        this.maintainer.lead(null);
        this.leadership = null;
        await this.keeper?.revoke().catch(() => undefined);
        if (signal.aborted) return;
        this.log?.warn({ err: (err as Error).message }, 'cluster manager election failed; retrying');
        await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
