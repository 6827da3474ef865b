/**
 * Document routing as in Elasticsearch 7+: which shard holds a document, and which node holds a shard.
 *
 * `shard = floorMod(murmur3(_routing ?? _id), routingNumShards) / routingFactor`, with
 * `routingFactor = routingNumShards / numShards` (ES `IndexRouting.hashToShardId`). With the
 * same `number_of_shards` and `number_of_routing_shards`, Folio puts every `_id` on the same shard
 * number as Elasticsearch.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/routing/IndexRouting.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/routing/Murmur3HashFunction.java
 */

/** Largest default `index.number_of_routing_shards` (ES: `log2MaxNumShards = 10`). */
const MAX_ROUTING_SHARDS = 1024;

/**
 * MurmurHash3 x86 32-bit of `bytes` with `seed`, as Lucene `StringHelper.murmurhash3_x86_32`.
 * Returns a signed 32-bit integer (Java `int`), e.g. `-126235597`, never the unsigned form.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/StringHelper.java
 * @example murmur3X86_32(new Uint8Array([104, 0, 101, 0, 108, 0, 108, 0]), 0) === 0x5a0cb7c3
 */
export function murmur3X86_32(bytes: Uint8Array, seed: number): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  const len = bytes.length;
  const roundedEnd = len & ~3;
  let h1 = seed | 0;
  for (let i = 0; i < roundedEnd; i += 4) {
    let k1 = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
  }
  let k1 = 0;
  const tail = len & 3;
  if (tail === 3) k1 = bytes[roundedEnd + 2] << 16;
  if (tail >= 2) k1 |= bytes[roundedEnd + 1] << 8;
  if (tail >= 1) {
    k1 |= bytes[roundedEnd];
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
  }
  h1 ^= len;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 | 0;
}

/**
 * ES `Murmur3HashFunction.hash(String)`: every UTF-16 code unit of `routing` as 2 little-endian
 * bytes (not UTF-8; lone surrogates are hashed as they are), then murmur3 with seed 0.
 * Signed 32-bit result.
 * @example hashRouting('hell') === 0x5a0cb7c3
 */
export function hashRouting(routing: string): number {
  const bytes = new Uint8Array(routing.length * 2);
  for (let i = 0; i < routing.length; i++) {
    const unit = routing.charCodeAt(i);
    bytes[2 * i] = unit & 0xff;
    bytes[2 * i + 1] = unit >>> 8;
  }
  return murmur3X86_32(bytes, 0);
}

/**
 * Default `index.number_of_routing_shards` for an index created with `numShards` primaries,
 * as ES `MetadataCreateIndexService.calculateNumRoutingShards` (indices created on 7.0+):
 * `numShards * 2^k` with `k = max(1, 10 - ceil(log2(numShards)))`, so the largest such value
 * ≤ 1024 but always at least one split (3 → 768, 1 → 1024, 5 → 640, 1024 → 2048).
 * Throws a RangeError unless `numShards` is a positive integer.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/MetadataCreateIndexService.java
 */
export function defaultRoutingNumShards(numShards: number): number {
  if (!Number.isInteger(numShards) || numShards < 1) {
    throw new RangeError(`number of shards must be a positive integer, got [${numShards}]`);
  }
  const log2Max = Math.log2(MAX_ROUTING_SHARDS);
  const log2NumShards = 32 - Math.clz32(numShards - 1); // ceil(log2(numShards)), as Java's numberOfLeadingZeros
  const numSplits = Math.max(1, log2Max - log2NumShards);
  return numShards * 2 ** numSplits;
}

/**
 * ES `IndexRouting.hashToShardId`: `floorMod(hash, routingNumShards) / (routingNumShards / numShards)`.
 * Throws a RangeError when `routingNumShards` is not a positive multiple of `numShards`
 * (ES rejects such settings at index creation).
 */
export function shardForHash(hash: number, numShards: number, routingNumShards: number): number {
  if (!Number.isInteger(numShards) || numShards < 1 || !Number.isInteger(routingNumShards) || routingNumShards % numShards !== 0) {
    throw new RangeError(`number_of_routing_shards [${routingNumShards}] must be a positive multiple of number_of_shards [${numShards}]`);
  }
  const routingFactor = routingNumShards / numShards;
  const mod = ((hash % routingNumShards) + routingNumShards) % routingNumShards; // Java Math.floorMod
  return Math.floor(mod / routingFactor);
}

/**
 * The shard (0-based) of a document whose routing value is `routing` (its `_routing`, else its `_id`),
 * in an index of `numShards` primaries and `routingNumShards` routing shards. Same shard as
 * Elasticsearch for the same settings.
 * @example shardForRouting('sEERfFzPSI', 8, 8) === 1 // ES IndexRoutingTests.testBWC
 */
export function shardForRouting(routing: string, numShards: number, routingNumShards: number): number {
  return shardForHash(hashRouting(routing), numShards, routingNumShards);
}

/**
 * Folio's deterministic placement of shard `shard` of `index` over the ordered node list
 * (`FOLIO_NODES`): node `(shard + offset) % nodeCount`, where `offset = floorMod(hashRouting(index), nodeCount)`.
 * Shards of one index are spread round-robin (one per node while `numShards ≤ nodeCount`), and the
 * offset makes different indices start on different nodes, so many 1-shard indices do not all land
 * on node 0. Not ES behaviour (ES allocates through its master's balancer); it depends only on the
 * index name and the node order, so any coordinator computes it without shared state.
 * The formula places shards of new indices; coordinators then follow where nodes report hosting them,
 * so appending a node keeps existing indices in place, while removing one loses its shards (no rebalance).
 * Throws a RangeError for a negative shard or a node count below 1.
 */
export function nodeForShard(index: string, shard: number, nodeCount: number): number {
  if (!Number.isInteger(nodeCount) || nodeCount < 1) throw new RangeError(`node count must be a positive integer, got [${nodeCount}]`);
  if (!Number.isInteger(shard) || shard < 0) throw new RangeError(`shard must be a non-negative integer, got [${shard}]`);
  const hash = hashRouting(index);
  const offset = ((hash % nodeCount) + nodeCount) % nodeCount;
  return (shard + offset) % nodeCount;
}
