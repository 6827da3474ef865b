/**
 * Structured logging: one pino logger per process, JSON lines on stdout with the service name.
 * @see https://getpino.io/#/docs/api?id=logger
 */
import { pino, type Logger } from 'pino';

/** Creates the process logger: `{level, time, service, node, msg, …}` JSON lines on stdout. */
export function createLogger(service: string, level: string, bindings: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { service, ...bindings } });
}

export type { Logger };
