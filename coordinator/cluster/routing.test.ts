import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defaultRoutingNumShards, hashRouting, murmur3X86_32, nodeForShard, shardForHash, shardForRouting } from './routing.ts';

/** Java `int` literal → signed JS number. */
const int = (u: number): number => u | 0;

describe('hashRouting (ES Murmur3HashFunctionTests.testKnownValues)', () => {
  // elastic/elasticsearch server/src/test/java/org/elasticsearch/cluster/routing/operation/hash/murmur3/Murmur3HashFunctionTests.java
  const known: [string, number][] = [
    ['hell', 0x5a0cb7c3],
    ['hello', 0xd7c31989],
    ['hello w', 0x22ab2984],
    ['hello wo', 0xdf0ca123],
    ['hello wor', 0xe7744d61],
    ['The quick brown fox jumps over the lazy dog', 0xe07db09c],
    ['The quick brown fox jumps over the lazy cog', 0x4e63d2ad],
  ];
  it.each(known)('hash(%j)', (s, expected) => {
    expect(hashRouting(s)).toBe(int(expected));
  });

  it('returns signed 32-bit integers like Java', () => {
    expect(hashRouting('hello')).toBeLessThan(0);
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => Number.isInteger(hashRouting(s)) && hashRouting(s) === (hashRouting(s) | 0)));
  });
});

describe('murmur3X86_32', () => {
  it('matches the reference MurmurHash3_x86_32 vectors (SMHasher) for UTF-8 input', () => {
    const utf8 = (s: string) => new TextEncoder().encode(s);
    expect(murmur3X86_32(utf8(''), 0)).toBe(0);
    expect(murmur3X86_32(utf8(''), 1)).toBe(int(0x514e28b7));
    expect(murmur3X86_32(utf8(''), 0xffffffff)).toBe(int(0x81f16f39));
    expect(murmur3X86_32(new Uint8Array([0, 0, 0, 0]), 0)).toBe(int(0x2362f9de));
    expect(murmur3X86_32(new Uint8Array([0x21, 0x43, 0x65, 0x87]), 0)).toBe(int(0xf55b516b));
    expect(murmur3X86_32(new Uint8Array([0x21, 0x43, 0x65]), 0)).toBe(int(0x7e4a8634));
    expect(murmur3X86_32(new Uint8Array([0x21, 0x43]), 0)).toBe(int(0xa0f7b07a));
    expect(murmur3X86_32(new Uint8Array([0x21]), 0)).toBe(int(0x72661cf4));
    expect(murmur3X86_32(utf8('Hello, world!'), 0x9747b28c)).toBe(int(0x24884cba));
  });
});

describe('defaultRoutingNumShards (ES MetadataCreateIndexService.calculateNumRoutingShards)', () => {
  it.each([
    [1, 1024],
    [2, 1024],
    [3, 768],
    [4, 1024],
    [5, 640],
    [8, 1024],
    [12, 768],
    [512, 1024],
    [513, 1026], // ceil(log2) = 10 → at least one split
    [1024, 2048],
  ])('%i shards → %i routing shards', (n, expected) => {
    expect(defaultRoutingNumShards(n)).toBe(expected);
  });
  it('rejects non-positive shard counts', () => {
    expect(() => defaultRoutingNumShards(0)).toThrow(RangeError);
    expect(() => defaultRoutingNumShards(1.5)).toThrow(RangeError);
  });
});

