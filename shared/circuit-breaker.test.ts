import { describe, expect, it } from 'vitest';
import { BodyReservation, circuitBreakingException, defaultInFlightRequestsLimitBytes, IN_FLIGHT_REQUESTS, MemoryCircuitBreaker } from './circuit-breaker.ts';
import { getHeapStatistics } from 'node:v8';

describe('circuitBreakingException', () => {
  it("renders ES's reason, metadata and 429 (the example of ES's circuit-breaker-errors page, child breaker name)", () => {
    const err = circuitBreakingException('parent', '<http_request>', 123848638, 123273216);
    expect(err.status).toBe(429);
    expect(err.toBody()).toEqual({
      error: {
        root_cause: [
          {
            type: 'circuit_breaking_exception',
            reason: '[parent] Data too large, data for [<http_request>] would be [123848638/118.1mb], which is larger than the limit of [123273216/117.5mb]',
            bytes_wanted: 123848638,
            bytes_limit: 123273216,
            durability: 'TRANSIENT',
          },
        ],
        type: 'circuit_breaking_exception',
        reason: '[parent] Data too large, data for [<http_request>] would be [123848638/118.1mb], which is larger than the limit of [123273216/117.5mb]',
        bytes_wanted: 123848638,
        bytes_limit: 123273216,
        durability: 'TRANSIENT',
      },
      status: 429,
    });
  });
});

describe('MemoryCircuitBreaker', () => {
  it('admits up to the limit with the overhead and refuses past it without adding', () => {
    const b = new MemoryCircuitBreaker(IN_FLIGHT_REQUESTS, 1000, 2);
    b.addEstimateBytesAndMaybeBreak(300, '<http_request>');
    b.addEstimateBytesAndMaybeBreak(200, '<http_request>'); // (500) × 2 = 1000: at the limit
    expect(b.usedBytes).toBe(500);
    expect(() => b.addEstimateBytesAndMaybeBreak(1, '<http_request>')).toThrow(
      '[in_flight_requests] Data too large, data for [<http_request>] would be [1002/1002b], which is larger than the limit of [1000/1000b]',
    );
    expect(b.usedBytes).toBe(500);
    expect(b.trippedCount).toBe(1);
    b.addWithoutBreaking(-500);
    expect(b.usedBytes).toBe(0);
  });

  it('never trips at -1 and always at 0 (as ES)', () => {
    const open = new MemoryCircuitBreaker('x', -1, 2);
    open.addEstimateBytesAndMaybeBreak(2 ** 40, 'l');
    expect(open.usedBytes).toBe(2 ** 40);
    const shut = new MemoryCircuitBreaker('x', 0, 2);
    expect(() => shut.addEstimateBytesAndMaybeBreak(5, 'l')).toThrow('would be [5/5b], which is larger than the limit of [0/0b]');
  });

  it('defaults to an eighth of V8 heap limit, never below one 100 MiB body with the overhead of 2', () => {
    expect(defaultInFlightRequestsLimitBytes()).toBe(Math.max(256 * 1024 * 1024, Math.floor(getHeapStatistics().heap_size_limit / 8)));
    expect(defaultInFlightRequestsLimitBytes()).toBeGreaterThanOrEqual(100 * 1024 * 1024 * 2);
  });
});

describe('BodyReservation', () => {
  it('holds what it reserved and gives it all back once', () => {
    const b = new MemoryCircuitBreaker(IN_FLIGHT_REQUESTS, 100, 1);
    const r1 = new BodyReservation(b);
    const r2 = new BodyReservation(b);
    r1.reserve(60);
    expect(() => r2.reserve(41)).toThrow(/Data too large/);
    r2.reserve(40);
    expect(b.usedBytes).toBe(100);
    r1.release();
    r1.release();
    expect(b.usedBytes).toBe(40);
    r2.release();
    expect(b.usedBytes).toBe(0);
  });
});
