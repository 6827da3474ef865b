/**
 * Store selection from the environment (docs/cluster-state.md, "Selecting the store"):
 * `FOLIO_ETCD` set → {@link EtcdStore} on those endpoints (a real etcd cluster, or the served
 * embedded store of `state-store/main.ts`, which speaks the same gateway); unset → an
 * {@link EmbeddedStore} in the directory the caller names, for a process that owns the state alone.
 * @example
 * const store = await openStateStore(process.env, { embeddedDir: join(dataDir, 'cluster-state') });
 */
import { EmbeddedStore } from './embedded-store.ts';
import { EtcdStore } from './etcd-store.ts';
import type { StateStore } from './types.ts';

/** Options of {@link openStateStore}. */
export interface OpenStateStoreOptions {
  /** Directory of the embedded store when `FOLIO_ETCD` is unset; without it, `FOLIO_ETCD` is required. */
  embeddedDir?: string;
}

/**
 * Parses `FOLIO_ETCD`: comma-separated client URLs `http(s)://host:port` (spaces and empty items
 * ignored, duplicates dropped), as etcd's `--endpoints`. Returns their origins.
 * @throws Error naming the bad item (a path, query, credentials, another scheme, or no port)
 * @see https://etcd.io/docs/v3.4/op-guide/configuration/#--advertise-client-urls
 */
export function parseEtcdEndpoints(value: string): string[] {
  const out: string[] = [];
  for (const raw of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`FOLIO_ETCD: [${raw}] is not a URL (expected http://host:port)`);
    }
    if (
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.port === '' ||
      url.username ||
      url.password ||
      url.search ||
      url.hash ||
      (url.pathname !== '/' && url.pathname !== '')
    ) {
      throw new Error(`FOLIO_ETCD: [${raw}] must be http(s)://host:port with nothing after the port`);
    }
    if (!out.includes(url.origin)) out.push(url.origin);
  }
  if (out.length === 0) throw new Error('FOLIO_ETCD: no endpoint given (expected http://host:port[,http://host:port…])');
  return out;
}

/** The endpoints `FOLIO_ETCD` names, or undefined when it is unset or blank. Throws as {@link parseEtcdEndpoints}. */
export function etcdEndpointsOf(env: NodeJS.ProcessEnv): string[] | undefined {
  const raw = env.FOLIO_ETCD;
  return raw === undefined || raw.trim() === '' ? undefined : parseEtcdEndpoints(raw);
}

/**
 * Opens the state store the environment selects (see the module comment). An `EtcdStore` connects
 * lazily (its first call fails `unavailable` if no endpoint answers); an `EmbeddedStore` opens its
 * directory now and throws `locked` or `corrupt`.
 * @throws Error when `FOLIO_ETCD` is malformed, or unset without `embeddedDir`
 */
export async function openStateStore(env: NodeJS.ProcessEnv = process.env, options: OpenStateStoreOptions = {}): Promise<StateStore> {
  const endpoints = etcdEndpointsOf(env);
  if (endpoints) return new EtcdStore({ endpoints });
  if (options.embeddedDir === undefined) throw new Error('FOLIO_ETCD is not set: give the etcd client URLs (http://host:port, comma-separated)');
  return EmbeddedStore.open({ dir: options.embeddedDir });
}
