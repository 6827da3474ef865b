/**
 * Wiring of the in-flight requests breaker (shared/circuit-breaker.ts) into a hono app: a
 * middleware gives each request a {@link BodyReservation} that the body reader
 * (shared/request-body.ts) fills as it buffers, and gives every byte back when the request is done,
 * whether it answered, failed, or its client went away mid-upload (the reader then rejects, so the
 * handler unwinds through the middleware). As ES's `RestController.ResourceHandlingHttpChannel`,
 * which releases a request's bytes when its response is sent.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/RestController.java
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { Counter, Gauge, type Registry } from 'prom-client';
import { BodyReservation, IN_FLIGHT_REQUESTS, IN_FLIGHT_REQUESTS_OVERHEAD, MemoryCircuitBreaker } from './circuit-breaker.ts';
import { METRIC_PREFIX } from './metrics.ts';

const reservations = new WeakMap<Request, BodyReservation>();

/** Middleware: a reservation per request on `breaker`, released once the handler is done. Register before the routes. */
export function inFlightBodyBudget(breaker: MemoryCircuitBreaker): MiddlewareHandler {
  return async (c, next) => {
    const reservation = new BodyReservation(breaker);
    reservations.set(c.req.raw, reservation);
    try {
      await next();
    } finally {
      reservation.release();
    }
  };
}

/** The request's reservation, or undefined when the app has no budget (e.g. a route tested alone). */
export function reservationOf(c: Context): BodyReservation | undefined {
  return reservations.get(c.req.raw);
}

/**
 * Builds the in-flight requests breaker (`limitBytes`, -1 = none), installs its middleware on
 * `app` (call before the routes) and exports it as ES's breaker stats do (`estimated_size_in_bytes`,
 * `limit_size_in_bytes`, `tripped`), at scrape:
 * `folio_breaker_estimated_size_bytes`, `folio_breaker_limit_size_bytes`, `folio_breaker_tripped_total`
 * {breaker="in_flight_requests"}.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/cluster-nodes-stats.html (breaker section)
 */
export function installInFlightBudget(app: Hono, limitBytes: number, registry?: Registry): MemoryCircuitBreaker {
  const breaker = new MemoryCircuitBreaker(IN_FLIGHT_REQUESTS, limitBytes, IN_FLIGHT_REQUESTS_OVERHEAD);
  app.use('*', inFlightBodyBudget(breaker));
  if (registry) {
    const registers = [registry];
    const labelNames = ['breaker'] as const;
    const labels = { breaker: breaker.name };
    new Gauge({
      name: `${METRIC_PREFIX}breaker_estimated_size_bytes`,
      help: 'Bytes a circuit breaker holds now (in_flight_requests: request bodies being buffered or handled)',
      labelNames,
      registers,
      collect() {
        this.set(labels, breaker.usedBytes);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}breaker_limit_size_bytes`,
      help: "A circuit breaker's limit in bytes (-1: none); estimates count with the overhead",
      labelNames,
      registers,
      collect() {
        this.set(labels, breaker.limitBytes);
      },
    });
    new Counter({
      name: `${METRIC_PREFIX}breaker_tripped_total`,
      help: 'Reservations a circuit breaker refused (429 circuit_breaking_exception)',
      labelNames,
      registers,
      collect() {
        this.reset();
        this.inc(labels, breaker.trippedCount);
      },
    });
  }
  return breaker;
}
