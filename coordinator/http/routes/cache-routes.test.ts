import { describe, expect, it } from 'vitest';
import { clearsRequestCache } from './cache-routes.ts';

describe('clearsRequestCache (ES IndicesService.clearIndexShardCache)', () => {
  it('clears with request=true, or when no other cache is named', () => {
    const p = (s: string) => new URLSearchParams(s);
    expect(clearsRequestCache(p(''))).toBe(true);
    expect(clearsRequestCache(p('request=true'))).toBe(true);
    expect(clearsRequestCache(p('request'))).toBe(true);
    expect(clearsRequestCache(p('query=true'))).toBe(false);
    expect(clearsRequestCache(p('fielddata=true'))).toBe(false);
    expect(clearsRequestCache(p('fields=a'))).toBe(false);
    expect(clearsRequestCache(p('query=true&request=true'))).toBe(true);
    expect(clearsRequestCache(p('request=false'))).toBe(true); // nothing else named: ES clears the request cache too
    expect(() => clearsRequestCache(p('request=yes'))).toThrow('Failed to parse value [yes] as only [true] or [false] are allowed.');
  });
});
