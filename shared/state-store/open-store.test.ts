import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddedStore } from './embedded-store.ts';
import { EtcdStore } from './etcd-store.ts';
import { etcdEndpointsOf, openStateStore, parseEtcdEndpoints } from './open-store.ts';

describe('openStateStore', () => {
  it('parses FOLIO_ETCD as comma-separated http(s)://host:port origins, dropping blanks and duplicates', () => {
    expect(parseEtcdEndpoints(' http://etcd-0.etcd:2379, http://etcd-1.etcd:2379/,,https://10.0.0.3:2379,http://etcd-0.etcd:2379')).toEqual([
      'http://etcd-0.etcd:2379',
      'http://etcd-1.etcd:2379',
      'https://10.0.0.3:2379',
    ]);
    for (const bad of ['etcd:2379', 'http://etcd', 'http://etcd:2379/v3', 'ftp://etcd:2379', 'http://u:p@etcd:2379', 'http://etcd:2379?x=1', ' , ']) {
      expect(() => parseEtcdEndpoints(bad), bad).toThrow(/FOLIO_ETCD/);
    }
    expect(etcdEndpointsOf({})).toBeUndefined();
    expect(etcdEndpointsOf({ FOLIO_ETCD: '  ' })).toBeUndefined();
  });

  it('selects EtcdStore with FOLIO_ETCD, else the embedded store in the given directory, else fails', async () => {
    const etcd = await openStateStore({ FOLIO_ETCD: 'http://127.0.0.1:1,http://127.0.0.1:2' }, { embeddedDir: '/nonexistent/never-opened' });
    expect(etcd).toBeInstanceOf(EtcdStore);
    expect((etcd as EtcdStore).endpoints).toEqual(['http://127.0.0.1:1', 'http://127.0.0.1:2']);
    await etcd.close();
    const dir = mkdtempSync(join(tmpdir(), 'folio-open-store-'));
    try {
      const embedded = await openStateStore({}, { embeddedDir: dir });
      expect(embedded).toBeInstanceOf(EmbeddedStore);
      await embedded.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await expect(openStateStore({})).rejects.toThrow(/FOLIO_ETCD is not set/);
  });
});
