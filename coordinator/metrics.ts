/**
 * The coordinator's Prometheus metrics (prom-client, one registry per app, names `folio_*`):
 * - `folio_http_requests_total`, `folio_http_request_duration_seconds` {method, route, status_class}
 *   (route = hono's matched pattern, shared/metrics.ts);
 * - `folio_search_phase_duration_seconds` {phase}: parse, plan, query, select, merge, fetch, respond;
 * - `folio_shard_call_duration_seconds` {node, endpoint}, `folio_shard_call_errors_total`
 *   {node, endpoint, kind} and `folio_shard_call_timeouts_total` {node, endpoint}: the fan-out;
 * - `folio_shard_response_bytes_total`: reply bytes from shard nodes (the client's counters);
 * - `folio_shard_pool_{connected,free,pending,running,size}` {node}: undici `Pool.stats`, at scrape.
 * @see https://prometheus.io/docs/practices/naming/
 */
import type { Hono } from 'hono';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import {
  createMetricsRegistry,
  instrumentHttp,
  labelledChildren,
  LATENCY_BUCKETS_SECONDS,
  METRIC_PREFIX,
  registerMetricsRoute,
  type HttpMetrics,
} from '../shared/metrics.ts';
import type { PhaseObserver } from './search/profile.ts';
import type { ShardCallObserver, ShardClient } from './transport/shard-client.ts';

/** The coordinator's metrics; {@link CoordinatorMetrics.observePhase} goes into the search deps. */
export interface CoordinatorMetrics {
  registry: Registry;
  http: HttpMetrics;
  observePhase: PhaseObserver;
  observeShardCall: ShardCallObserver;
}

/** The endpoint label of an internal path: prefix dropped, index names replaced (`indices/:index/_mapping`). */
export function endpointLabel(path: string): string {
  const parts = path
    .replace(/^\/_internal\/v\d+\//, '')
    .split('?')[0]
    .split('/');
  if (parts[0] === 'indices' && parts.length > 1) parts[1] = ':index';
  return parts.join('/');
}

/**
 * Builds the registry, instruments `app` (HTTP middleware: call before any route), wires the
 * client's observer, and registers `GET /metrics`. `defaultMetrics: false` leaves out the Node.js
 * process metrics (tests building many apps).
 */
export function instrumentCoordinator(app: Hono, client: ShardClient, opts: { defaultMetrics?: boolean } = {}): CoordinatorMetrics {
  const registry = createMetricsRegistry({ service: 'coordinator', defaultMetrics: opts.defaultMetrics });
  const http = instrumentHttp(app, registry, 'http');
  const registers = [registry];
  const phase = new Histogram({
    name: `${METRIC_PREFIX}search_phase_duration_seconds`,
    help: 'Search phase latency in seconds (parse, plan, query, select, merge, fetch, respond)',
    labelNames: ['phase'] as const,
    buckets: [...LATENCY_BUCKETS_SECONDS],
    registers,
  });
  const callDuration = new Histogram({
    name: `${METRIC_PREFIX}shard_call_duration_seconds`,
    help: 'Latency of calls to shard nodes in seconds, by node and internal endpoint',
    labelNames: ['node', 'endpoint'] as const,
    buckets: [...LATENCY_BUCKETS_SECONDS],
    registers,
  });
  const callErrors = new Counter({
    name: `${METRIC_PREFIX}shard_call_errors_total`,
    help: 'Failed calls to shard nodes, by node, endpoint and kind (connection, timeout, aborted, response)',
    labelNames: ['node', 'endpoint', 'kind'] as const,
    registers,
  });
  const callTimeouts = new Counter({
    name: `${METRIC_PREFIX}shard_call_timeouts_total`,
    help: 'Calls to shard nodes that missed their deadline, by node and endpoint',
    labelNames: ['node', 'endpoint'] as const,
    registers,
  });
  new Counter({
    name: `${METRIC_PREFIX}shard_response_bytes_total`,
    help: 'Bytes of reply bodies received from shard nodes',
    registers,
    collect() {
      this.reset();
      this.inc(client.stats().shard_response_bytes);
    },
  });
  for (const stat of ['connected', 'free', 'pending', 'running', 'size'] as const) {
    new Gauge({
      name: `${METRIC_PREFIX}shard_pool_${stat}`,
      help: `undici Pool.stats.${stat} of the pool to each shard node`,
      labelNames: ['node'] as const,
      registers,
      collect() {
        for (const s of client.poolStats()) this.set({ node: s.node }, s[stat]);
      },
    });
  }
  const callDurationOf = labelledChildren(callDuration);
  const endpoints = new Map<string, string>();
  const phaseOf = labelledChildren(phase);
  const observeShardCall: ShardCallObserver = (node, path, seconds, failure) => {
    let endpoint = endpoints.get(path);
    if (endpoint === undefined) {
      if (endpoints.size > 1_000) endpoints.clear(); // paths name indices: keep the memo bounded
      endpoints.set(path, (endpoint = endpointLabel(path)));
    }
    callDurationOf(node, endpoint).observe(seconds);
    if (failure === null) return;
    const labels = { node, endpoint };
    if (failure === null) return;
    callErrors.inc({ ...labels, kind: failure });
    if (failure === 'timeout') callTimeouts.inc(labels);
  };
  client.observer = observeShardCall;
  registerMetricsRoute(app, registry);
  return { registry, http, observePhase: (p, seconds) => phaseOf(p).observe(seconds), observeShardCall };
}
