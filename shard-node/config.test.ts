import { describe, expect, it } from 'vitest';
import { defaultBlockCacheBytes } from './engine/columns/block-cache.ts';
import { loadShardNodeConfig } from './config.ts';

const base = { FOLIO_INSECURE: 'true' };

describe('shard-node config: FOLIO_BLOCK_CACHE_BYTES', () => {
  it('defaults to a tenth of the heap limit and reads a size in bytes', () => {
    expect(loadShardNodeConfig(base).blockCacheBytes).toBe(defaultBlockCacheBytes());
    expect(loadShardNodeConfig({ ...base, FOLIO_BLOCK_CACHE_BYTES: '67108864' }).blockCacheBytes).toBe(64 * 1024 * 1024);
  });

  it('refuses a size that is not a positive integer', () => {
    for (const bad of ['0', '-1', '1.5', '64mb'])
      expect(() => loadShardNodeConfig({ ...base, FOLIO_BLOCK_CACHE_BYTES: bad })).toThrow(/FOLIO_BLOCK_CACHE_BYTES/);
  });
});
