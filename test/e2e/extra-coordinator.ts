/**
 * Starts one more coordinator process against the shared e2e cluster's shard nodes, with extra
 * environment (limits, timeouts), and waits until `GET /` answers. Coordinators are stateless, so
 * any number can run beside the one the compose file declares.
 */
import { spawn } from 'node:child_process';
import { freePort, REPO_ROOT } from '../../scripts/local-services.ts';
import { http } from './http.ts';

/** A running extra coordinator: its base URL and a stop function (SIGTERM). */
export interface ExtraCoordinator {
  url: string;
  stop(): void;
}

/** How to reach a coordinator that `GET /` over plain HTTP cannot check (authentication, TLS). */
export interface ExtraCoordinatorOptions {
  /** `https` when the env sets FOLIO_TLS_CERT/FOLIO_TLS_KEY (default `http`). */
  scheme?: 'http' | 'https';
  /** Resolves true once the coordinator answers (default: `GET /` over plain HTTP answers 200). */
  ready?: (url: string) => Promise<boolean>;
}

/** The cluster a coordinator joins: its shard nodes (FOLIO_NODES order), secret, and cluster-state store. */
export interface ClusterTarget {
  nodes: readonly string[];
  clusterSecret: string;
  /** The etcd client URL of the cluster's state store (FOLIO_ETCD). */
  etcd: string;
}

/**
 * Spawns `node coordinator/main.ts` on a free loopback port with `FOLIO_NODES` = `cluster.nodes` and
 * `FOLIO_ETCD` = `cluster.etcd` (a coordinator of the same cluster: same state, same election).
 * @throws Error when it does not answer within 10 s.
 */
export async function startExtraCoordinator(
  cluster: ClusterTarget,
  env: Record<string, string> = {},
  opts: ExtraCoordinatorOptions = {},
): Promise<ExtraCoordinator> {
  const { nodes, clusterSecret } = cluster;
  const port = await freePort();
  const url = `${opts.scheme ?? 'http'}://127.0.0.1:${port}`;
  const ready =
    opts.ready ??
    ((u: string) =>
      http(u, 'GET', '/').then(
        (r) => r.status === 200,
        () => false,
      ));
  const child = spawn(process.execPath, ['coordinator/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      FOLIO_HOST: '127.0.0.1',
      FOLIO_PORT: String(port),
      FOLIO_NODES: nodes.join(','),
      FOLIO_LOG_LEVEL: 'warn',
      FOLIO_CLUSTER_SECRET: clusterSecret,
      FOLIO_ETCD: cluster.etcd,
      ...env,
    },
    stdio: 'ignore',
  });
  const stop = (): void => void child.kill('SIGTERM');
  for (let i = 0; i < 100; i++) {
    if (await ready(url).catch(() => false)) return { url, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  stop();
  throw new Error('the extra coordinator did not start');
}
