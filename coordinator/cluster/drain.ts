/**
 * Bounded graceful close of an HTTP server: stop accepting connections, close keep-alive
 * connections as soon as they are idle, let in-flight requests finish, and after `timeoutMs` cut
 * whatever is still open.
 */
import type { Server } from 'node:http';

/** How often idle keep-alive connections are closed while draining. */
const IDLE_SWEEP_MS = 100;

/** Slack after the shutdown delay and the drain, for closing the shard pools, before a forced exit. */
export const EXIT_SLACK_MS = 1_000;

/**
 * Longest time from SIGTERM to exit: the delay while reporting not ready, the drain bound, and
 * {@link EXIT_SLACK_MS}. Kubernetes' `terminationGracePeriodSeconds` must be at least this.
 */
export function shutdownBoundMs(shutdownDelayMs: number, drainTimeoutMs: number): number {
  return shutdownDelayMs + drainTimeoutMs + EXIT_SLACK_MS;
}

/**
 * Closes `server` and resolves once every connection has ended: `'drained'` when in-flight
 * requests finished within `timeoutMs`, `'timeout'` when the remaining connections were destroyed.
 * @example await drainServer(server, 8_000)
 */
export function drainServer(server: Server, timeoutMs: number): Promise<'drained' | 'timeout'> {
  return new Promise((resolve) => {
    let outcome: 'drained' | 'timeout' = 'drained';
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => {
      outcome = 'timeout';
      server.closeAllConnections();
    }, timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve(outcome);
    });
    server.closeIdleConnections();
  });
}
