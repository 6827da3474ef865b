/**
 * The compose file's `etcd` service, run the way `npm start` and the end-to-end tests run it
 * (scripts/local-services.ts): started from docker-compose.yml, healthy by its own (translated)
 * health check, and answering a compare-and-swap through `EtcdStore` at the URL the other services
 * get as FOLIO_ETCD. Once with etcd 3.4.23 (/usr/bin/etcd), once with the served embedded store that
 * stands in for it when etcd is not installed.
 */
import { describe, expect, it } from 'vitest';
import { translateServices, readComposeFile } from '../scripts/local-services.ts';
import { ETCD_BIN } from '../scripts/local-etcd.ts';
import { EtcdStore } from '../shared/state-store/etcd-store.ts';
import { startComposeCluster } from './support/compose-cluster.ts';

const variants: [string, string | null][] = [
  ['etcd 3.4.23 (/usr/bin/etcd)', ETCD_BIN],
  ['the served embedded store (no etcd binary)', null],
];

describe('the compose etcd service, run locally', () => {
  for (const [what, etcdBinary] of variants) {
    it(`starts as ${what}, passes its health check, and answers a CAS through EtcdStore`, async () => {
      const cluster = await startComposeCluster({ services: ['etcd'], etcdBinary });
      const store = new EtcdStore({ endpoints: [cluster.urls.etcd] });
      try {
        const health = await fetch(`${cluster.urls.etcd}/health`);
        expect([health.status, await health.json()]).toEqual([200, { health: 'true' }]);
        const created = await store.txn({
          compare: [{ key: 'folio/indices/a', modRevision: 0 }],
          ops: [{ op: 'put', key: 'folio/indices/a', value: 'uuid-1' }],
        });
        expect(created.succeeded).toBe(true);
        // A second create of the same name loses, and sees the winner's value (issue 10's scenario 5).
        const again = await store.txn({ compare: [{ key: 'folio/indices/a', modRevision: 0 }], ops: [{ op: 'put', key: 'folio/indices/a', value: 'uuid-2' }] });
        expect(again.succeeded).toBe(false);
        if (!again.succeeded) expect(again.current.get('folio/indices/a')).toMatchObject({ value: 'uuid-1', modRevision: created.revision });
        expect(cluster.logs('etcd')).toMatch(etcdBinary ? /etcd|raft/i : /state store listening/);
      } finally {
        await store.close();
        await cluster.stop();
      }
    });
  }

  it('gives the Folio services the URL it listens on', () => {
    const compose = readComposeFile();
    const ports = { etcd: 42000, 'shard-0': 42001, 'shard-1': 42002, 'shard-2': 42003, coordinator: 42004 };
    const volumeDirs = { 'etcd-data': '/tmp/e', 'shard-0-data': '/tmp/0', 'shard-1-data': '/tmp/1', 'shard-2-data': '/tmp/2', snapshots: '/tmp/s' };
    const services = translateServices(compose, { ports, volumeDirs, peerPorts: { etcd: 42005 }, etcdBinary: ETCD_BIN });
    const etcd = services.find((s) => s.name === 'etcd')!;
    for (const s of services.filter((x) => x.name !== 'etcd')) expect([s.name, s.env.FOLIO_ETCD]).toEqual([s.name, etcd.url]);
  });
});
