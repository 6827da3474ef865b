/**
 * Shard-node apps served in this process on loopback ports, for the coordinator's unit tests that
 * want real HTTP between the coordinator and its shard nodes without starting processes.
 */
import { serve, type ServerType } from '@hono/node-server';
import { createLogger } from '../../shared/logger.ts';
import { createShardNodeApp } from '../../shard-node/app.ts';
import { loadShardNodeConfig } from '../../shard-node/config.ts';
import { IndexRegistry } from '../../shard-node/index-registry.ts';

/** The shard nodes a test started: `start(i)` serves node `node-<i>`, `close()` stops them all. */
export class InProcessShardNodes {
  private readonly registries: IndexRegistry[] = [];
  private readonly servers: ServerType[] = [];

  /**
   * Serves a shard node (`FOLIO_NODE_ID=node-<i>`, in memory, no cluster secret) on a free
   * 127.0.0.1 port. @returns its base URL, e.g. `http://127.0.0.1:40123`
   */
  start(i: number): Promise<string> {
    const config = loadShardNodeConfig({ FOLIO_NODE_ID: `node-${i}`, FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true' });
    const registry = new IndexRegistry(config.nodeId);
    this.registries.push(registry);
    const app = createShardNodeApp(config, registry, createLogger('test', 'silent', {}));
    return new Promise((resolve) => {
      this.servers.push(serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(`http://127.0.0.1:${info.port}`)));
    });
  }

  /** Stops every server and closes every registry. */
  async close(): Promise<void> {
    for (const s of this.servers) s.close();
    await Promise.all(this.registries.map((r) => r.close()));
  }
}
