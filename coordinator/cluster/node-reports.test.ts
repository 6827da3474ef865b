import { describe, expect, it } from 'vitest';
import type { IndexMetadata, NodeIndexEntry, NodeIndicesResponse } from '../../protocol/metadata.ts';
import { NodeReports } from './node-reports.ts';

const entry = (name: string, uuid: string, shards: number[]): NodeIndexEntry => ({ metadata: { name, uuid, version: 1 } as IndexMetadata, shards, copies: [] });
const ok = (node: string, indices: NodeIndexEntry[]): PromiseSettledResult<NodeIndicesResponse> => ({ status: 'fulfilled', value: { node, indices } });
const down: PromiseSettledResult<NodeIndicesResponse> = { status: 'rejected', reason: new Error('connect ECONNREFUSED') };

describe('NodeReports', () => {
  it('counts missed loads per node, keeps the last answered reports when no node answers, and names departed nodes by id', () => {
    const r = new NodeReports(2);
    expect(r.replied(0)).toBe(true); // never loaded counts as answering
    expect(r.entry(0, 'a', 'u')).toBeUndefined();
    expect(r.record([ok('shard-0', [entry('a', 'u', [0])]), down])).toBe(true);
    expect(r.epoch).toBe(1);
    expect(r.entry(0, 'a', 'u')).toMatchObject({ shards: [0] });
    expect(r.entry(0, 'a', 'other-incarnation')).toBeNull();
    expect(r.entry(1, 'a', 'u')).toBeNull();
    expect([r.replied(0), r.replied(1), r.answered()]).toEqual([true, false, 1]);
    expect(r.record([down, down])).toBe(false);
    expect(r.missedLoadCounts()).toEqual([1, 2]);
    expect(r.epoch).toBe(1);
    expect(r.entry(0, 'a', 'u')).toMatchObject({ shards: [0] }); // kept from the last answered load
    expect(r.answeredReports().map(([node]) => node)).toEqual([0]);
    // Only a node whose id a load told, and whose key the store says is gone, has departed.
    expect(r.departed((id) => (id === 'shard-0' ? 'departed' : 'unknown'))).toEqual([true, false]);
    expect(r.departed(() => 'member')).toEqual([false, false]);
  });
});
