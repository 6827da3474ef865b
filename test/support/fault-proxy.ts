/**
 * A fault-injecting TCP proxy for partition tests: it listens on a loopback port and forwards every
 * connection to a target, until it is switched to another mode:
 * - `blackhole`: it still accepts connections and reads what arrives, but forwards nothing either way
 *   and never closes anything, as a network partition (or a hung node) looks to a client: no
 *   refusal, no reset, just silence. Connections that were open when the hole opened fall into it too.
 * - `refuse`: every open connection is reset and every new one is reset as soon as it is accepted,
 *   as a firewall's REJECT (or a node whose port is closed) looks to a client.
 * - `drop-requests` (one way): bytes from the client are dropped, replies still in flight arrive.
 * - `drop-replies` (one way): requests reach the target, which acts on them, but its replies are
 *   dropped: the client never learns the outcome (a write applied whose acknowledgement is lost).
 * A connection that lost bytes is out of step (HTTP framing), so it drops everything afterwards.
 * Switching back to `forward` closes the connections that lost bytes and forwards new ones again.
 *
 * @example
 * const proxy = await startFaultProxy('http://127.0.0.1:9301');
 * // FOLIO_NODES=…,proxy.url,…
 * proxy.setMode('blackhole');
 * await proxy.close();
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** What the proxy does with traffic (see the module comment). */
export type ProxyMode = 'forward' | 'blackhole' | 'refuse' | 'drop-requests' | 'drop-replies';

/** Every mode, e.g. for a nemesis that picks one. */
export const PROXY_MODES: readonly ProxyMode[] = ['forward', 'blackhole', 'refuse', 'drop-requests', 'drop-replies'];

const dropsRequests = (mode: ProxyMode): boolean => mode === 'blackhole' || mode === 'drop-requests';
const dropsReplies = (mode: ProxyMode): boolean => mode === 'blackhole' || mode === 'drop-replies';

/** A running proxy. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: give this to the client instead of the target. */
  url: string;
  mode(): ProxyMode;
  /** Switches the mode for existing and new connections. */
  setMode(mode: ProxyMode): void;
  /** Counters since start: connections accepted, and bytes dropped in blackhole mode. */
  stats(): { connections: number; droppedBytes: number };
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

/** One client connection and its upstream, with whether bytes were dropped on it. */
interface Pair {
  client: Socket;
  upstream: Socket | null;
  dropped: boolean;
}

/**
 * Starts a proxy on a free loopback port in front of `targetUrl` (an `http://host:port` base URL).
 * @throws when the port cannot be bound.
 */
export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const host = target.hostname;
  const port = Number(target.port);
  let mode: ProxyMode = 'forward';
  let connections = 0;
  let droppedBytes = 0;
  const pairs = new Set<Pair>();

  const drop = (pair: Pair, bytes: number) => {
    pair.dropped = true;
    droppedBytes += bytes;
  };

  const server: Server = createServer((client) => {
    connections++;
    if (mode === 'refuse') {
      client.on('error', () => {});
      client.resetAndDestroy();
      return;
    }
    const pair: Pair = { client, upstream: null, dropped: false };
    pairs.add(pair);
    const close = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('error', close);
    client.on('close', close);
    client.on('data', (chunk: Buffer) => {
      if (mode === 'refuse') return close();
      if (dropsRequests(mode) || pair.dropped) return drop(pair, chunk.length);
      if (!pair.upstream) {
        const upstream = connect({ host, port });
        pair.upstream = upstream;
        upstream.on('data', (reply: Buffer) => {
          if (dropsReplies(mode) || pair.dropped) return drop(pair, reply.length);
          client.write(reply);
        });
        upstream.on('error', close);
        upstream.on('close', () => {
          // While replies are dropped the client must not learn that the upstream went away.
          if (!dropsReplies(mode) && !pair.dropped) close();
        });
      }
      pair.upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  return {
    url,
    mode: () => mode,
    setMode(next) {
      mode = next;
      if (next === 'refuse') {
        for (const p of [...pairs]) {
          pairs.delete(p);
          p.client.resetAndDestroy();
          p.upstream?.destroy();
        }
      }
      if (next === 'forward') {
        for (const p of [...pairs]) {
          if (!p.dropped) continue;
          pairs.delete(p);
          p.client.destroy();
          p.upstream?.destroy();
        }
      }
    },
    stats: () => ({ connections, droppedBytes }),
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream?.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
