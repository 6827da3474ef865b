/**
 * The wire form of a numeric metric's statistics: only the fields its type reads, so a `terms`
 * with a `sum` per bucket (Rally's `country_agg_uncached`) sends two numbers a bucket, not five.
 * The coordinator's `mergeStats` (coordinator/search/aggs/reduce.ts) reads an absent sum as 0 and an
 * absent bound as null.
 */
import type { StatsMetricAgg } from '../../../protocol/agg-request.ts';
import type { StatsPartial } from '../../../protocol/aggs.ts';

/**
 * The partial of a `type` metric over `count` values with these sums and bounds (bounds ignored
 * when `count` is 0).
 * @example statsPartial('sum', 3, 12, 1, 7, 54) // { t: 'stats', count: 3, sum: 12 }
 */
export function statsPartial(type: StatsMetricAgg['type'], count: number, sum: number, min: number, max: number, sumSq: number, bounds = true): StatsPartial {
  const lo = count > 0 && bounds ? min : null;
  const hi = count > 0 && bounds ? max : null;
  switch (type) {
    case 'value_count':
      return { t: 'stats', count };
    case 'sum':
    case 'avg':
      return { t: 'stats', count, sum };
    case 'min':
      return { t: 'stats', count, min: lo };
    case 'max':
      return { t: 'stats', count, max: hi };
    case 'stats':
      return { t: 'stats', count, sum, min: lo, max: hi };
    case 'extended_stats':
      return { t: 'stats', count, sum, min: lo, max: hi, sumSq };
  }
}
