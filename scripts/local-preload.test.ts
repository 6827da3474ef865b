import { describe, expect, it } from 'vitest';
import { localPreload } from './local-preload.ts';

const IMAGE = { NODE_ENV: 'production', LD_PRELOAD: '/usr/local/lib/libjemalloc.so.2', MALLOC_CONF: 'background_thread:true' };

describe('localPreload', () => {
  it("keeps the image's path when this machine has it", () => {
    expect(localPreload(IMAGE, (p) => p === '/usr/local/lib/libjemalloc.so.2')).toEqual(IMAGE);
  });
  it('finds the library in the multiarch directory of the machine', () => {
    expect(localPreload(IMAGE, (p) => p === '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', 'x64')).toEqual({
      ...IMAGE,
      LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
    });
    expect(localPreload(IMAGE, (p) => p === '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2', 'arm64').LD_PRELOAD).toBe(
      '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
    );
  });
  it('drops the preload when the library is nowhere, and leaves an environment without one alone', () => {
    expect(localPreload(IMAGE, () => false)).toEqual({ NODE_ENV: 'production', MALLOC_CONF: 'background_thread:true' });
    expect(localPreload({ A: '1' }, () => false)).toEqual({ A: '1' });
  });
});
