/**
 * What the coordinator does about shard copies after each background reload of the cluster view
 * (ES's master reacting to a changed cluster state): it promotes an in-sync replica when a
 * primary's node has left the cluster (its membership lease ended: shard-node/node-membership.ts;
 * the maintainer reacts to the store's watch at once) or has missed
 * {@link PROMOTE_AFTER_MISSED_LOADS} loads in a row (ES's master removes a node its follower checks
 * cannot reach, whatever the node's own view), and it recovers every
 * out-of-sync copy whose node answers and hosts it from its primary (coordinator/cluster/recovery.ts), at
 * most {@link MAX_CONCURRENT_RECOVERIES} at a time (ES
 * `cluster.routing.allocation.node_concurrent_recoveries`, default 2), retrying a failed one after
 * {@link RECOVERY_RETRY_MS}. Only the elected cluster manager acts (cluster-manager.ts hands it the
 * election's guard with {@link CopyMaintainer.lead}), and every decision it stores carries that
 * guard, so two coordinators never promote or recover the same copy at once (issue 10, scenario 4).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-cluster.html#cluster-shard-allocation-settings
 */
import type { ClusterStateCache } from '../../shared/cluster-state/cluster-state-cache.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Compare } from '../../shared/state-store/types.ts';
import type { ClusterView } from './cluster-view.ts';
import type { IndexView } from './index-view.ts';
import { recoverCopy, type RecoveryDeps } from './recovery.ts';

/** Consecutive view loads a primary's node must miss before a replica is promoted (loads run every second: 1–2 s for a dead node). */
export const PROMOTE_AFTER_MISSED_LOADS = 2;
/** Recoveries this coordinator runs at once. */
export const MAX_CONCURRENT_RECOVERIES = 2;
/** Delay (ms) before a failed promotion or recovery of the same copy is tried again. */
export const RECOVERY_RETRY_MS = 2_000;

/**
 * One thing to do about a shard's copies: promote the replica on `node`, recover the copy on
 * `node`, or take the failed in-sync replica on `node` out of the in-sync set (`fail`).
 */
export interface CopyAction {
  kind: 'promote' | 'recover' | 'fail';
  index: string;
  shard: number;
  node: number;
}

/**
 * The promotions and recoveries the views call for (pure). `missedLoads[node]`: consecutive loads
 * the node did not answer (0: it answered the last one); `departed[node]`: the node's membership key
 * is gone from the store (ClusterView.departedNodes). A node is down when it departed or missed
 * {@link PROMOTE_AFTER_MISSED_LOADS} loads, up when it answered the last load and has not departed.
 * A shard whose primary's node is down
 * promotes its first in-sync replica whose node answers and hosts it (none: the shard stays red),
 * and so does a shard whose primary's node reports that copy failed (its translog commit failed,
 * issue 10 scenario 6); an in-sync replica reported failed, by its node or by the primary whose
 * forwarded write it failed, leaves the in-sync set (ES: the master removes a failed shard's
 * allocation id, whoever asked); a shard whose primary answers and hosts its copy recovers
 * each out-of-sync replica whose node answers and reports the copy, hosted or failed (a failed one
 * is emptied first).
 */
export function plannedActions(views: readonly IndexView[], missedLoads: readonly number[], departed: readonly boolean[] = []): CopyAction[] {
  const up = (node: number) => (missedLoads[node] ?? 0) === 0 && departed[node] !== true;
  const down = (node: number) => (missedLoads[node] ?? 0) >= PROMOTE_AFTER_MISSED_LOADS || departed[node] === true;
  const out: CopyAction[] = [];
  for (const v of views) {
    if (!v.metadata.shardCopies) continue;
    v.copies.forEach((copies, shard) => {
      const primary = copies.find((c) => c.primary);
      if (!primary) return;
      const index = v.metadata.name;
      if (down(primary.node) || (primary.failed === true && up(primary.node))) {
        const heir = copies.find((c) => !c.primary && c.inSync && c.hosted && !c.failed && up(c.node));
        if (heir) out.push({ kind: 'promote', index, shard, node: heir.node });
        return;
      }
      // A replica failed (its own report, wherever its node), or one the primary's forwarded write failed on.
      for (const c of copies)
        if (!c.primary && c.inSync && (c.failed === true || c.pendingFailure === true)) out.push({ kind: 'fail', index, shard, node: c.node });
      if (!up(primary.node) || !primary.hosted) return;
      for (const c of copies)
        if (!c.primary && !c.inSync && (c.hosted || c.failed === true) && up(c.node)) out.push({ kind: 'recover', index, shard, node: c.node });
    });
  }
  return out;
}

