/**
 * The query a shard runs when its index was reached through filtered aliases (ES `AliasFilter`,
 * applied in `DefaultSearchContext.buildFilteredQuery`): the request's query as a `must` clause and
 * the alias filter as a `filter` clause (no effect on scores); several aliases' filters are OR-ed
 * (a `bool` of `should` clauses, ES `SearchService.buildAliasFilter`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/filter-search-results.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/internal/AliasFilter.java
 */
import type { Query } from '../../protocol/query-ast.ts';
import { parseQuery } from '../rest/query-dsl.ts';

/** Parsed alias filters by their stored object: an alias's filter is parsed once while its metadata stays. */
const parsed = new WeakMap<object, Query>();

function parseFilter(filter: Record<string, unknown>): Query {
  let q = parsed.get(filter);
  if (q === undefined) {
    q = parseQuery(filter);
    parsed.set(filter, q);
  }
  return q;
}

/**
 * `query` restricted to the documents one of `filters` (ES query DSL, checked when the alias was
 * stored) matches.
 */
export function withAliasFilters(query: Query, filters: readonly Record<string, unknown>[]): Query {
  const list = filters.map(parseFilter);
  const filter: Query = list.length === 1 ? list[0] : { kind: 'bool', must: [], should: list, filter: [], mustNot: [], boost: 1 };
  return { kind: 'bool', must: [query], should: [], filter: [filter], mustNot: [], boost: 1 };
}
