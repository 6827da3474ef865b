import { describe, expect, it } from 'vitest';
import { esErr } from '../test/support/es-error.ts';
import type { IndexMetadata } from '../shared/protocol.ts';
import { clusterHealthBody, indexHealth, parseHealthStatus, satisfies } from './cluster-health.ts';

const meta = (name: string, shards: number, replicas: number): IndexMetadata => ({
  name, uuid: 'u', numberOfShards: shards, numberOfReplicas: replicas, routingNumShards: shards, maxResultWindow: 10_000,
  refreshIntervalMs: 1000, mappings: { properties: {} }, creationDate: 0, version: 1,
});

describe('index health', () => {
  it('is green with every primary up and no replicas configured', () => {
    const h = indexHealth(meta('a', 3, 0), [0, 1, 2], [true, true, true]);
    expect(h).toMatchObject({ status: 'green', activePrimaryShards: 3, activeShards: 3, unassignedShards: 0 });
  });

  it('is yellow when replicas are configured: Folio never allocates them, so they are unassigned', () => {
    const h = indexHealth(meta('a', 2, 1), [0, 1], [true, true]);
    expect(h).toMatchObject({ status: 'yellow', activePrimaryShards: 2, unassignedShards: 2 });
  });

  it('is red when a primary sits on a node that does not answer', () => {
    const h = indexHealth(meta('a', 3, 1), [0, 1, 2], [true, false, true]);
    expect(h).toMatchObject({ status: 'red', activePrimaryShards: 2, activeShards: 2, unassignedShards: 4 });
    expect(h.shards[1]).toEqual({ status: 'red', primary_active: false, active_shards: 0, relocating_shards: 0, initializing_shards: 0, unassigned_shards: 2 });
  });
});

describe('cluster health body', () => {
  const green = indexHealth(meta('g', 1, 0), [0], [true]);
  const yellow = indexHealth(meta('y', 1, 1), [0], [true]);

  it('has ES fields in ES order, the worst status and the active shard percentage over all shards', () => {
    const body = clusterHealthBody({ clusterName: 'folio', indices: [green, yellow], allIndices: [green, yellow], reachableDataNodes: 3, missingIndex: false, timedOut: false, level: 'cluster' });
    expect(Object.keys(body)).toEqual([
      'cluster_name', 'status', 'timed_out', 'number_of_nodes', 'number_of_data_nodes', 'active_primary_shards', 'active_shards',
      'relocating_shards', 'initializing_shards', 'unassigned_shards', 'delayed_unassigned_shards', 'number_of_pending_tasks',
      'number_of_in_flight_fetch', 'task_max_waiting_in_queue_millis', 'active_shards_percent_as_number',
    ]);
    expect(body).toMatchObject({ status: 'yellow', number_of_nodes: 4, number_of_data_nodes: 3, active_shards: 2, unassigned_shards: 1 });
    expect(body.active_shards_percent_as_number).toBeCloseTo(200 / 3);
  });

  it('is red for a missing index, and lists indices and shards with level', () => {
    const missing = clusterHealthBody({ clusterName: 'c', indices: [], allIndices: [green], reachableDataNodes: 1, missingIndex: true, timedOut: true, level: 'cluster' });
    expect(missing).toMatchObject({ status: 'red', timed_out: true, active_shards: 0 });
    const lvl = clusterHealthBody({ clusterName: 'c', indices: [green], allIndices: [green], reachableDataNodes: 1, missingIndex: false, timedOut: false, level: 'shards' });
    expect(lvl.indices).toEqual({
      g: {
        status: 'green', number_of_shards: 1, number_of_replicas: 0, active_primary_shards: 1, active_shards: 1, relocating_shards: 0,
        initializing_shards: 0, unassigned_shards: 0,
        shards: { 0: { status: 'green', primary_active: true, active_shards: 1, relocating_shards: 0, initializing_shards: 0, unassigned_shards: 0 } },
      },
    });
  });

  it('parses wait_for_status as ES and orders statuses', () => {
    expect(parseHealthStatus('YELLOW')).toBe('yellow');
    expect(esErr(() => parseHealthStatus('purple')).message).toBe('No enum constant org.elasticsearch.cluster.health.ClusterHealthStatus.PURPLE');
    expect([satisfies('green', 'yellow'), satisfies('yellow', 'yellow'), satisfies('red', 'yellow')]).toEqual([true, true, false]);
  });
});
