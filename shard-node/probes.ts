/**
 * Kubernetes-style probes of a shard node. `GET /livez`: the process serves HTTP. `GET /readyz`: 200
 * only when the node is neither recovering its data nor draining and no copy here has failed (a
 * translog commit failed: issue 10, scenario 6); else 503 with the reason.
 * The older `/_internal/v1/health` (compose health checks) is unchanged and only says "alive".
 * @see https://kubernetes.io/docs/reference/using-api/health-checks/
 */
import type { Hono } from 'hono';

/**
 * Mutable readiness of one shard-node process. shard-node/main.ts flips the flags: `recovering`
 * around the recovery of FOLIO_DATA, `draining` from SIGTERM on.
 */
export interface ShardReadiness {
  /** True while the durable state is being recovered (not every acknowledged write is searchable yet). */
  recovering: boolean;
  /** True from SIGTERM on: the coordinator should stop sending requests here. */
  draining: boolean;
  /** The failed copies here (`index/shard`), when the node has a registry to ask. */
  failedCopies?: () => string[];
}

/** The process-wide readiness that {@link registerShardProbes} reads by default. */
export const shardReadiness: ShardReadiness = { recovering: false, draining: false };

/** Why the node is not ready, or undefined when it is. */
export function notReadyReason(readiness: ShardReadiness): 'recovering' | 'draining' | 'shard_failed' | undefined {
  if (readiness.draining) return 'draining';
  if (readiness.recovering) return 'recovering';
  if ((readiness.failedCopies?.().length ?? 0) > 0) return 'shard_failed';
  return undefined;
}

/**
 * Registers `GET /livez` and `GET /readyz` (HEAD too, by hono); both echo the node id.
 * @example registerShardProbes(app, config.nodeId)
 */
export function registerShardProbes(app: Hono, node: string, readiness: ShardReadiness = shardReadiness): void {
  app.get('/livez', (c) => c.json({ status: 'alive', node }));
  app.get('/readyz', (c) => {
    const reason = notReadyReason(readiness);
    if (reason === undefined) return c.json({ status: 'ready', node });
    return c.json({ status: reason, node, ...(reason === 'shard_failed' ? { failed: readiness.failedCopies?.() } : {}) }, 503);
  });
}
