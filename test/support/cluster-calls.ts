/**
 * Calls the e2e tests of a cluster of their own (test/support/compose-cluster.ts) share: a shard
 * node's internal API with the cluster secret, a checked `_bulk` through the coordinator, and the
 * coordinator's `shard copy recovered` log entries.
 */
import { request } from 'undici';
import { expect } from 'vitest';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import { http } from '../e2e/http.ts';
import type { ComposeCluster } from './compose-cluster.ts';

/** A shard node's internal call (`/_internal/v1` + `path`, the cluster `secret`): GET without `body`, else POST of its JSON; the JSON reply. */
export async function internalCall<T>(cluster: ComposeCluster, secret: string, service: string, path: string, body?: unknown): Promise<T> {
  const res = await request(`${cluster.urls[service]}/_internal/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { [CLUSTER_SECRET_HEADER]: secret, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.body.json()) as T;
}

/** Bulk-indexes NDJSON `lines` (action and source pairs) through the coordinator and checks that no item failed. */
export async function bulkOk(cluster: ComposeCluster, lines: string[]): Promise<void> {
  const res = await http(cluster.coordinatorUrl, 'POST', '/_bulk', lines.join('\n') + '\n', 'application/x-ndjson');
  expect(res.status).toBe(200);
  expect(res.body.errors).toBe(false);
}

/** The coordinator's `shard copy recovered` log entries so far (its log level must be `info`), as `T`. */
export function coordinatorRecoveries<T>(cluster: ComposeCluster): T[] {
  return cluster
    .logs('coordinator')
    .split('\n')
    .filter((l) => l.includes('"shard copy recovered"'))
    .map((l) => JSON.parse(l) as T);
}