describe('shardForRouting', () => {
  // elastic/elasticsearch server/src/test/java/org/elasticsearch/cluster/routing/IndexRoutingTests.java testBWC
  // (formerly OperationRoutingTests.testBWC): 8 shards; the test's IndexMetadata.Builder leaves
  // routingNumShards at its default, numberOfShards, so routingNumShards = 8 here.
  const bwc: Record<string, number> = {
    sEERfFzPSI: 1,
    cNRiIrjzYd: 7,
    BgfLBXUyWT: 5,
    cnepjZhQnb: 3,
    OKCmuYkeCK: 6,
    OutXGRQUja: 5,
    yCdyocKWou: 1,
    KXuNWWNgVj: 2,
    DGJOYrpESx: 4,
    upLDybdTGs: 5,
    yhZhzCPQby: 1,
    EyCVeiCouA: 1,
    tFyVdQauWR: 6,
    nyeRYDnDQr: 6,
    hswhrppvDH: 0,
    BSiWvDOsNE: 5,
    YHicpFBSaY: 1,
    EquPtdKaBZ: 4,
    rSjLZHCDfT: 5,
    qoZALVcite: 7,
    yDCCPVBiCm: 7,
    ngizYtQgGK: 5,
    FYQRIBcNqz: 0,
    EBzEDAPODe: 2,
    YePigbXgKb: 1,
    PeGJjomyik: 3,
    cyQIvDmyYD: 7,
    yIEfZrYfRk: 5,
    kblouyFUbu: 7,
    xvIGbRiGJF: 3,
    KWimwsREPf: 4,
    wsNavvIcdk: 7,
    xkWaPcCmpT: 0,
    FKKTOnJMDy: 7,
    RuLzobYixn: 2,
    mFohLeFRvF: 4,
    aAMXnamRJg: 7,
    zKBMYJDmBI: 0,
    ElSVuJQQuw: 7,
    pezPtTQAAm: 7,
    zBjjNEjAex: 2,
    PGgHcLNPYX: 7,
    hOkpeQqTDF: 3,
    chZXraUPBH: 7,
    FAIcSmmNXq: 5,
    EZmDicyayC: 0,
    GRIueBeIyL: 7,
    qCChjGZYLp: 3,
    IsSZQwwnUT: 3,
    MGlxLFyyCK: 3,
    YmscwrKSpB: 0,
    czSljcjMop: 5,
    XhfGWwNlng: 1,
    cWpKJjlzgj: 7,
    eDzIfMKbvk: 1,
    WFFWYBfnTb: 0,
    oDdHJxGxja: 7,
    PDOQQqgIKE: 1,
    bGEIEBLATe: 6,
    xpRkJPWVpu: 2,
    kTwZnPEeIi: 2,
    DifcuqSsKk: 1,
    CEmLmljpXe: 5,
    cuNKtLtyJQ: 7,
    yNjiAnxAmt: 5,
    bVDJDCeaFm: 2,
    vdnUhGLFtl: 0,
    LnqSYezXbr: 5,
    EzHgydDCSR: 3,
    ZSKjhJlcpn: 1,
    WRjUoZwtUz: 3,
    RiBbcCdIgk: 4,
    yizTqyjuDn: 4,
    QnFjcpcZUT: 4,
    agYhXYUUpl: 7,
    UOjiTugjNC: 7,
    nICGuWTdfV: 0,
    NrnSmcnUVF: 2,
    ZSzFcbpDqP: 3,
    YOhahLSzzE: 5,
    iWswCilUaT: 1,
    zXAamKsRwj: 2,
    aqGsrUPHFq: 5,
    eDItImYWTS: 1,
    JAYDZMRcpW: 4,
    lmvAaEPflK: 7,
    IKuOwPjKCx: 5,
    schsINzlYB: 1,
    OqbFNxrKrF: 2,
    QrklDfvEJU: 6,
    VLxKRKdLbx: 4,
    imoydNTZhV: 1,
    uFZyTyOMRO: 4,
    nVAZVMPNNx: 3,
    rPIdESYaAO: 5,
    nbZWPWJsIM: 0,
    wRZXPSoEgd: 3,
    nGzpgwsSBc: 4,
    AITyyoyLLs: 4,
  };
  it('matches ES testBWC for 8 shards', () => {
    expect(Object.keys(bwc)).toHaveLength(99);
    for (const [id, shard] of Object.entries(bwc)) expect([id, shardForRouting(id, 8, 8)]).toEqual([id, shard]);
  });

  it('uses the routing factor (ES IndexRoutingTests.testSimpleRoutingPreAndPostModRoutingChange)', () => {
    // _id "1", 2 shards: routingNumShards 2 → shard 1, routingNumShards 1024 → shard 0.
    expect(shardForRouting('1', 2, 2)).toBe(1);
    expect(shardForRouting('1', 2, 1024)).toBe(0);
  });

  it('matches ES 8.x testPartitionedIndexShrunk (4 shards, 8 routing shards, partition 3)', () => {
    // IndexRoutingTests.testPartitionedIndexShrunk as of ES 8.x (Version.CURRENT era). ES main has since
    // changed this table for new index versions (resharding work); Folio does not implement partitions.
    // shard = hashToShardId(hash(routing) + floorMod(hash(id), partitionSize)), Java int addition wraps.
    const table: Record<string, Record<string, number>> = {
      a: { a_0: 1, a_1: 2, a_2: 2, a_3: 2, a_4: 1, a_5: 2 },
      b: { b_0: 0, b_1: 0, b_2: 0, b_3: 0, b_4: 3, b_5: 3 },
      c: { c_0: 1, c_1: 1, c_2: 0, c_3: 0, c_4: 0, c_5: 1 },
      d: { d_0: 2, d_1: 2, d_2: 3, d_3: 3, d_4: 3, d_5: 3 },
    };
    const floorMod = (a: number, b: number) => ((a % b) + b) % b;
    for (const [routing, ids] of Object.entries(table)) {
      for (const [id, shard] of Object.entries(ids)) {
        const hash = (hashRouting(routing) + floorMod(hashRouting(id), 3)) | 0;
        expect([routing, id, shardForHash(hash, 4, 8)]).toEqual([routing, id, shard]);
      }
    }
  });

  it('matches ES testPartitionedIndexBWC (6 shards, routing shards = 6, partition 2)', () => {
    const table: Record<string, Record<string, number>> = {
      a: { a_0: 3, a_1: 2, a_2: 2, a_3: 3 },
      b: { b_0: 5, b_1: 0, b_2: 0, b_3: 0 },
      c: { c_0: 4, c_1: 4, c_2: 3, c_3: 4 },
      d: { d_0: 3, d_1: 4, d_2: 4, d_3: 4 },
    };
    const floorMod = (a: number, b: number) => ((a % b) + b) % b;
    for (const [routing, ids] of Object.entries(table)) {
      for (const [id, shard] of Object.entries(ids)) {
        const hash = (hashRouting(routing) + floorMod(hashRouting(id), 2)) | 0;
        expect([routing, id, shardForHash(hash, 6, 6)]).toEqual([routing, id, shard]);
      }
    }
  });

  it('always lands in [0, numShards) and is stable under the default routing shards', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 64 }), (id, n) => {
        const s = shardForRouting(id, n, defaultRoutingNumShards(n));
        return Number.isInteger(s) && s >= 0 && s < n;
      }),
    );
  });

  it('rejects routing shards that are not a multiple of the shard count', () => {
    expect(() => shardForRouting('x', 3, 1024)).toThrow(/must be a positive multiple/);
  });
});

describe('nodeForShard', () => {
  it('spreads the shards of one index round-robin from an index-dependent offset', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 16 }), (index, nodes) => {
        const placed = Array.from({ length: nodes }, (_, s) => nodeForShard(index, s, nodes));
        const offset = placed[0];
        return new Set(placed).size === nodes && placed.every((n, s) => n === (s + offset) % nodes);
      }),
    );
  });

  it('starts different indices on different nodes', () => {
    const starts = new Set(['cities', 'mails', 'mails-1', 'logs', 'a', 'b', 'c', 'd'].map((i) => nodeForShard(i, 0, 3)));
    expect(starts.size).toBeGreaterThan(1);
  });

  it('matches the documented formula', () => {
    const floorMod = (a: number, b: number) => ((a % b) + b) % b;
    expect(nodeForShard('cities', 2, 3)).toBe((2 + floorMod(hashRouting('cities'), 3)) % 3);
    expect(nodeForShard('x', 0, 1)).toBe(0);
    expect(() => nodeForShard('x', 0, 0)).toThrow(RangeError);
  });
});
