import { describe, expect, it } from 'vitest';
import { parseSearchRequest } from '../rest/search-request.ts';
import { readsNow, requestCacheEnabled, requestCacheUse } from './request-cache-policy.ts';

const req = (body: Record<string, unknown>, params = '') => parseSearchRequest(new URLSearchParams(params), body, '/i/_search');

describe('requestCacheUse (ES IndicesService.canCache)', () => {
  it('caches size 0 by the index setting, and any size with request_cache=true', () => {
    expect(requestCacheUse(req({ size: 0 }), { size: 0 }, null, false)).toBe('setting');
    expect(requestCacheUse(req({ size: 10 }), { size: 10 }, null, false)).toBe('never');
    expect(requestCacheUse(req({}), {}, null, false)).toBe('never'); // default size 10
    expect(requestCacheUse(req({ size: 10 }, 'request_cache=true'), { size: 10 }, null, false)).toBe('always');
    expect(requestCacheUse(req({ size: 0 }, 'request_cache=false'), { size: 0 }, null, false)).toBe('never');
  });

  it('never caches profile, dfs_query_then_fetch, pinned searches, scrolls or now', () => {
    expect(requestCacheUse(req({ size: 0, profile: true }), {}, null, false)).toBe('never');
    expect(requestCacheUse(req({ size: 0 }, 'search_type=dfs_query_then_fetch'), {}, null, false)).toBe('never');
    expect(requestCacheUse(req({ size: 0 }), {}, null, true)).toBe('never');
    expect(requestCacheUse(req({ size: 5 }, 'scroll=1m'), {}, null, false)).toBe('never');
    const ranged = { size: 0, query: { range: { at: { gte: 'now-1d/d' } } } };
    expect(requestCacheUse(req(ranged), ranged, null, false)).toBe('never');
    expect(requestCacheUse(req({ size: 0 }, 'q=at:%3Enow-1h'), { size: 0 }, 'at:>now-1h', false)).toBe('never');
  });
});

describe('readsNow', () => {
  it('finds the word now at any depth, not inside other words', () => {
    expect(readsNow({ a: [{ b: 'now' }] })).toBe(true);
    expect(readsNow({ q: 'at:[now-1d TO now]' })).toBe(true);
    expect(readsNow({ q: 'nowhere', r: 'snow', s: 12 })).toBe(false);
  });
});

describe('requestCacheEnabled', () => {
  it('reads index.requests.cache.enable, default true', () => {
    expect(requestCacheEnabled({})).toBe(true);
    expect(requestCacheEnabled({ settings: { 'index.requests.cache.enable': 'false' } })).toBe(false);
    expect(requestCacheEnabled({ settings: { 'index.requests.cache.enable': 'true' } })).toBe(true);
  });
});
