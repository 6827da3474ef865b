/**
 * Throttling of repository copies (ES's `max_snapshot_bytes_per_sec`, default 40mb, and
 * `max_restore_bytes_per_sec`, default unlimited, per repository and node): Lucene's
 * `SimpleRateLimiter`, which makes a writer pause once it is ahead of the allowed rate. Settings
 * values are ES byte sizes (`ByteSizeValue`: a number and a unit `b`, `kb`, `mb`, `gb`, `tb`, `pb`,
 * any case; `0` or `-1`: unlimited).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/snapshots-filesystem-repository.html#filesystem-repository-settings
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/store/RateLimiter.java
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EsError } from '../../protocol/errors.ts';

/** ES's default `max_snapshot_bytes_per_sec` (40mb). */
export const DEFAULT_MAX_SNAPSHOT_BYTES_PER_SEC = 40 * 1024 * 1024;

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, pb: 1024 ** 5 };

/**
 * The bytes per second of a rate setting (0: unlimited), `dflt` when unset.
 * @throws EsError 400 `parse_exception` with ES's `failed to parse setting [x] with value [y] as a size in bytes` text
 */
export function parseBytesPerSec(setting: string, value: string | undefined, dflt: number): number {
  if (value === undefined) return dflt;
  const v = value.trim().toLowerCase();
  if (v === '-1' || v === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/.exec(v);
  if (!m || UNITS[m[2]] === undefined)
    throw new EsError(400, 'parse_exception', `failed to parse setting [${setting}] with value [${value}] as a size in bytes: unit is missing or unrecognized`);
  return Math.floor(Number(m[1]) * UNITS[m[2]]);
}

/** Lucene's `SimpleRateLimiter`: {@link RateLimiter.pause} waits until `bytes` more fit in the rate. */
export class RateLimiter {
  /** Bytes per second; 0: unlimited. */
  bytesPerSec: number;
  /** When (ms, `performance.now()`) the bytes admitted so far are within the rate. */
  private nextFree = 0;

  constructor(bytesPerSec: number) {
    this.bytesPerSec = bytesPerSec;
  }

  /** Admits `bytes`, first waiting while the copies sharing this limiter are ahead of the rate. @returns the ms waited */
  async pause(bytes: number): Promise<number> {
    if (this.bytesPerSec <= 0) return 0;
    const now = performance.now();
    const start = Math.max(now, this.nextFree);
    this.nextFree = start + (bytes * 1000) / this.bytesPerSec;
    const wait = start - now;
    if (wait >= 1) await sleep(wait);
    return wait;
  }
}
