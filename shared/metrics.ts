/**
 * Prometheus metrics plumbing shared by both services (prom-client): one {@link Registry} per
 * process with the default Node.js metrics, every name prefixed `folio_`, an HTTP middleware that
 * counts and times requests by hono's matched route pattern (never the raw URL, so label
 * cardinality stays bounded), and the `GET /metrics` handler in the text exposition format.
 * @see https://github.com/siimon/prom-client
 * @see https://prometheus.io/docs/instrumenting/exposition_formats/
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prefix of every Folio metric name. */
export const METRIC_PREFIX = 'folio_';

/** Latency buckets in seconds, from 0.5 ms (an in-memory shard call) to 10 s (a search deadline). */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A new registry with the default Node.js metrics (`folio_process_*`, `folio_nodejs_*`) unless
 * `defaultMetrics` is false. Each service builds one per app (one app per process).
 * @example const registry = createMetricsRegistry({ service: 'coordinator' })
 */
export function createMetricsRegistry(opts: { service: string; defaultMetrics?: boolean }): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: opts.service });
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}

/** `2xx`, `4xx`, … of an HTTP status. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * The route label of a finished request: hono's matched route pattern (`/:index/_search`), or
 * `unmatched` when only catch-all middleware matched (404s of unknown paths).
 */
export function routeLabel(c: Context): string {
  const path = routePath(c);
  return path === '' || path === '*' || path === '/*' ? 'unmatched' : path;
}

/** The HTTP request metrics of one service: a counter and a latency histogram with the same labels. */
export interface HttpMetrics {
  /** `folio_<name>_requests_total{method, route, status_class}`. */
  requests: Counter<'method' | 'route' | 'status_class'>;
  /** `folio_<name>_request_duration_seconds{method, route, status_class}`. */
  duration: Histogram<'method' | 'route' | 'status_class'>;
  /** Counts one finished request and observes its latency (what the middleware does per request). */
  observe(method: string, route: string, status: number, seconds: number): void;
}

/**
 * Registers `folio_<name>_requests_total` and `folio_<name>_request_duration_seconds` (e.g.
 * `name = 'http'`) and a `*` middleware on `app` that observes every request after it finished.
 * Register it before the routes.
 */
export function instrumentHttp(app: Hono, registry: Registry, name: string): HttpMetrics {
  const labelNames = ['method', 'route', 'status_class'] as const;
  const metrics: Omit<HttpMetrics, 'observe'> = {
    requests: new Counter({
      name: `${METRIC_PREFIX}${name}_requests_total`,
      help: 'HTTP requests by route pattern and status class',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: `${METRIC_PREFIX}${name}_request_duration_seconds`,
      help: 'HTTP request latency in seconds, by route pattern and status class',
      labelNames,
      buckets: [...LATENCY_BUCKETS_SECONDS],
      registers: [registry],
    }),
  };
  const requests = labelledChildren(metrics.requests);
  const duration = labelledChildren(metrics.duration);
  const observe = (method: string, route: string, status: number, seconds: number): void => {
    const statusLabel = statusClass(status);
    requests(method, route, statusLabel).inc();
    duration(method, route, statusLabel).observe(seconds);
  };
  const middleware: MiddlewareHandler = async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      observe(c.req.method, routeLabel(c), c.res.status, (performance.now() - started) / 1000);
    }
  };
  app.use('*', middleware);
  return { ...metrics, observe };
}

/**
 * The labelled children of a metric, memoized by label values: prom-client's `observe(labels, v)`
 * hashes the labels object on every call (a measurable share of a small search); a child, once
 * looked up, observes directly. Label values must be given in the metric's `labelNames` order.
 */
export function labelledChildren<C>(metric: { labels(...values: string[]): C }): (...values: string[]) => C {
  const children = new Map<string, C>();
  return (...values: string[]): C => {
    const key = values.join('\u0000');
    let child = children.get(key);
    if (child === undefined) children.set(key, (child = metric.labels(...values)));
    return child;
  };
}

/** Registers `GET /metrics`: the registry in the Prometheus text format, with its content type. */
export function registerMetricsRoute(app: Hono, registry: Registry): void {
  app.get('/metrics', async (c) => c.body(await registry.metrics(), 200, { 'content-type': registry.contentType }));
}
