import { describe, expect, it } from 'vitest';
import { rpc, type Rpc } from '../../protocol/rpc.ts';
import type { ShardEcho } from '../../protocol/echo.ts';
import type { ShardTarget } from '../cluster/index-view.ts';
import { ShardClient, type CallOptions } from '../transport/shard-client.ts';
import { ShardCallError } from '../transport/shard-call-error.ts';
import { callShard, FIRST_ATTEMPT_SHARE, fanOut } from './fan-out.ts';
import { phaseContext, type PhaseContext } from './phase-context.ts';
import { copyIterators, ShardCopyIterator } from './shard-copy-iterator.ts';

type Behaviour = 'ok' | 'refuse' | 'hang' | 'bad-request' | 'overloaded';

/** A ShardClient whose calls do what `behaviour[node]` says, recording each call. */
class FakeClient extends ShardClient {
  readonly calls: { node: number; path: string; body: Record<string, unknown>; timeoutMs: number }[] = [];
  readonly behaviour: Behaviour[];
  constructor(behaviour: Behaviour[]) {
    super(
      behaviour.map((_, i) => `http://127.0.0.1:${1 + i}`),
      { connectionsPerNode: 1, maxResponseBytes: 1 << 20 },
    );
    this.behaviour = behaviour;
  }

  override async rpc<Req, Res>(node: number, d: Rpc<Req, Res>, req: NoInfer<Req>, opts: CallOptions): Promise<Res> {
    const b = req as Record<string, unknown>;
    this.calls.push({ node, path: d.path, body: b, timeoutMs: opts.timeoutMs });
    const url = this.nodes[node];
    switch (this.behaviour[node]) {
      case 'ok':
        return { node: `n${node}`, index: b.index, shard: b.shard, generation: 100 + node } as Res;
      case 'refuse':
        throw new ShardCallError(url, 'connection', 503, { type: 'node_not_connected_exception', reason: `[${url}] connect ECONNREFUSED` });
      case 'bad-request':
        throw new ShardCallError(url, 'response', 400, { type: 'query_shard_exception', reason: 'bad query' });
      case 'overloaded':
        throw new ShardCallError(url, 'response', 429, { type: 'rejected_execution_exception', reason: 'busy' });
      case 'hang':
        await new Promise((r) => setTimeout(r, opts.timeoutMs));
        throw new ShardCallError(url, 'timeout', 504, { type: 'timeout_exception', reason: `shard node [${url}] did not answer in time` });
    }
  }
}

function ctxOf(client: ShardClient, timeoutMs: number): PhaseContext {
  return phaseContext(client, { timeoutMs });
}

const target = (node: number, alternates: number[], shard = 0): ShardTarget => ({ index: 'i', shard, node, alternates });
/** A query round (may fail over) and a range round (reads the sample round's pinned generation). */
const QUERY = rpc.query as Rpc<object, ShardEcho & { generation: number }>;
const RANGE = rpc.selectRange as Rpc<object, ShardEcho & { generation: number }>;

