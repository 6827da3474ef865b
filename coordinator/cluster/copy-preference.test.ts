import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { ReplicaSelection } from '../transport/replica-selection.ts';
import {
  customOrder,
  NO_COPY,
  preferredGetCopies,
  preferredShardTargets,
  resolvedPreference,
  shardIdHash,
  type CopyRanking,
  type ResolvedPreference,
} from './copy-preference.ts';
import { viewOf, type IndexView } from './index-view.ts';
import type { NodeIdentity } from './node-specs.ts';

const NODES: NodeIdentity[] = [
  { id: 'shard-0', host: '127.0.0.1' },
  { id: 'shard-1', host: '127.0.0.1' },
  { id: 'shard-2', host: '10.0.0.7' },
];

/** An index of `shards` shards, each with a copy on every one of the 3 nodes (primary on node `s % 3`), all in sync. */
function view3(shards: number, name = 'idx'): IndexView {
  const shardCopies = Array.from({ length: shards }, (_, s) => [0, 1, 2].map((k) => ({ node: (s + k) % 3, primary: k === 0, inSync: true })));
  const m = { name, uuid: `uuid-${name}`, numberOfShards: shards, numberOfReplicas: 2, routingNumShards: shards, shardCopies } as unknown as IndexMetadata;
  return viewOf(m, 3, () => true);
}

/** `text` resolved against {@link NODES}; throws when it is no preference. */
function pref(text: string): ResolvedPreference {
  const p = resolvedPreference(text, { nodeIdentities: () => NODES });
  if (!p) throw new Error(`no preference for [${text}]`);
  return p;
}

/** A ranking that keeps the given order and counts its calls (adaptive replica selection stands in). */
function fixedRanking(avoided: ReadonlySet<number> = new Set()): CopyRanking & { calls: number } {
  const r = {
    calls: 0,
    order: (ready: readonly number[]) => {
      r.calls++;
      return [...ready];
    },
    avoided: (n: number) => avoided.has(n),
  };
  return r;
}

/** Each shard's copies, first then alternates. */
const copyLists = (targets: { node: number; alternates?: number[] }[]) => targets.map((t) => [t.node, ...(t.alternates ?? [])]);

