/**
 * The in-flight requests circuit breaker: a process-wide budget of request-body bytes, as
 * Elasticsearch's `in_flight_requests` breaker (`network.breaker.inflight_requests.limit`,
 * `.overhead`). A body reserves its bytes before it is buffered (its declared `content-length` at
 * once, a chunked body chunk by chunk) and gives them back when its request completes, fails or is
 * aborted. Past the limit the request answers 429 `circuit_breaking_exception`, exactly as ES
 * renders it, instead of buffering: ten 100 MiB bodies in parallel cannot take a gigabyte.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/circuit-breaker.html#in-flight-circuit-breaker
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/breaker/ChildMemoryCircuitBreaker.java
 */
import { getHeapStatistics } from 'node:v8';
import { formatByteSize } from './byte-size.ts';
import { EsError } from '../protocol/errors.ts';

/** ES `CircuitBreaker.IN_FLIGHT_REQUESTS`: the breaker's name in its messages. */
export const IN_FLIGHT_REQUESTS = 'in_flight_requests';

/** The label ES's `RestController` reserves HTTP bodies under. */
export const HTTP_REQUEST_LABEL = '<http_request>';

/**
 * ES `network.breaker.inflight_requests.overhead` default: every reserved byte counts twice
 * against the limit, because a buffered body is copied (decoded to a string, then parsed).
 */
export const IN_FLIGHT_REQUESTS_OVERHEAD = 2;

/**
 * Folio's default limit, as a fraction of V8's heap limit (`heap_size_limit`). ES's default is 100 %
 * of the JVM heap with a parent breaker at 95 % of real usage; Folio has no parent breaker, and a
 * parsed body takes several times its bytes on the heap, so the child stops at an eighth of the heap:
 * with the overhead of 2, raw bodies may hold a sixteenth of it (256 MiB of a 4 GiB heap), and ten
 * 100 MiB bodies in parallel cannot take a gigabyte.
 */
export const DEFAULT_IN_FLIGHT_REQUESTS_HEAP_FRACTION = 0.125;

/**
 * The smallest default limit, 256 MiB: one body of ES's default `http.max_content_length` (100 MiB)
 * counted with the overhead of 2 (200 MiB) always fits, so a small heap never refuses a lone legal request.
 */
export const MIN_DEFAULT_IN_FLIGHT_REQUESTS_LIMIT_BYTES = 256 * 1024 * 1024;

/**
 * The default limit in bytes: {@link DEFAULT_IN_FLIGHT_REQUESTS_HEAP_FRACTION} of V8's heap limit,
 * at least {@link MIN_DEFAULT_IN_FLIGHT_REQUESTS_LIMIT_BYTES}.
 */
export function defaultInFlightRequestsLimitBytes(): number {
  return Math.max(MIN_DEFAULT_IN_FLIGHT_REQUESTS_LIMIT_BYTES, Math.floor(getHeapStatistics().heap_size_limit * DEFAULT_IN_FLIGHT_REQUESTS_HEAP_FRACTION));
}

/**
 * ES's `CircuitBreakingException` for a TRANSIENT breaker: 429, reason
 * `[name] Data too large, data for [label] would be [X/Xmb], which is larger than the limit of [Y/Ymb]`,
 * metadata `bytes_wanted`, `bytes_limit`, `durability`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/breaker/CircuitBreakingException.java
 */
export function circuitBreakingException(name: string, label: string, bytesWanted: number, bytesLimit: number): EsError {
  const reason =
    `[${name}] Data too large, data for [${label}] would be [${bytesWanted}/${formatByteSize(bytesWanted)}], ` +
    `which is larger than the limit of [${bytesLimit}/${formatByteSize(bytesLimit)}]`;
  return new EsError(429, 'circuit_breaking_exception', reason, {
    metadata: { bytes_wanted: bytesWanted, bytes_limit: bytesLimit, durability: 'TRANSIENT' },
  });
}

/**
 * A memory breaker with ES's `ChildMemoryCircuitBreaker` arithmetic: a reservation succeeds when
 * `(used + bytes) × overhead ≤ limit`; a limit of -1 never trips, 0 always does. Single-threaded
 * (the event loop), so no compare-and-set.
 */
export class MemoryCircuitBreaker {
  readonly name: string;
  readonly limitBytes: number;
  readonly overhead: number;
  private used = 0;
  private tripped = 0;

  constructor(name: string, limitBytes: number, overhead = 1) {
    this.name = name;
    this.limitBytes = limitBytes;
    this.overhead = overhead;
  }

  /**
   * Adds `bytes` to the used estimate, or throws without adding.
   * @throws EsError 429 `circuit_breaking_exception` when the estimate would pass the limit
   */
  addEstimateBytesAndMaybeBreak(bytes: number, label: string): void {
    const wanted = Math.floor((this.used + bytes) * this.overhead);
    if (this.limitBytes === 0 || (this.limitBytes > 0 && wanted > this.limitBytes)) {
      this.tripped++;
      throw circuitBreakingException(this.name, label, this.limitBytes === 0 ? bytes : wanted, this.limitBytes);
    }
    this.used += bytes;
  }

  /** Adds (or, negative, gives back) bytes without checking the limit. */
  addWithoutBreaking(bytes: number): void {
    this.used = Math.max(0, this.used + bytes);
  }

  /** Bytes reserved now (without the overhead). */
  get usedBytes(): number {
    return this.used;
  }

  /** How many reservations were refused since start. */
  get trippedCount(): number {
    return this.tripped;
  }
}

/**
 * One request's share of a breaker: what it reserved so far, given back at once by
 * {@link BodyReservation.release} (idempotent).
 */
export class BodyReservation {
  private readonly breaker: MemoryCircuitBreaker;
  private held = 0;

  constructor(breaker: MemoryCircuitBreaker) {
    this.breaker = breaker;
  }

  /** Reserves `bytes` more under `<http_request>`. @throws EsError 429 past the breaker's limit */
  reserve(bytes: number): void {
    if (bytes <= 0) return;
    this.breaker.addEstimateBytesAndMaybeBreak(bytes, HTTP_REQUEST_LABEL);
    this.held += bytes;
  }

  /** Bytes this request holds. */
  get heldBytes(): number {
    return this.held;
  }

  /** Gives every reserved byte back. */
  release(): void {
    if (this.held === 0) return;
    this.breaker.addWithoutBreaking(-this.held);
    this.held = 0;
  }
}
