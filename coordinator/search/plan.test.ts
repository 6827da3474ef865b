import { describe, expect, it } from 'vitest';
import { parseSearchRequest } from '../../shared/search-request.ts';
import { DEFAULT_MAX_RESULT_WINDOW } from '../index-settings.ts';
import { MAX_SIZE_WITH_DEFAULT_WINDOW, resultWindowCause } from './plan.ts';

const req = (qs: string) => parseSearchRequest(new URLSearchParams(qs), undefined, '/i/_search');
const tail =
  'See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.';

describe('resultWindowCause', () => {
  it('with the default window: deep from is fine, size is bounded by 10,000 (ES text, limit 10000)', () => {
    expect(MAX_SIZE_WITH_DEFAULT_WINDOW).toBe(10_000);
    expect(resultWindowCause(req('from=5000000&size=10'), DEFAULT_MAX_RESULT_WINDOW)).toBeNull();
    expect(resultWindowCause(req('size=10000'), DEFAULT_MAX_RESULT_WINDOW)).toBeNull();
    expect(resultWindowCause(req('size=9000000'), DEFAULT_MAX_RESULT_WINDOW)).toEqual({
      type: 'illegal_argument_exception',
      reason: `Result window is too large, from + size must be less than or equal to: [10000] but was [9000000]. ${tail}`,
    });
    expect(resultWindowCause(req('size=10001'), DEFAULT_MAX_RESULT_WINDOW)?.reason).toContain('[10000] but was [10001]');
    expect(resultWindowCause(req('from=9999990&size=11'), DEFAULT_MAX_RESULT_WINDOW)?.reason).toContain(`[${DEFAULT_MAX_RESULT_WINDOW}] but was [10000001]`);
  });

  it("with a set window: ES's from + size rule alone, above or below 10,000", () => {
    expect(resultWindowCause(req('from=9990&size=10'), 10_000)).toBeNull();
    expect(resultWindowCause(req('from=9991&size=10'), 10_000)?.reason).toBe(`Result window is too large, from + size must be less than or equal to: [10000] but was [10001]. ${tail}`);
    expect(resultWindowCause(req('size=50000'), 50_000)).toBeNull();
    expect(resultWindowCause(req('size=101'), 100)?.reason).toContain('[100] but was [101]');
  });

  it('bounds a scroll batch by 10,000 with the default window, by the window when set', () => {
    const batch = (n: number, w: number) => resultWindowCause(req(`scroll=1m&size=${n}`), w)?.reason ?? null;
    expect(batch(10_000, DEFAULT_MAX_RESULT_WINDOW)).toBeNull();
    expect(batch(10_001, DEFAULT_MAX_RESULT_WINDOW)).toBe(
      'Batch size is too large, size must be less than or equal to: [10000] but was [10001]. Scroll batch sizes cost as much memory as result windows so they are controlled by the [index.max_result_window] index level setting.',
    );
    expect(batch(20_000, 20_000)).toBeNull();
    expect(batch(501, 500)).toContain('[500] but was [501]');
  });
});