describe('preferredShardTargets', () => {
  it('reads the same copies for the same custom string on every call, and fixes their order', () => {
    const v = view3(6);
    const once = preferredShardTargets(v, pref('session-1'), fixedRanking());
    for (let i = 0; i < 5; i++) expect(preferredShardTargets(v, pref('session-1'), new ReplicaSelection(3))).toEqual(once);
    expect(once.every((t) => t.fixedOrder === true)).toBe(true);
    // Every copy of every shard is still there to fail over to.
    for (const list of copyLists(once)) expect([...list].sort()).toEqual([0, 1, 2]);
  });

  it('spreads different custom strings over the copies of a shard', () => {
    const v = view3(1);
    const firsts = new Map<number, number>();
    for (let i = 0; i < 300; i++) {
      const [t] = preferredShardTargets(v, pref(`user-${i}`), fixedRanking());
      firsts.set(t.node, (firsts.get(t.node) ?? 0) + 1);
    }
    expect([...firsts.keys()].sort()).toEqual([0, 1, 2]);
    for (const n of firsts.values()) expect(n).toBeGreaterThan(60);
  });

  it('rotates the ready copies by 31 * murmur3 + ShardId.hashCode (ES activeInitializingShardsIt(seed))', () => {
    expect(customOrder([5, 6, 7], 1, 0, () => false)).toEqual([6, 7, 5]); // seed 31 * 1 + 0: floorMod(31, 3) = 1
    expect(customOrder([5, 6, 7], 0, -1, () => false)).toEqual([7, 5, 6]); // floorMod(-1, 3) = 2
    expect(customOrder([5, 6, 7], 0, 3, () => false)).toEqual([5, 6, 7]);
    // A backed-off node's copy goes last, the others keep the rotation.
    expect(customOrder([5, 6, 7], 0, 1, (n) => n === 6)).toEqual([7, 5, 6]);
    // Java: 31 * ("a".hashCode() * 31 + "u".hashCode()) + 2 = 31 * (97 * 31 + 117) + 2
    expect(shardIdHash('a', 'u', 2)).toBe(31 * (97 * 31 + 117) + 2);
  });

  it('reads only the shards _shards names, in the normal order', () => {
    const ranking = fixedRanking();
    const targets = preferredShardTargets(view3(4), pref('_shards:1,3,9'), ranking);
    expect(targets.map((t) => t.shard)).toEqual([1, 3]);
    expect(ranking.calls).toBe(2);
    expect(targets.some((t) => t.fixedOrder)).toBe(false);
    expect(preferredShardTargets(view3(4), pref('_shards:'), ranking)).toEqual([]);
  });

  it('follows _shards with the preference after |', () => {
    const a = preferredShardTargets(view3(4), pref('_shards:2|abc'), fixedRanking());
    const b = preferredShardTargets(view3(4), pref('abc'), fixedRanking());
    expect(a).toEqual([b[2]]);
  });

  it('puts _prefer_nodes copies first (ids compared exactly) and keeps the others to fail over to', () => {
    const targets = preferredShardTargets(view3(3), pref('_prefer_nodes:shard-2'), fixedRanking());
    expect(copyLists(targets)).toEqual([
      [2, 0, 1],
      [2, 1, 0],
      [2, 0, 1],
    ]);
    // An id no node has: the normal order.
    expect(copyLists(preferredShardTargets(view3(1), pref('_prefer_nodes:shard-*'), fixedRanking()))).toEqual([[0, 1, 2]]);
  });

  it('reads only copies on the _only_nodes nodes, failing over among them', () => {
    expect(copyLists(preferredShardTargets(view3(2), pref('_only_nodes:shard-0,shard-2'), fixedRanking()))).toEqual([
      [0, 2],
      [2, 0],
    ]);
    expect(copyLists(preferredShardTargets(view3(1), pref('_only_nodes:10.0.*'), fixedRanking()))).toEqual([[2]]);
  });

  it("fails _only_nodes with ES's 400 when a shard has no copy there", () => {
    const v = viewOf(
      { ...view3(2).metadata, shardCopies: [[{ node: 0, primary: true, inSync: true }], [{ node: 1, primary: true, inSync: true }]] },
      3,
      () => true,
    );
    const err = (() => {
      try {
        preferredShardTargets(v, pref('_only_nodes:shard-1'), fixedRanking());
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(EsError);
    expect(err).toMatchObject({ status: 400, type: 'illegal_argument_exception', message: 'no data nodes with criteria [shard-1] found for shard: [idx][0]' });
    expect(() => preferredShardTargets(v, pref('_only_nodes:nope,none'), fixedRanking())).toThrow(
      'no data nodes with criterion [nope,none] found for shard: [idx][0]',
    );
  });

  it('leaves every shard without a copy for _only_local (the coordinator holds none)', () => {
    const targets = preferredShardTargets(view3(2), pref('_only_local'), fixedRanking());
    expect(targets.map((t) => [t.shard, t.node, t.alternates])).toEqual([
      [0, NO_COPY, []],
      [1, NO_COPY, []],
    ]);
  });

  it('skips copies that are out of sync or reported failed', () => {
    const m = {
      ...view3(1).metadata,
      shardCopies: [
        [
          { node: 0, primary: true, inSync: true },
          { node: 1, primary: false, inSync: false },
          { node: 2, primary: false, inSync: true },
        ],
      ],
    };
    const v = viewOf(
      m,
      3,
      () => true,
      undefined,
      (_s, node) => node === 2,
    );
    for (let i = 0; i < 20; i++) expect(copyLists(preferredShardTargets(v, pref(`s${i}`), fixedRanking()))).toEqual([[0]]);
  });
});

describe('preferredGetCopies', () => {
  it('keeps the table order (primary first) where the preference leaves it open, and applies the rest', () => {
    const v = view3(2);
    expect(preferredGetCopies(pref('_prefer_nodes:shard-1'), v, 0, () => false)).toEqual([1, 0, 2]);
    expect(preferredGetCopies(pref('_only_nodes:shard-2'), v, 1, () => false)).toEqual([2]);
    expect(preferredGetCopies(pref('_only_local'), v, 1, () => false)).toEqual([]);
    expect(preferredGetCopies(pref('k'), v, 1, () => false)).toEqual(copyLists(preferredShardTargets(v, pref('k'), fixedRanking()))[1]);
  });
});
