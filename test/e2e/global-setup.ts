/**
 * Starts one real cluster for the end-to-end tests: the services of docker-compose.yml as local
 * processes (coordinator + 3 shard nodes), loaded with the real sample data: `cities` (3 shards),
 * `mails` (3 shards) and `mails-1shard` (the same mails in 1 shard, the ranking reference).
 */
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { cities } from '../../scripts/samples/cities.ts';
import { loadSample } from '../../scripts/samples/load.ts';
import { mails } from '../../scripts/samples/mails.ts';
import { startComposeCluster } from '../support/compose-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    coordinatorUrl: string;
    /** Shard-node base URLs in FOLIO_NODES order. */
    nodeUrls: string[];
    /** FOLIO_CLUSTER_SECRET of this cluster (random per run), for tests that start their own coordinator. */
    clusterSecret: string;
    /** The etcd client URL of the cluster's state store (FOLIO_ETCD), for tests that start their own coordinator. */
    etcdUrl: string;
    /** The shared `snapshots` volume every service has as its FOLIO_PATH_REPO (docker-compose.yml), to inspect snapshot repositories. */
    snapshotsDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const clusterSecret = randomBytes(32).toString('hex');
  const cluster = await startComposeCluster({ env: { FOLIO_LOG_LEVEL: 'warn', FOLIO_CLUSTER_SECRET: clusterSecret } });
  try {
    const url = cluster.coordinatorUrl;
    await Promise.all([loadSample(url, cities), loadSample(url, mails).then(() => loadSample(url, mails, { indexName: 'mails-1shard', shards: 1 }))]);
    process.stdout.write(`e2e cluster ready with samples in ${Date.now() - started} ms at ${url}\n`);
    project.provide('coordinatorUrl', url);
    project.provide('clusterSecret', clusterSecret);
    project.provide('etcdUrl', cluster.urls.etcd);
    project.provide('snapshotsDir', cluster.volumes.snapshots);
    project.provide(
      'nodeUrls',
      ['shard-0', 'shard-1', 'shard-2'].map((s) => cluster.urls[s]),
    );
  } catch (err) {
    for (const s of ['etcd', 'coordinator', 'shard-0', 'shard-1', 'shard-2']) process.stderr.write(`--- ${s}\n${cluster.logs(s).slice(-4000)}\n`);
    await cluster.stop();
    throw err;
  }
  return () => cluster.stop();
}