describe('search fan-out with failover to another copy', () => {
  it('retries a shard whose node refuses on its next copy, and moves its copy iterator there (the plan target stays)', async () => {
    const client = new FakeClient(['refuse', 'ok', 'ok']);
    const targets = [target(0, [1]), target(2, [0], 1)];
    const copies = copyIterators(targets);
    const out = await fanOut(copies, ctxOf(client, 5_000), QUERY, (t) => ({ index: t.index, shard: t.shard }));
    expect(out.failures).toEqual([]);
    expect(out.results.map((r) => [r.shardIndex, r.node, r.response.node])).toEqual([
      [0, 1, 'n1'],
      [1, 2, 'n2'],
    ]);
    expect(out.movedOn).toBe(false);
    expect(copies.map((c) => c.position)).toEqual([
      { node: 1, rest: [] },
      { node: 2, rest: [0] },
    ]);
    expect(targets).toEqual([target(0, [1]), target(2, [0], 1)]);
    expect(client.selection.statsOf(0)).toMatchObject({ failures: 1, outstanding: 0 });
    expect(client.selection.statsOf(1)).toMatchObject({ failures: 0, outstanding: 0 });
    expect(client.selection.statsOf(1).ewmaMs).not.toBeNull();
  });

  it('gives the first attempt a bounded share of the time left when a second copy exists, so a black hole costs at most that share', async () => {
    const client = new FakeClient(['hang', 'ok']);
    const started = Date.now();
    const out = await fanOut(copyIterators([target(0, [1])]), ctxOf(client, 600), QUERY, (t) => ({ index: t.index, shard: t.shard }));
    const took = Date.now() - started;
    expect(out).toMatchObject({ failures: [], timedOut: false });
    expect(client.calls[0].timeoutMs).toBeLessThanOrEqual(600 * FIRST_ATTEMPT_SHARE);
    expect(client.calls[0].timeoutMs).toBeGreaterThan(600 * FIRST_ATTEMPT_SHARE - 50);
    expect(took).toBeLessThan(600);
  });

  it('without another copy, waits the whole deadline and reports the timeout', async () => {
    const client = new FakeClient(['hang']);
    const out = await fanOut(copyIterators([target(0, [])]), ctxOf(client, 300), QUERY, (t) => ({ index: t.index, shard: t.shard }));
    expect(client.calls).toHaveLength(1);
    expect(client.calls[0].timeoutMs).toBeGreaterThan(250);
    expect(out.timedOut).toBe(true);
    expect(out.failures).toEqual([
      { shard: 0, index: 'i', node: 'http://127.0.0.1:1', reason: expect.objectContaining({ type: 'timeout_exception' }), status: 504 },
    ]);
  });

  it('reports the last copy’s failure when every copy fails, and retries only once', async () => {
    const client = new FakeClient(['refuse', 'overloaded', 'ok']);
    const out = await fanOut(copyIterators([target(0, [1, 2])]), ctxOf(client, 5_000), QUERY, (t) => ({ index: t.index, shard: t.shard }));
    expect(client.calls.map((c) => c.node)).toEqual([0, 1]);
    expect(out.failures).toEqual([expect.objectContaining({ node: 'http://127.0.0.1:2', status: 429 })]);
  });

  it('does not retry a request error: every copy would refuse the same query', async () => {
    const client = new FakeClient(['bad-request', 'ok']);
    const copies = copyIterators([target(0, [1])]);
    const out = await fanOut(copies, ctxOf(client, 5_000), QUERY, (t) => ({ index: t.index, shard: t.shard }));
    expect(client.calls).toHaveLength(1);
    expect(out.failures[0]).toMatchObject({ status: 400, reason: { type: 'query_shard_exception' } });
    expect(client.selection.statsOf(0).failures).toBe(0);
    expect(out.movedOn).toBe(false);
    expect(copies[0].position).toEqual({ node: 0, rest: [1] });
  });

  it('drops a generation pin on the retry (the other copy reads its current generation)', async () => {
    const client = new FakeClient(['refuse', 'ok']);
    const it = new ShardCopyIterator(target(0, [1]));
    const r = await callShard(it, ctxOf(client, 5_000), QUERY, { index: 'i', shard: 0, generation: 7, stats: { terms: {}, fields: {} } });
    expect(r.node).toBe('n1');
    expect(client.calls.map((c) => c.body.generation)).toEqual([7, undefined]);
    expect(client.calls[1].body.stats).toEqual({ terms: {}, fields: {} });
    expect(it.node).toBe(1);
  });

  it('never moves a context (PIT, scroll) or a range round to another copy; a failed range round moves its iterator for later rounds', async () => {
    const client = new FakeClient(['refuse', 'ok']);
    const pit = await fanOut(copyIterators([target(0, [1])]), ctxOf(client, 5_000), QUERY, (t) => ({ index: t.index, shard: t.shard, context: { id: 3 } }));
    expect(pit.failures).toHaveLength(1);
    expect(client.calls).toHaveLength(1);
    const t = target(0, [1]);
    const it = new ShardCopyIterator(t);
    const range = await fanOut([it], ctxOf(client, 5_000), RANGE, (x) => ({ index: x.index, shard: x.shard, generation: 5 }));
    expect(range.failures).toHaveLength(1);
    expect(client.calls).toHaveLength(2);
    expect(range.movedOn).toBe(true);
    expect(it.position).toEqual({ node: 1, rest: [] });
    expect(t).toEqual(target(0, [1]));
  });
});
