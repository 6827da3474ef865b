import { afterEach, describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../protocol/metadata.ts';
import { IndexRegistry } from './index-registry.ts';

const meta = (over: Partial<IndexMetadata> = {}): IndexMetadata => ({
  name: 'idx',
  uuid: 'u1',
  numberOfShards: 1,
  numberOfReplicas: 0,
  routingNumShards: 1,
  maxResultWindow: 10_000,
  refreshIntervalMs: 3_600_000,
  mappings: { properties: { w: { type: 'text' }, t: { type: 'keyword' } } },
  creationDate: 1,
  version: 1,
  ...over,
});

const docs = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    op: 'index' as const,
    _id: `d${from + i}`,
    source: JSON.stringify({ w: `word${(from + i) % 97} other${i % 13} text`, t: `t${i % 50}` }),
    create: false,
  }));

describe('registry refreshes in event-loop slices', () => {
  const open: IndexRegistry[] = [];
  afterEach(async () => {
    for (const r of open.splice(0)) await r.close();
  });

  it('an explicit refresh resolves once the writes before it are searchable and releases the waiters registered before it', async () => {
    const r = new IndexRegistry('n1');
    open.push(r);
    r.putIndex(meta(), [0]);
    const shard = r.shard('idx', 0);
    shard.apply(docs(0, 1000));
    let released = false;
    void r.waitForRefresh('idx', 0).then(() => (released = true));
    expect(await r.refresh('idx')).toEqual([0]);
    expect([shard.acquire().docCount, released, shard.hasPendingWrites]).toEqual([1000, true, false]);
  });

  it('a wait_for registered while a refresh seals waits for the next one, which shows its write', async () => {
    const r = new IndexRegistry('n1');
    open.push(r);
    r.putIndex(meta(), [0]);
    const shard = r.shard('idx', 0);
    shard.apply(docs(0, 40_000)); // sealing takes several 10 ms slices
    const first = r.refresh('idx', [0]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(shard.refreshRunning).toBe(true);
    shard.apply(docs(100_000, 1));
    let released = false;
    const waiting = r.waitForRefresh('idx', 0).then(() => (released = true));
    await first;
    expect([shard.acquire().docCount, released, shard.hasPendingWrites]).toEqual([40_000, false, true]);
    await r.refresh('idx', [0]);
    await waiting;
    expect([shard.acquire().docCount, released]).toEqual([40_001, true]);
  });

  it('with the periodic refresh disabled, wait_for refreshes at once (ES forced refresh)', async () => {
    const r = new IndexRegistry('n1');
    open.push(r);
    r.putIndex(meta({ refreshIntervalMs: -1 }), [0]);
    const shard = r.shard('idx', 0);
    shard.apply(docs(0, 10));
    await r.waitForRefresh('idx', 0);
    expect(shard.acquire().docCount).toBe(10);
  });

  it('the periodic refresh makes writes searchable in the background and releases waiters', async () => {
    const r = new IndexRegistry('n1');
    open.push(r);
    r.putIndex(meta({ refreshIntervalMs: 50 }), [0]);
    const shard = r.shard('idx', 0);
    shard.apply(docs(0, 5000));
    await r.waitForRefresh('idx', 0);
    expect(shard.acquire().docCount).toBe(5000);
  });
});
