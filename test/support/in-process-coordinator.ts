/**
 * A whole Folio stack in one process for the coordinator's unit tests: shard nodes on loopback
 * ports ({@link InProcessShardNodes}), a cluster state on an embedded store, and the coordinator
 * app called with `app.request` (no coordinator socket).
 * @example
 * const stack = await startInProcessStack(2);
 * const res = await stack.call('GET', '/_cat/indices?format=json');
 * await stack.close();
 */
import type { Hono } from 'hono';
import { createCoordinatorApp } from '../../coordinator/app.ts';
import { ClusterView } from '../../coordinator/cluster/cluster-view.ts';
import { loadCoordinatorConfig } from '../../coordinator/config.ts';
import { ShardClient } from '../../coordinator/transport/shard-client.ts';
import { createLogger } from '../../shared/logger.ts';
import { openTestClusterState, type TestClusterState } from './cluster-state.ts';
import { InProcessShardNodes } from './in-process-shard-nodes.ts';

/** A reply: status, text and parsed JSON (undefined for an empty body). */
export interface StackReply {
  status: number;
  text: string;
  json: any;
}

/** A running in-process stack. */
export interface InProcessStack {
  app: Hono;
  client: ShardClient;
  /** Calls the coordinator; an object body is sent as JSON, a string as is (`contentType` default JSON). */
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<StackReply>;
  close(): Promise<void>;
}

/** Starts `nodes` shard nodes and a coordinator over them (`env` adds coordinator settings). */
export async function startInProcessStack(nodes: number, env: Record<string, string> = {}): Promise<InProcessStack> {
  const shardNodes = new InProcessShardNodes();
  const urls: string[] = [];
  for (let i = 0; i < nodes; i++) urls.push(await shardNodes.start(i));
  const config = loadCoordinatorConfig({ FOLIO_NODES: urls.join(','), FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true', ...env });
  const client = new ShardClient(urls, { connectionsPerNode: 4, maxResponseBytes: 64 << 20 });
  let state: TestClusterState | undefined;
  try {
    state = await openTestClusterState();
    const view = new ClusterView(client, 5_000, state.access);
    const app = createCoordinatorApp({ config, view, client, log: createLogger('test', 'silent', {}), clusterUuid: 'in-process-stack' });
    const opened = state;
    return {
      app,
      client,
      async call(method, path, body, contentType = 'application/json') {
        const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
        const res = await app.request(path, { method, headers: text === undefined ? {} : { 'content-type': contentType }, body: text });
        const out = await res.text();
        return { status: res.status, text: out, json: out === '' ? undefined : JSON.parse(out) };
      },
      async close() {
        await client.close();
        await opened.close();
        await shardNodes.close();
      },
    };
  } catch (err) {
    await client.close();
    await state?.close();
    await shardNodes.close();
    throw err;
  }
}
