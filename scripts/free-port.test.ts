import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralRangeStart, freePort } from './free-port.ts';

describe('freePort', () => {
  it('reads the start of the ephemeral range, or null', () => {
    expect(ephemeralRangeStart('32768\t60999\n')).toBe(32768);
    expect(ephemeralRangeStart(null)).toBeNull();
    expect(ephemeralRangeStart('x')).toBeNull();
  });

  it('hands out distinct ports below the ephemeral range that a service can listen on', async () => {
    const below = ephemeralRangeStart();
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) {
      if (below !== null) expect(port).toBeLessThan(below);
      await new Promise<void>((resolve, reject) => {
        const server = createServer().once('error', reject);
        server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
      });
    }
  });
});
