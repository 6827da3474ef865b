/**
 * The cluster secret that authenticates the internal shard-node API (`/_internal/v1/…`): the
 * coordinator sends FOLIO_CLUSTER_SECRET in {@link CLUSTER_SECRET_HEADER} on every call, and a shard
 * node compares it in constant time ({@link secretMatches}). Mirrors the role of ES's transport-layer
 * authentication between nodes (there: TLS client certificates), reduced to a shared secret.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/security-basic-setup.html
 */
import { hash, timingSafeEqual } from 'node:crypto';

/** Request header that carries the cluster secret on internal calls (lower case, as Node reports it). */
export const CLUSTER_SECRET_HEADER = 'x-folio-cluster-secret';

/**
 * True when `given` equals `expected`. Both are hashed (SHA-256) first so that the comparison is
 * `crypto.timingSafeEqual` over equal-length digests: neither the content nor the length of the
 * expected secret leaks through timing. `undefined` (header absent) never matches.
 */
export function secretMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  // One-shot hashes, the expected one kept: a Hash object per call and side took ~5 % of a shard
  // node's CPU on page-1 searches (issue 17).
  if (expectedDigest?.secret !== expected) expectedDigest = { secret: expected, digest: hash('sha256', expected, 'buffer') };
  return timingSafeEqual(hash('sha256', given, 'buffer'), expectedDigest.digest);
}

/** The digest of the last expected secret (a node has one). */
let expectedDigest: { secret: string; digest: Buffer } | null = null;
