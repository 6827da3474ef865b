import { describe, expect, it } from 'vitest';
import { CachedReply, ENTRY_OVERHEAD_BYTES, ShardRequestCache } from './request-cache.ts';

const bytes = (n: number, fill = 1) => ({ hits: false, body: new Uint8Array(n).fill(fill) });

/** Caches a reply under `key` the way a served round does: made by the cache, then encoded (JSON, `n` bytes). */
function put(cache: ShardRequestCache, shard: object, generation: number, key: string, n: number, fill = 1): CachedReply {
  const r = cache.reply(shard, generation, key, { n });
  r.encode(false, () => bytes(n, fill));
  return r;
}

describe('ShardRequestCache', () => {
  it('keys on the copy, the generation and the exact request text', () => {
    const cache = new ShardRequestCache(1 << 20);
    const a = {};
    const b = {};
    const k = cache.key(a, 7, '{"size":0}');
    expect(cache.key(a, 7, '{"size":0}')).toBe(k);
    expect(new Set([k, cache.key(b, 7, '{"size":0}'), cache.key(a, 8, '{"size":0}'), cache.key(a, 7, '{"size": 0}')]).size).toBe(4);
  });

  it('counts a miss, then serves the cached reply as a hit, per copy', () => {
    const cache = new ShardRequestCache(1 << 20);
    const a = {};
    const b = {};
    const key = cache.key(a, 1, 'q');
    expect(cache.get(a, key)).toBeUndefined();
    const r = cache.reply(a, 1, key, { n: 1 });
    expect(cache.get(a, key)).toBeUndefined(); // enters the cache when first encoded
    r.encode(false, () => bytes(10));
    expect(cache.get(a, key)).toBe(r);
    // one encoding and the reply object (charged as much again) until the other encoding exists
    expect(cache.stats(a)).toEqual({ memorySizeInBytes: 20 + key.length * 2 + ENTRY_OVERHEAD_BYTES, evictions: 0, hitCount: 1, missCount: 2 });
    expect(cache.stats(b)).toEqual({ memorySizeInBytes: 0, evictions: 0, hitCount: 0, missCount: 0 });
  });

  it('keeps each encoding once made, and is charged for both once the reply object is dropped', () => {
    const cache = new ShardRequestCache(1 << 20);
    const a = {};
    const key = cache.key(a, 1, 'q');
    const r = put(cache, a, 1, key, 10);
    let encodes = 0;
    const hits = () => (encodes++, { hits: true, body: new Uint8Array(4) });
    expect(r.encode(true, hits).body.byteLength).toBe(4);
    expect(r.encode(true, hits).body.byteLength).toBe(4);
    expect(r.encode(false, hits).body.byteLength).toBe(10);
    expect(encodes).toBe(1);
    expect(cache.stats(a).memorySizeInBytes).toBe(14 + key.length * 2 + ENTRY_OVERHEAD_BYTES);
    expect(cache.bytes).toBe(cache.stats(a).memorySizeInBytes);
  });

  it('stays within its byte bound and counts evictions to the copy whose entry left', () => {
    const a = {};
    const probe = new ShardRequestCache(1);
    const size = 200 + probe.key(a, 1, '0').length * 2 + ENTRY_OVERHEAD_BYTES;
    const cache = new ShardRequestCache(size * 3);
    const keys = [0, 1, 2, 3, 4].map((i) => cache.key(a, 1, String(i)));
    for (const k of keys) put(cache, a, 1, k, 100);
    expect(cache.bytes).toBeLessThanOrEqual(size * 3);
    expect(cache.stats(a).evictions).toBe(2);
    expect(cache.stats(a).memorySizeInBytes).toBe(cache.bytes);
    expect(cache.get(a, keys[0])).toBeUndefined(); // the least recently used went first
    expect(cache.get(a, keys[4])).toBeDefined();
  });

  it('does not cache a reply larger than the whole cache', () => {
    const cache = new ShardRequestCache(64);
    const a = {};
    const k = cache.key(a, 1, 'q');
    put(cache, a, 1, k, 1000);
    expect(cache.get(a, k)).toBeUndefined();
    expect(cache.stats(a).memorySizeInBytes).toBe(0);
  });

  it('drops older generations when a newer one is cached, and never caches an older one after', () => {
    const cache = new ShardRequestCache(1 << 20);
    const a = {};
    const old = cache.key(a, 1, 'q');
    put(cache, a, 1, old, 10);
    const fresh = cache.key(a, 2, 'q');
    put(cache, a, 2, fresh, 10, 2);
    expect(cache.get(a, old)).toBeUndefined();
    expect(cache.get(a, fresh)?.encode(false, () => bytes(1)).body[0]).toBe(2);
    put(cache, a, 1, old, 10); // a round that read generation 1 finished after the refresh
    expect(cache.get(a, old)).toBeUndefined();
    expect(cache.stats(a).evictions).toBe(0); // invalidations are not evictions (ES)
    expect(cache.stats(a).memorySizeInBytes).toBe(cache.bytes);
  });

  it('clear empties one copy only', () => {
    const cache = new ShardRequestCache(1 << 20);
    const a = {};
    const b = {};
    const ka = cache.key(a, 1, 'q');
    const kb = cache.key(b, 1, 'q');
    put(cache, a, 1, ka, 10);
    put(cache, b, 1, kb, 10);
    cache.clear(a);
    expect(cache.get(a, ka)).toBeUndefined();
    expect(cache.get(b, kb)).toBeDefined();
    expect(cache.stats(a).memorySizeInBytes).toBe(0);
  });

  it('holds nothing at size 0', () => {
    const cache = new ShardRequestCache(0);
    const a = {};
    const k = cache.key(a, 1, 'q');
    put(cache, a, 1, k, 1);
    expect(cache.get(a, k)).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});
