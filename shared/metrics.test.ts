// The shared metrics plumbing on a tiny hono app, in-process: route-pattern labels, status
// classes, default metrics with the `folio_` prefix, and the `/metrics` text format.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createMetricsRegistry, instrumentHttp, registerMetricsRoute, statusClass } from './metrics.ts';

function testApp(defaultMetrics: boolean) {
  const app = new Hono();
  const registry = createMetricsRegistry({ service: 'test', defaultMetrics });
  const http = instrumentHttp(app, registry, 'http');
  registerMetricsRoute(app, registry);
  app.get('/items/:id', (c) => c.json({ id: c.req.param('id') }));
  app.get('/boom', () => {
    throw new Error('boom');
  });
  app.onError((_err, c) => c.json({ error: true }, 500));
  return { app, registry, http };
}

describe('shared metrics', () => {
  it('maps statuses to classes', () => {
    expect([200, 201, 404, 429, 503].map(statusClass)).toEqual(['2xx', '2xx', '4xx', '4xx', '5xx']);
  });

  it('labels requests by route pattern, never by raw URL, and counts errors and misses', async () => {
    const { app, http } = testApp(false);
    for (const id of ['a', 'b', 'c']) expect((await app.request(`/items/${id}`)).status).toBe(200);
    expect((await app.request('/boom')).status).toBe(500);
    expect((await app.request('/nowhere/at/all')).status).toBe(404);
    const requests = (await http.requests.get()).values;
    expect(requests).toContainEqual(expect.objectContaining({ value: 3, labels: { method: 'GET', route: '/items/:id', status_class: '2xx' } }));
    expect(requests).toContainEqual(expect.objectContaining({ value: 1, labels: { method: 'GET', route: '/boom', status_class: '5xx' } }));
    expect(requests).toContainEqual(expect.objectContaining({ value: 1, labels: { method: 'GET', route: 'unmatched', status_class: '4xx' } }));
    expect(requests.some((v) => String(v.labels.route).includes('/items/a'))).toBe(false);
    const count = (await http.duration.get()).values.find(
      (v) => v.metricName === 'folio_http_request_duration_seconds_count' && v.labels.route === '/items/:id',
    );
    expect(count?.value).toBe(3);
  });

  it('serves the Prometheus text format with default Node metrics under folio_', async () => {
    const { app } = testApp(true);
    await app.request('/items/x');
    const res = await app.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE folio_http_requests_total counter');
    expect(text).toMatch(/folio_http_requests_total\{method="GET",route="\/items\/:id",status_class="2xx",service="test"\} 1/);
    expect(text).toContain('folio_process_cpu_user_seconds_total');
    expect(text).toContain('folio_nodejs_eventloop_lag_seconds');
  });
});
