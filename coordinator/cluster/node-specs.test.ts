import { describe, expect, it } from 'vitest';
import { hostOfUrl, resolveNodeSpecs, type NodeIdentity } from './node-specs.ts';

const NODES: NodeIdentity[] = [
  { id: 'shard-0', host: '127.0.0.1' },
  { id: 'shard-1', host: 'data-b.local' },
  { id: undefined, host: '10.0.0.7' },
];

const resolve = (...specs: string[]) => [...resolveNodeSpecs(specs, NODES)].sort();

describe('resolveNodeSpecs (ES DiscoveryNodes.resolveNodes)', () => {
  it('resolves ids exactly, and * patterns over ids (names) and hosts', () => {
    expect(resolve('shard-1')).toEqual([1]);
    expect(resolve('shard-*')).toEqual([0, 1]);
    expect(resolve('*.local', '10.0.0.7')).toEqual([1, 2]);
    expect(resolve('*')).toEqual([0, 1, 2]);
  });

  it('reads _all, and _local and _master as the coordinator, which holds no shard', () => {
    expect(resolve('_all')).toEqual([0, 1, 2]);
    expect(resolve('_local', '_master')).toEqual([]);
  });

  it('reads the data role: every shard node is a data node', () => {
    expect(resolve('data:true')).toEqual([0, 1, 2]);
    expect(resolve('_all', 'data:false')).toEqual([]);
  });

  it('adds nothing for a spec that matches no node', () => {
    expect(resolve('nope', 'shard-9', '')).toEqual([]);
  });

  it('takes the host of a node URL', () => {
    expect(hostOfUrl('http://10.1.2.3:9300')).toBe('10.1.2.3');
    expect(hostOfUrl('not a url')).toBe('not a url');
  });
});
