/**
 * Parses a request's `_source` filter (ES `FetchSourceContext.fromXContent`) into the
 * {@link SourceFilter} that shared/source-filter.ts applies.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-fields.html#source-filtering
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/subphase/FetchSourceContext.java
 */
import { parsingException } from '../../protocol/errors.ts';
import { isObject, tokenName } from './params.ts';
import type { SourceFilter } from '../../protocol/search.ts';

/**
 * `FetchSourceContext.fromXContent` for a body `_source` (the search's, an inner hit's): a boolean,
 * a pattern or list of patterns, or `{includes, excludes}`.
 * @throws EsError 400 `parsing_exception` for another token or key (ES's texts).
 */
export function parseSourceFilter(v: unknown): SourceFilter {
  const strings = (k: string, x: unknown): string[] => {
    const arr = Array.isArray(x) ? x : [x];
    return arr.map((s) => {
      if (typeof s !== 'string') throw parsingException(`Unknown key for a ${tokenName(s)} in [${k}].`);
      return s;
    });
  };
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' || Array.isArray(v)) return { includes: strings('_source', v), excludes: [] };
  if (isObject(v)) {
    const f = { includes: [] as string[], excludes: [] as string[] };
    for (const [k, x] of Object.entries(v)) {
      if (k === 'includes' || k === 'include') f.includes = strings(k, x);
      else if (k === 'excludes' || k === 'exclude') f.excludes = strings(k, x);
      else throw parsingException(`Unknown key for a ${tokenName(x)} in [${k}].`);
    }
    return f;
  }
  throw parsingException(`Expected one of [VALUE_BOOLEAN, START_OBJECT] but found [${tokenName(v)}]`);
}
