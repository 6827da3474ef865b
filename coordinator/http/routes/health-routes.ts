/**
 * Kubernetes-style probes of the coordinator. `GET /livez`: the process serves HTTP. `GET /readyz`:
 * the config is loaded and the shard-node pools exist (both hold once the app is built) and the
 * process is not draining. Readiness never depends on the shard nodes being up: one bad shard node
 * must not take every coordinator out of its Service (a search reports it in `_shards.failures`).
 * @see https://kubernetes.io/docs/reference/using-api/health-checks/
 */
import type { Hono } from 'hono';

/** Mutable readiness of one coordinator process; coordinator/main.ts sets `draining` on SIGTERM. */
export interface CoordinatorReadiness {
  /** True from SIGTERM on: `/readyz` answers 503 so load balancers stop routing here. */
  draining: boolean;
}

/** The process-wide readiness that {@link registerHealthRoutes} reads by default. */
export const coordinatorReadiness: CoordinatorReadiness = { draining: false };

/** What the probes report: the number of shard-node pools (from the ordered node list). */
export interface HealthDeps {
  nodeCount: number;
  /** Defaults to {@link coordinatorReadiness}; tests pass their own. */
  readiness?: CoordinatorReadiness;
}

/**
 * Registers `GET /livez` and `GET /readyz` (HEAD too, by hono). Register before the index routes,
 * whose `/:index` would match these paths.
 * @example registerHealthRoutes(app, { nodeCount: config.nodes.length })
 */
export function registerHealthRoutes(app: Hono, deps: HealthDeps): void {
  const readiness = deps.readiness ?? coordinatorReadiness;
  app.get('/livez', (c) => c.json({ status: 'alive' }));
  app.get('/readyz', (c) => {
    if (readiness.draining) return c.json({ status: 'draining' }, 503);
    if (deps.nodeCount < 1) return c.json({ status: 'no shard nodes configured' }, 503);
    return c.json({ status: 'ready', nodes: deps.nodeCount });
  });
}
