import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { clusterHealthBody, copyActive, indexHealth, parseHealthStatus, satisfies, type CopyState } from './cluster-health.ts';

const meta = (name: string, shards: number, replicas: number): IndexMetadata => ({
  name,
  uuid: 'u',
  numberOfShards: shards,
  numberOfReplicas: replicas,
  routingNumShards: shards,
  maxResultWindow: 10_000,
  refreshIntervalMs: 1000,
  mappings: { properties: {} },
  creationDate: 0,
  version: 1,
});

/** Copies per shard: primary on `nodes[s][0]`, replicas on the rest; all in sync and hosted unless listed in `out`. */
const copies = (nodes: number[][], out: { shard: number; node: number; inSync?: boolean; hosted?: boolean }[] = []): CopyState[][] =>
  nodes.map((list, s) =>
    list.map((node, i) => {
      const o = out.find((x) => x.shard === s && x.node === node);
      return { node, primary: i === 0, inSync: o?.inSync ?? true, hosted: o?.hosted ?? true };
    }),
  );

describe('index health', () => {
  it('is green with every primary up and no replicas configured', () => {
    const h = indexHealth(meta('a', 3, 0), copies([[0], [1], [2]]), [true, true, true]);
    expect(h).toMatchObject({ status: 'green', activePrimaryShards: 3, activeShards: 3, unassignedShards: 0 });
  });

  it('is green when every replica is placed, in sync and on an answering node', () => {
    const h = indexHealth(
      meta('a', 2, 1),
      copies([
        [0, 1],
        [1, 2],
      ]),
      [true, true, true],
    );
    expect(h).toMatchObject({ status: 'green', activePrimaryShards: 2, activeShards: 4, unassignedShards: 0 });
  });

  it('is yellow when more replicas are configured than nodes can hold (ES cannot place them either)', () => {
    const h = indexHealth(meta('a', 2, 1), copies([[0], [0]]), [true]); // one node: no place for a replica
    expect(h).toMatchObject({ status: 'yellow', activePrimaryShards: 2, activeShards: 2, unassignedShards: 2 });
  });

  it('is yellow when a replica’s node is down, a replica is out of sync, or a node does not report its copy', () => {
    const up = [true, true, true];
    expect(indexHealth(meta('a', 1, 1), copies([[0, 1]]), [true, false, true])).toMatchObject({ status: 'yellow', activeShards: 1, unassignedShards: 1 });
    // Out of sync on a node that answers and hosts it: recovering (initializing), still yellow.
    expect(indexHealth(meta('a', 1, 1), copies([[0, 1]], [{ shard: 0, node: 1, inSync: false }]), up)).toMatchObject({
      status: 'yellow',
      activeShards: 1,
      initializingShards: 1,
      unassignedShards: 0,
    });
    expect(indexHealth(meta('a', 1, 1), copies([[0, 1]], [{ shard: 0, node: 1, hosted: false }]), up)).toMatchObject({
      status: 'yellow',
      activeShards: 1,
      initializingShards: 0,
      unassignedShards: 1,
    });
  });

  it('is red when a primary sits on a node that does not answer, even with its replica active', () => {
    const h = indexHealth(
      meta('a', 3, 1),
      copies([
        [0, 1],
        [1, 2],
        [2, 0],
      ]),
      [true, false, true],
    );
    expect(h).toMatchObject({ status: 'red', activePrimaryShards: 2, activeShards: 4, unassignedShards: 2 });
    expect(h.shards[1]).toEqual({ status: 'red', primary_active: false, active_shards: 1, relocating_shards: 0, initializing_shards: 0, unassigned_shards: 1 });
    expect(h.shards[0]).toMatchObject({ status: 'yellow', primary_active: true, active_shards: 1 });
  });

  it('counts a copy active only with its node answering, reporting it, and in sync', () => {
    const c = { node: 1, primary: false, inSync: true, hosted: true };
    expect([
      copyActive(c, [true, true]),
      copyActive(c, [true, false]),
      copyActive({ ...c, inSync: false }, [true, true]),
      copyActive({ ...c, hosted: false }, [true, true]),
    ]).toEqual([true, false, false, false]);
  });
});

describe('cluster health body', () => {
  const green = indexHealth(meta('g', 1, 0), copies([[0]]), [true]);
  const yellow = indexHealth(meta('y', 1, 1), copies([[0]]), [true]);

  it('has ES fields in ES order, the worst status and the active shard percentage over all shards', () => {
    const body = clusterHealthBody({
      clusterName: 'folio',
      indices: [green, yellow],
      allIndices: [green, yellow],
      reachableDataNodes: 3,
      missingIndex: false,
      timedOut: false,
      level: 'cluster',
    });
    expect(Object.keys(body)).toEqual([
      'cluster_name',
      'status',
      'timed_out',
      'number_of_nodes',
      'number_of_data_nodes',
      'active_primary_shards',
      'active_shards',
      'relocating_shards',
      'initializing_shards',
      'unassigned_shards',
      'delayed_unassigned_shards',
      'number_of_pending_tasks',
      'number_of_in_flight_fetch',
      'task_max_waiting_in_queue_millis',
      'active_shards_percent_as_number',
    ]);
    expect(body).toMatchObject({ status: 'yellow', number_of_nodes: 4, number_of_data_nodes: 3, active_shards: 2, unassigned_shards: 1 });
    expect(body.active_shards_percent_as_number).toBeCloseTo(200 / 3);
  });

  it('is red for a missing index, and lists indices and shards with level', () => {
    const missing = clusterHealthBody({
      clusterName: 'c',
      indices: [],
      allIndices: [green],
      reachableDataNodes: 1,
      missingIndex: true,
      timedOut: true,
      level: 'cluster',
    });
    expect(missing).toMatchObject({ status: 'red', timed_out: true, active_shards: 0 });
    const lvl = clusterHealthBody({
      clusterName: 'c',
      indices: [green],
      allIndices: [green],
      reachableDataNodes: 1,
      missingIndex: false,
      timedOut: false,
      level: 'shards',
    });
    expect(lvl.indices).toEqual({
      g: {
        status: 'green',
        number_of_shards: 1,
        number_of_replicas: 0,
        active_primary_shards: 1,
        active_shards: 1,
        relocating_shards: 0,
        initializing_shards: 0,
        unassigned_shards: 0,
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
