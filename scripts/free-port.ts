/**
 * Free loopback ports for local services (the e2e clusters, `npm start`, the benches). A port the
 * OS hands out for `listen(0)` comes from its ephemeral range, the range it also takes the local port
 * of every outgoing connection from: between the pick and the service's own `listen` (seconds, while
 * the services before it start), a connection could take it, and the service died with EADDRINUSE
 * (seen once in a whole `npm test`). Ports are therefore picked at random below that range
 * (`/proc/sys/net/ipv4/ip_local_port_range` on Linux), checked free by binding them, and never handed
 * out twice by one process; where no such range is known, the OS picks.
 * @see https://www.kernel.org/doc/html/latest/networking/ip-sysctl.html (ip_local_port_range)
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The lowest port picked at random (below it: well-known and registered services' usual ports). */
const LOWEST = 10_000;
/** Random picks tried before asking the OS. */
const TRIES = 64;
/** Ports this process handed out already. */
const handedOut = new Set<number>();

/** The first port of the OS's ephemeral range, or null when it is not known (not Linux). */
export function ephemeralRangeStart(text = readRange()): number | null {
  const start = Number(text?.trim().split(/\s+/)[0]);
  return Number.isInteger(start) && start > 0 ? start : null;
}

function readRange(): string | null {
  try {
    return readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8');
  } catch {
    return null;
  }
}

/** Resolves the port bound by `listen(port)` on loopback (0: the OS picks), or null when it is taken. */
function bindAndRelease(port: number): Promise<number | null> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolvePort(null));
    server.listen(port, '127.0.0.1', () => {
      const addr = server.address();
      const bound = typeof addr === 'object' && addr ? addr.port : null;
      server.close(() => resolvePort(bound));
    });
  });
}

/** A free loopback port below the ephemeral range (see the module comment), else one the OS picks. */
export async function freePort(): Promise<number> {
  const below = ephemeralRangeStart();
  if (below !== null && below - LOWEST > 1_000) {
    for (let i = 0; i < TRIES; i++) {
      const port = LOWEST + Math.floor(Math.random() * (below - LOWEST));
      if (handedOut.has(port)) continue;
      handedOut.add(port); // before the await: a concurrent call must not pick it too
      if ((await bindAndRelease(port)) === port) return port;
      handedOut.delete(port);
    }
  }
  const port = await bindAndRelease(0);
  if (port === null) throw new Error('could not read the assigned port');
  handedOut.add(port);
  return port;
}
