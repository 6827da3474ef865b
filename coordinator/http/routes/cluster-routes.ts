/**
 * `GET /_cluster/health` and `GET /_cluster/health/{index}`: ES's health body, computed from the
 * index metadata and a probe of every shard node (see cluster-health.ts). The `wait_for_*`
 * conditions poll until they hold or `timeout` (default 30s) passes; then the reply carries
 * `timed_out: true` with HTTP 408, as ES (`ClusterHealthResponse.status()`). A named index that
 * does not exist makes the health red and is waited for, as ES does.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cluster-health.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/admin/cluster/health/TransportClusterHealthAction.java
 */
import type { Context, Hono } from 'hono';
import { EsError, illegalArgument } from '../../../protocol/errors.ts';
import { parseBooleanParam, parseTimeValue } from '../../rest/params.ts';
import { clusterHealthBody, indexHealth, parseHealthStatus, satisfies, type HealthStatus, type IndexHealth } from '../../cluster/cluster-health.ts';
import type { ClusterView } from '../../cluster/cluster-view.ts';
import { checkParams, queryParams, sendJson } from '../http.ts';
import { resolveIndices } from '../../cluster/index-expression.ts';
import { INDICES_OPTIONS, indicesOptionsFrom, type IndicesOptions } from '../../cluster/indices-options.ts';
import { probeNodes } from '../../cluster/node-probe.ts';
import { ROUTE_PARAMS } from '../../rest/route-params.ts';
import type { ShardClient } from '../../transport/shard-client.ts';

/** ES's default health `timeout`. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 30_000;
/** Pause between two evaluations while waiting for a condition. */
export const HEALTH_POLL_INTERVAL_MS = 200;

/** Services the cluster routes use. */
export interface ClusterRouteDeps {
  view: ClusterView;
  client: ShardClient;
  clusterName: string;
}

/** The `wait_for_*` conditions of a request; null fields are not waited for. */
interface WaitFor {
  status: HealthStatus | null;
  /** `wait_for_active_shards`: a count, or `all`. */
  activeShards: number | 'all' | null;
  /** `wait_for_nodes`: a predicate on `number_of_nodes`. */
  nodes: ((n: number) => boolean) | null;
}

/** ES `ActiveShardCount.parseString` for `wait_for_active_shards`. */
function parseActiveShards(v: string): number | 'all' | null {
  if (v === 'all') return 'all';
  if (v === 'default' || v === '') return null;
  if (!/^[0-9]+$/.test(v)) throw illegalArgument(`cannot parse ActiveShardCount[${v}]`);
  return Number(v);
}

/** `wait_for_nodes`: `N`, `>=N`, `<=N`, `>N`, `<N` and `ge(N)`, `le(N)`, `gt(N)`, `lt(N)`. */
function parseWaitForNodes(v: string): (n: number) => boolean {
  const m = /^(>=|<=|>|<|ge\(|le\(|gt\(|lt\()?(\d+)\)?$/.exec(v.trim());
  if (!m) throw new EsError(400, 'number_format_exception', `For input string: "${v}"`);
  const k = Number(m[2]);
  switch (m[1]) {
    case '>=':
    case 'ge(':
      return (n) => n >= k;
    case '<=':
    case 'le(':
      return (n) => n <= k;
    case '>':
    case 'gt(':
      return (n) => n > k;
    case '<':
    case 'lt(':
      return (n) => n < k;
    default:
      return (n) => n === k;
  }
}

/** Registers the cluster routes on `app`. */
export function registerClusterRoutes(app: Hono, deps: ClusterRouteDeps): void {
  const health = async (c: Context) => {
    checkParams(c, ROUTE_PARAMS.clusterHealth);
    const p = queryParams(c);
    const timeoutMs = p.has('timeout') ? parseTimeValue(p.get('timeout')!, 'timeout') : DEFAULT_HEALTH_TIMEOUT_MS;
    if (p.has('master_timeout')) parseTimeValue(p.get('master_timeout')!, 'master_timeout');
    for (const b of ['local', 'wait_for_no_relocating_shards', 'wait_for_no_initializing_shards']) if (p.has(b)) parseBooleanParam(p.get(b)!);
    const wait: WaitFor = {
      status: p.has('wait_for_status') ? parseHealthStatus(p.get('wait_for_status')!) : null,
      activeShards: p.has('wait_for_active_shards') ? parseActiveShards(p.get('wait_for_active_shards')!) : null,
      nodes: p.has('wait_for_nodes') && p.get('wait_for_nodes') !== '' ? parseWaitForNodes(p.get('wait_for_nodes')!) : null,
    };
    const expression = c.req.param('index');
    const level = p.get('level') ?? 'cluster';
    const deadline = Date.now() + Math.max(0, timeoutMs);
    const options = indicesOptionsFrom(p, INDICES_OPTIONS.health);

    for (;;) {
      const { body, ready } = await evaluate(expression, wait, level, options);
      const aborted = c.req.raw.signal.aborted;
      if (ready || aborted || Date.now() >= deadline) {
        body.timed_out = !ready;
        return sendJson(c, ready ? 200 : 408, body);
      }
      await new Promise((r) => setTimeout(r, Math.min(HEALTH_POLL_INTERVAL_MS, deadline - Date.now())));
    }
  };

  /** One look at the cluster: the body, and whether every requested condition holds. */
  async function evaluate(
    expression: string | undefined,
    wait: WaitFor,
    level: string,
    options: IndicesOptions,
  ): Promise<{ body: Record<string, unknown>; ready: boolean }> {
    const [nodes] = await Promise.all([probeNodes(deps.client), deps.view.reload().catch(() => undefined)]);
    const reachable = nodes.map((n) => n.reachable);
    let names: string[];
    let missingIndex = false;
    try {
      names = await resolveIndices(expression, deps.view, options);
    } catch (err) {
      if (!(err instanceof EsError) || err.type !== 'index_not_found_exception') throw err;
      names = [];
      missingIndex = true;
    }
    const healthOf = (name: string): IndexHealth | null => {
      const v = deps.view.peek(name);
      return v ? indexHealth(v.metadata, v.copies, reachable) : null;
    };
    const all = deps.view
      .names()
      .map(healthOf)
      .filter((h): h is IndexHealth => h !== null);
    const indices = names.map(healthOf).filter((h): h is IndexHealth => h !== null);
    const reachableDataNodes = reachable.filter(Boolean).length;
    const body = clusterHealthBody({ clusterName: deps.clusterName, indices, allIndices: all, reachableDataNodes, missingIndex, timedOut: false, level });
    let ready = !missingIndex;
    if (wait.status) ready &&= satisfies(body.status as HealthStatus, wait.status);
    if (wait.activeShards === 'all') ready &&= body.unassigned_shards === 0;
    else if (wait.activeShards !== null) ready &&= (body.active_shards as number) >= wait.activeShards;
    if (wait.nodes) ready &&= wait.nodes(body.number_of_nodes as number);
    return { body, ready };
  }

  app.get('/_cluster/health', health);
  app.get('/_cluster/health/:index', health);
}
