/**
 * The cache of successful verifications, so that a stream of searches with the same credentials
 * pays one scrypt run per TTL instead of one per request (ES caches realm and API key
 * authentications the same way: `cache.ttl`, `cache.hash_algo`). Keys are SHA-256 of a random
 * per-process salt followed by the whole `Authorization` header: the cache never holds a secret or
 * an offline-guessable digest of one. (One-shot `crypto.hash` costs about 0.4 µs; an HMAC object
 * from `createHmac` cost 18 µs here, half the cost of a `GET /`.) Failures are never cached.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/controlling-user-cache.html
 */
import { hash, randomBytes } from 'node:crypto';

/** Bounded map of header digest → value, each entry with its own expiry (epoch ms). */
export class AuthCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly salt = randomBytes(32).toString('base64');
  private readonly maxEntries: number;

  /** `maxEntries` bounds memory: past it, the oldest entry is dropped. */
  constructor(maxEntries = 10_000) {
    this.maxEntries = maxEntries;
  }

  /** The cache key of one header value: base64 SHA-256 of salt + header. */
  keyOf(header: string): string {
    return hash('sha256', this.salt + header, 'base64');
  }

  /** The value under `key` if it has not expired at `now`; an expired entry is dropped. */
  get(key: string, now: number): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  /** Stores `value` until `expiresAt`, evicting the oldest entry past the bound. */
  set(key: string, value: V, expiresAt: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Drops everything (the users or API keys file changed). */
  clear(): void {
    this.entries.clear();
  }

  /** Number of entries, expired ones included until they are read. */
  get size(): number {
    return this.entries.size;
  }
}
