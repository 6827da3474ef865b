/**
 * ES's bucket limit: `search.max_buckets` (default 65,536) and its `too_many_buckets_exception`,
 * HTTP 400 since ES 8.8 (elastic/elasticsearch#95304; 503 before).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/MultiBucketConsumerService.java
 */
import { EsError } from '../../protocol/errors.ts';

/** ES's default `search.max_buckets`. */
export const DEFAULT_MAX_BUCKETS = 65_536;

/** The too-many-buckets rejection, with the `max_buckets` metadata ES sends. */
export function tooManyBuckets(max: number): EsError {
  return new EsError(
    400,
    'too_many_buckets_exception',
    `Trying to create too many buckets. Must be less than or equal to: [${max}] but this number of buckets was exceeded. This limit can be set by changing the [search.max_buckets] cluster level setting.`,
    { metadata: { max_buckets: max } },
  );
}
