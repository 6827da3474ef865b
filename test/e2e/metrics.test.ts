/**
 * `GET /metrics` on the real cluster: after a search, the coordinator's scrape has the search's
 * phase, fan-out and HTTP series with non-zero counts; every shard node's scrape (no cluster
 * secret needed: `/metrics` is outside the internal API) has its endpoint latency and the
 * per-shard document gauges; `profile: true` returns one entry per shard.
 */
import { describe, expect, inject, it } from 'vitest';
import { sampleValue } from '../support/prom-text.ts';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
const nodeUrls = inject('nodeUrls');

async function scrape(base: string): Promise<string> {
  const res = await http<string>(base, 'GET', '/metrics');
  expect(res.status).toBe(200);
  expect(String(res.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body;
}

describe('metrics and profile on the e2e cluster', () => {
  it('scrapes the coordinator after a search', async () => {
    const res = await http(url, 'POST', '/cities/_search', { query: { match: { name: 'paris' } }, size: 5 });
    expect(res.status).toBe(200);
    const text = await scrape(url);
    for (const phase of ['parse', 'plan', 'query', 'merge', 'fetch', 'respond']) {
      expect(sampleValue(text, 'folio_search_phase_duration_seconds_count', `phase="${phase}"`)).toBeGreaterThan(0);
    }
    expect(sampleValue(text, 'folio_http_requests_total', 'method="POST",route="/:index/_search",status_class="2xx"')).toBeGreaterThan(0);
    // One fan-out histogram and one set of pool gauges per shard node (labelled by its configured URL).
    const queried = text.split('\n').filter((l) => l.startsWith('folio_shard_call_duration_seconds_count{') && l.includes('endpoint="query"'));
    expect(queried).toHaveLength(nodeUrls.length);
    for (const line of queried) expect(Number(line.split(' ').at(-1))).toBeGreaterThan(0);
    expect(text.split('\n').filter((l) => l.startsWith('folio_shard_pool_size{'))).toHaveLength(nodeUrls.length);
    expect(sampleValue(text, 'folio_shard_response_bytes_total')).toBeGreaterThan(0);
    expect(sampleValue(text, 'folio_process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('scrapes every shard node without the cluster secret', async () => {
    let cityDocs = 0;
    let queries = 0;
    for (const node of nodeUrls) {
      const text = await scrape(node);
      for (const shard of [0, 1, 2]) cityDocs += sampleValue(text, 'folio_shard_docs', `index="cities",shard="${shard}",prirep="p"`) ?? 0;
      queries += sampleValue(text, 'folio_shard_http_request_duration_seconds_count', 'method="POST",route="/_internal/v1/query",status_class="2xx"') ?? 0;
      expect(sampleValue(text, 'folio_search_contexts_open', 'kind="scroll"')).toBeGreaterThanOrEqual(0);
      expect(text).toContain('# TYPE folio_refresh_duration_seconds histogram');
    }
    const count = await http(url, 'GET', '/cities/_count');
    expect(cityDocs).toBe(count.body.count);
    expect(queries).toBeGreaterThan(0);
  });

  it('returns one profile entry per shard with profile: true', async () => {
    const res = await http(url, 'POST', '/cities/_search', { query: { match: { name: 'san' } }, size: 20, profile: true });
    expect(res.status).toBe(200);
    const shards = res.body.profile.shards as { id: string; shard_id: number; searches: { query: { description: string; time_in_nanos: number }[] }[] }[];
    expect(shards.map((s) => s.shard_id).sort()).toEqual([0, 1, 2]);
    for (const s of shards) {
      expect(s.id).toMatch(/^\[[^\]]+\]\[cities\]\[[012]\]$/);
      expect(s.searches[0].query.some((q) => q.description === 'query' && q.time_in_nanos > 0)).toBe(true);
    }
    expect(res.body.profile.coordinator.merge_time_in_nanos).toBeGreaterThan(0);
  });
});
