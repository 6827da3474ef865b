/**
 * Keeps a lease alive: renews it every third of its TTL, as etcd's clients do, and reports when it
 * is lost. A process that holds a lease for its liveness (a node's membership key, an election
 * candidate) must stop acting on it once `lost` settles: etcd has deleted, or may soon delete,
 * every key attached to it.
 * @see https://etcd.io/docs/v3.4/learning/api/#lease-api
 * @see https://etcd.io/docs/v3.4/learning/why/#notes-on-the-usage-of-lock-and-lease (a lease is not mutual exclusion)
 * @example
 * const lease = await store.grantLease(5);
 * const keeper = new LeaseKeeper(store, lease);
 * keeper.lost.then((why) => log.error({ err: why }, 'lease lost: leaving the cluster'));
 */
import { isStateStoreError, StateStoreError } from './errors.ts';
import type { Lease, StateStore } from './types.ts';

/** Renewals per TTL (etcd's clients renew every TTL/3). */
const RENEWALS_PER_TTL = 3;

/** See the module comment. */
export class LeaseKeeper {
  readonly lease: Lease;
  /**
   * Settles with why the lease is lost: `lease_not_found` (etcd ended it) or `unavailable` (no
   * renewal succeeded for a whole TTL, so it may have expired). Never settles after {@link stop}.
   */
  readonly lost: Promise<StateStoreError>;
  private readonly store: StateStore;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** `performance.now()` of the last renewal that etcd confirmed (or of the grant). */
  private renewedAtMs = performance.now();
  private reportLost!: (err: StateStoreError) => void;

  constructor(store: StateStore, lease: Lease) {
    this.store = store;
    this.lease = lease;
    this.lost = new Promise((resolve) => (this.reportLost = resolve));
    this.schedule();
  }

  /** Stops renewing (the lease then expires after its TTL). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Stops renewing and revokes the lease, deleting its keys now. An already-ended lease is fine. */
  async revoke(): Promise<void> {
    this.stop();
    try {
      await this.store.revokeLease(this.lease.id);
    } catch (err) {
      if (!isStateStoreError(err, 'lease_not_found')) throw err;
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.renew(), (this.lease.ttlSeconds * 1000) / RENEWALS_PER_TTL);
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    try {
      await this.store.keepAliveLease(this.lease.id);
      this.renewedAtMs = performance.now();
    } catch (err) {
      if (this.stopped) return;
      if (isStateStoreError(err, 'lease_not_found')) return this.fail(err);
      if (performance.now() - this.renewedAtMs >= this.lease.ttlSeconds * 1000) {
        return this.fail(
          new StateStoreError('unavailable', `lease ${this.lease.id} not renewed for its whole TTL (${this.lease.ttlSeconds} s): ${(err as Error).message}`, {
            cause: err,
          }),
        );
      }
    }
    this.schedule();
  }

  private fail(err: StateStoreError): void {
    this.stop();
    this.reportLost(err);
  }
}
