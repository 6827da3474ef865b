// The shard node's internal API is the RPC table (protocol/rpc.ts): every descriptor bound once,
// at its method and path, by one of the action modules, and no other route under the prefix.
import { describe, expect, it } from 'vitest';
import { INTERNAL_PREFIX } from '../protocol/echo.ts';
import { rpc, RPCS } from '../protocol/rpc.ts';
import { decodeBatch } from '../protocol/wire-batch.ts';
import { createLogger } from '../shared/logger.ts';
import { createShardNodeApp } from './app.ts';
import { loadShardNodeConfig } from './config.ts';
import { IndexRegistry } from './index-registry.ts';

const config = loadShardNodeConfig({ FOLIO_NODE_ID: 'n0', FOLIO_LOG_LEVEL: 'silent', FOLIO_INSECURE: 'true' });

describe('the shard node app', () => {
  it('binds every action of the RPC table once, at its method and path, and nothing else under the internal prefix', () => {
    const app = createShardNodeApp(config, new IndexRegistry('n0'), createLogger('shard-node', 'silent', {}));
    const internal = app.routes.filter((r) => r.path.startsWith(`${INTERNAL_PREFIX}/`) && r.method !== 'ALL').map((r) => `${r.method} ${r.path}`);
    expect(internal.sort()).toEqual(RPCS.map((d) => `${d.method} ${d.path}`).sort());
  });

  it('answers a batch frame of every batchable action, and refuses any other action in a batch', async () => {
    const app = createShardNodeApp(config, new IndexRegistry('n0'), createLogger('shard-node', 'silent', {}));
    const calls = [
      ...RPCS.filter((d) => d.batchable).map((d) => ({ path: d.endpoint, body: { index: 'missing', shard: 0 } })),
      { path: rpc.bulk.endpoint, body: {} },
    ];
    const res = await app.request(rpc.batch.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ calls }) });
    expect(res.status).toBe(200);
    const frames = decodeBatch(new Uint8Array(await res.arrayBuffer()));
    const errors = frames.map((f) => [f.status, (JSON.parse(Buffer.from(f.body).toString('utf8')) as { error: { type: string; reason: string } }).error]);
    // Each batchable frame reaches its handler (a 404 for the missing index); the bulk frame is refused.
    expect(errors.slice(0, -1).map(([status, e]) => [status, (e as { type: string }).type])).toEqual(
      calls.slice(0, -1).map(() => [404, 'index_not_found_exception']),
    );
    expect(errors.at(-1)).toEqual([400, expect.objectContaining({ type: 'illegal_argument_exception', reason: '[bulk] is not a batchable endpoint' })]);
  });
});
