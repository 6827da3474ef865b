// The coordinator's node list: FOLIO_NODES, or FOLIO_NODE_COUNT + FOLIO_NODE_URL_TEMPLATE expanded to
// the same ordered list, with clear startup errors for every bad combination.
import { describe, expect, it } from 'vitest';
import { expandNodeUrlTemplate, resolveNodeList } from '../shared/node-list.ts';
import { loadCoordinatorConfig } from './config.ts';

const K8S_TEMPLATE = 'http://shard-{i}.shard.{namespace}.svc.cluster.local:9300';

describe('resolveNodeList', () => {
  it('defaults to one local shard node', () => {
    expect(resolveNodeList({})).toEqual(['http://127.0.0.1:9300']);
  });

  it('keeps the FOLIO_NODES order, trimming blanks and trailing slashes', () => {
    expect(resolveNodeList({ FOLIO_NODES: ' http://b:9300/ , http://a:9300,, ' })).toEqual(['http://b:9300', 'http://a:9300']);
  });

  it('expands FOLIO_NODE_COUNT + FOLIO_NODE_URL_TEMPLATE in ordinal order with the namespace', () => {
    const nodes = resolveNodeList({ FOLIO_NODE_COUNT: '3', FOLIO_NODE_URL_TEMPLATE: K8S_TEMPLATE, FOLIO_NAMESPACE: 'search' });
    expect(nodes).toEqual([0, 1, 2].map((i) => `http://shard-${i}.shard.search.svc.cluster.local:9300`));
  });

  it('gives the template and the equivalent FOLIO_NODES the same list', () => {
    const fromTemplate = resolveNodeList({ FOLIO_NODE_COUNT: '12', FOLIO_NODE_URL_TEMPLATE: 'http://shard-{i}:9300' });
    const fromList = resolveNodeList({ FOLIO_NODES: Array.from({ length: 12 }, (_, i) => `http://shard-${i}:9300`).join(',') });
    expect(fromTemplate).toEqual(fromList);
    expect(fromTemplate[10]).toBe('http://shard-10:9300');
  });

  it('ignores FOLIO_NAMESPACE when the template does not use it', () => {
    expect(resolveNodeList({ FOLIO_NODE_COUNT: '1', FOLIO_NODE_URL_TEMPLATE: 'http://n{i}:9300/', FOLIO_NAMESPACE: 'x' })).toEqual(['http://n0:9300']);
  });

  it.each([
    [{ FOLIO_NODES: 'http://a:9300', FOLIO_NODE_COUNT: '2' }, /either FOLIO_NODES or FOLIO_NODE_COUNT \+ FOLIO_NODE_URL_TEMPLATE, not both/],
    [{ FOLIO_NODES: 'http://a:9300', FOLIO_NODE_URL_TEMPLATE: 'http://n{i}:9300' }, /not both/],
    [{ FOLIO_NODE_COUNT: '2' }, /FOLIO_NODE_COUNT is set but FOLIO_NODE_URL_TEMPLATE is not/],
    [{ FOLIO_NODE_URL_TEMPLATE: 'http://n{i}:9300' }, /FOLIO_NODE_URL_TEMPLATE is set but FOLIO_NODE_COUNT is not/],
    [{ FOLIO_NODE_COUNT: '0', FOLIO_NODE_URL_TEMPLATE: 'http://n{i}:9300' }, /FOLIO_NODE_COUNT must be at least 1, got \[0\]/],
    [{ FOLIO_NODE_COUNT: 'three', FOLIO_NODE_URL_TEMPLATE: 'http://n{i}:9300' }, /FOLIO_NODE_COUNT must be an integer, got \[three\]/],
    [{ FOLIO_NODE_COUNT: '2', FOLIO_NODE_URL_TEMPLATE: 'http://n:9300' }, /must contain \{i\}/],
    [{ FOLIO_NODE_COUNT: '2', FOLIO_NODE_URL_TEMPLATE: 'http://n{i}.{ns}:9300' }, /unknown placeholder \{ns\}/],
    [{ FOLIO_NODE_COUNT: '2', FOLIO_NODE_URL_TEMPLATE: K8S_TEMPLATE }, /uses \{namespace\} but FOLIO_NAMESPACE is unset/],
    [{ FOLIO_NODE_COUNT: '2', FOLIO_NODE_URL_TEMPLATE: 'shard-{i}:9300' }, /FOLIO_NODE_URL_TEMPLATE: \[shard-0:9300\] must use http or https/],
    [{ FOLIO_NODE_COUNT: '2', FOLIO_NODE_URL_TEMPLATE: '{i}' }, /FOLIO_NODE_URL_TEMPLATE: \[0\] is not a URL/],
    [{ FOLIO_NODES: 'http://a:9300,a:9301' }, /FOLIO_NODES: \[a:9301\] must use http or https/],
    [{ FOLIO_NODES: ' , ' }, /FOLIO_NODES must name at least one shard node/],
  ])('rejects %o', (env, message) => {
    expect(() => resolveNodeList(env)).toThrow(message);
    expect(() => loadCoordinatorConfig(env)).toThrow(message);
  });
});

describe('expandNodeUrlTemplate', () => {
  it('replaces every occurrence of each placeholder', () => {
    expect(expandNodeUrlTemplate('http://{namespace}-s{i}.{namespace}:93{i}0', 2, 'ns')).toEqual(['http://ns-s0.ns:9300', 'http://ns-s1.ns:9310']);
  });
});

describe('loadCoordinatorConfig shutdown bounds', () => {
  it('defaults to no delay and an 8 s drain, below compose stop_grace_period (10 s)', () => {
    expect(loadCoordinatorConfig({})).toMatchObject({ shutdownDelayMs: 0, drainTimeoutMs: 8_000 });
  });

  it('reads FOLIO_SHUTDOWN_DELAY_MS and FOLIO_DRAIN_TIMEOUT_MS and rejects negative values', () => {
    expect(loadCoordinatorConfig({ FOLIO_SHUTDOWN_DELAY_MS: '5000', FOLIO_DRAIN_TIMEOUT_MS: '10000' })).toMatchObject({
      shutdownDelayMs: 5_000,
      drainTimeoutMs: 10_000,
    });
    expect(() => loadCoordinatorConfig({ FOLIO_DRAIN_TIMEOUT_MS: '-1' })).toThrow(/must not be negative/);
  });

  it('reads the slow-client bounds and the cluster secret', () => {
    expect(loadCoordinatorConfig({})).toMatchObject({
      headersTimeoutMs: 15_000,
      requestTimeoutMs: 120_000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 4096,
      clusterSecret: undefined,
    });
    expect(loadCoordinatorConfig({ FOLIO_HEADERS_TIMEOUT_MS: '1500', FOLIO_CLUSTER_SECRET: 's' })).toMatchObject({
      headersTimeoutMs: 1_500,
      clusterSecret: 's',
    });
    expect(() => loadCoordinatorConfig({ FOLIO_HEADERS_TIMEOUT_MS: '400000' })).toThrow(/at most FOLIO_REQUEST_TIMEOUT_MS/);
    expect(() => loadCoordinatorConfig({ FOLIO_HEADERS_TIMEOUT_MS: '0' })).toThrow(/must be positive/);
  });
});