/** Runs the {@link plannedActions} of each reload in the background, each copy once at a time. */
export class CopyMaintainer {
  private readonly deps: RecoveryDeps;
  private readonly log: Logger | undefined;
  /** Actions in progress, by key. */
  private readonly running = new Set<string>();
  /** Failed actions, by key, with the time (epoch ms) they may be tried again. */
  private readonly backoff = new Map<string, number>();
  private recoveries = 0;
  /** The cluster manager's election guard while this coordinator leads; null: it does not act. */
  private guard: Compare | null = null;
  /** Recoveries and promotions finished here (for tests and logs). */
  readonly finished: { recoveries: number; promotions: number } = { recoveries: 0, promotions: 0 };

  constructor(deps: RecoveryDeps, log?: Logger) {
    this.deps = deps;
    this.log = log;
  }

  /**
   * Hooks the maintainer into the view's reloads ({@link ClusterView.onLoaded}) and into the store's
   * changes: a node that departs (its membership key deleted) is acted on at once, not at the next reload.
   */
  attach(view: ClusterView, cache?: ClusterStateCache): void {
    view.onLoaded = (missed, departed) => this.tick(missed, departed);
    let before = '';
    cache?.onChange(() => {
      const departed = view.departedNodes();
      const now = departed.join();
      if (now === before) return;
      before = now;
      if (departed.includes(true)) this.tick(view.missedLoadCounts(), departed);
    });
  }

  /**
   * Makes this maintainer act (with `guard`, the cluster manager's election guard, in every decision
   * it stores) or stop acting (null). Actions already running finish; their stored decisions fail
   * once the guard no longer holds.
   */
  lead(guard: Compare | null): void {
    this.guard = guard;
  }

  /** Starts the actions the current views call for that are neither running nor backing off (only while leading). */
  tick(missedLoads: readonly number[], departed: readonly boolean[] = []): void {
    if (this.guard === null) return;
    const view = this.deps.view;
    const views = view
      .names()
      .map((n) => view.peek(n)!)
      .filter((v) => v !== undefined);
    const now = Date.now();
    for (const action of plannedActions(views, missedLoads, departed)) {
      const key = `${action.kind}/${action.index}/${action.shard}/${action.node}`;
      if (this.running.has(key) || (this.backoff.get(key) ?? 0) > now) continue;
      if (action.kind === 'recover' && this.recoveries >= MAX_CONCURRENT_RECOVERIES) continue;
      this.running.add(key);
      if (action.kind === 'recover') this.recoveries++;
      void this.run(action)
        .then(() => this.backoff.delete(key))
        .catch((err: Error) => {
          this.backoff.set(key, Date.now() + RECOVERY_RETRY_MS);
          this.log?.warn(
            { err: err.message, ...action },
            `${{ promote: 'promotion', recover: 'recovery', fail: 'failing the copy' }[action.kind]} failed; retried later`,
          );
        })
        .finally(() => {
          this.running.delete(key);
          if (action.kind === 'recover') this.recoveries--;
        });
    }
  }

  private async run(action: CopyAction): Promise<void> {
    const guard = this.guard;
    if (guard === null) return;
    const view = await this.deps.view.get(action.index);
    if (action.kind === 'promote') {
      const next = await this.deps.view.promote(action.index, action.shard, action.node, guard);
      this.finished.promotions++;
      this.log?.warn({ ...action, term: next.metadata.primaryTerms?.[action.shard] }, 'replica promoted to primary');
      return;
    }
    if (action.kind === 'fail') {
      await this.deps.view.markOutOfSync(
        action.index,
        action.shard,
        [action.node],
        undefined,
        'reported failed by its node, or by its primary after a forwarded write failed on it',
      );
      return;
    }
    const outcome = await recoverCopy({ ...this.deps, guard }, view, action.shard, action.node);
    this.finished.recoveries++;
    this.log?.info({ ...outcome }, 'shard copy recovered');
  }
}
