/**
 * ES's `track_total_hits` values as Folio normalizes them: the default bound, accurate (`true`),
 * and disabled (`false`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-your-data.html#track-total-hits
 */
/** ES `SearchContext.DEFAULT_TRACK_TOTAL_HITS_UP_TO`. */
export const DEFAULT_TRACK_TOTAL_HITS = 10_000;
/** Normalized `track_total_hits: true` (ES uses Integer.MAX_VALUE). */
export const TRACK_TOTAL_HITS_ACCURATE = Number.MAX_SAFE_INTEGER;
/** Normalized `track_total_hits: false`. */
export const TRACK_TOTAL_HITS_DISABLED = -1;
