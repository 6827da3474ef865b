// search.max_keep_alive: ES's SearchService.checkKeepAliveLimit text, with TimeValue's printing.
import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import { checkKeepAlive, DEFAULT_MAX_KEEP_ALIVE_MS } from './keep-alive.ts';

describe('checkKeepAlive', () => {
  it("allows up to the limit and refuses above it with ES's error", () => {
    expect(() => checkKeepAlive(DEFAULT_MAX_KEEP_ALIVE_MS, DEFAULT_MAX_KEEP_ALIVE_MS)).not.toThrow();
    const e = esErr(() => checkKeepAlive(25 * 3_600_000, DEFAULT_MAX_KEEP_ALIVE_MS));
    expect([e.status, e.type, e.message]).toEqual([
      400,
      'illegal_argument_exception',
      'Keep alive for request (1d) is too large. It must be less than (1d). This limit can be set by changing the [search.max_keep_alive] cluster level setting.',
    ]);
    expect(esErr(() => checkKeepAlive(120_000, 60_000)).message).toMatch(/^Keep alive for request \(2m\) is too large\. It must be less than \(1m\)\./);
  });
});
