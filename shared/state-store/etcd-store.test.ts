import { afterAll, beforeAll } from 'vitest';
import { startEtcdCluster } from '../../test/support/etcd-process.ts';
import type { EtcdCluster } from '../../test/support/etcd-process.ts';
import { EtcdStore } from './etcd-store.ts';
import { describeStateStoreContract } from './state-store.contract.ts';

// One real etcd member (Debian's etcd-server, on free loopback ports) serves the whole contract suite;
// every test uses its own key prefix and its own client.
let cluster: EtcdCluster | undefined;
beforeAll(async () => {
  cluster = await startEtcdCluster(1);
}, 30_000);
afterAll(async () => {
  await cluster?.stop();
});

describeStateStoreContract('EtcdStore (etcd 3.4 via the JSON gateway)', {
  open: () => {
    if (!cluster) return Promise.reject(new Error('etcd did not start'));
    return Promise.resolve(new EtcdStore({ endpoints: cluster.endpoints }));
  },
});
