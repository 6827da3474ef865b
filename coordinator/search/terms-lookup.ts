/**
 * The terms lookup rewrite (ES `TermsQueryBuilder.doRewrite` on the coordinator, before any shard is
 * asked): every `terms` query that names a document (`{"index", "id", "path", "routing"}`) becomes a
 * plain `terms` query with the values found at `path` in that document's `_source`, fetched once per
 * search through the real-time GET path. A missing document gives no values (the query matches
 * nothing); a missing index is ES's 404 `index_not_found_exception`. The value count is then bounded
 * by the target index's `index.max_terms_count` like any `terms` query (plan.ts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-terms-query.html#query-dsl-terms-lookup
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/query/TermsQueryBuilder.java
 */
import { isObject } from '../rest/params.ts';
import { subQueries, type Query, type TermValue } from '../../protocol/query-ast.ts';
import type { SearchRequest } from '../rest/search-request.ts';

/** A terms lookup node of the query tree. */
export type TermsLookupQuery = Extract<Query, { kind: 'terms_lookup' }>;

/** Reads the `_source` of `index/id` (with `routing`); undefined when the document does not exist. */
export type LookupFetcher = (lookup: TermsLookupQuery) => Promise<unknown>;

/**
 * ES `XContentMapValues.extractRawValues(path, source)`: the scalar values at a dotted `path`,
 * walking into objects and through arrays (flattened); a key may itself contain dots (`a.b` as one
 * key). A scalar met before the path ends is taken too, as ES takes it; nulls are skipped.
 * @example extractRawValues('followers', { followers: ['1', '3'] }) // ['1', '3']
 */
export function extractRawValues(path: string, source: unknown): TermValue[] {
  const out: TermValue[] = [];
  const parts = path.split('.');
  if (isObject(source) && parts.length > 0) fromObject(out, source, parts, 0);
  return out;
}

function fromObject(out: TermValue[], obj: Record<string, unknown>, parts: string[], index: number): void {
  if (index === parts.length) return;
  let key = parts[index];
  let next = index + 1;
  for (;;) {
    const v = Object.hasOwn(obj, key) ? obj[key] : undefined;
    if (v !== null && v !== undefined) fromValue(out, v, parts, next);
    if (next === parts.length) return;
    key += '.' + parts[next];
    next++;
  }
}

function fromValue(out: TermValue[], v: unknown, parts: string[], index: number): void {
  if (Array.isArray(v)) {
    for (const x of v) if (x !== null && x !== undefined) fromValue(out, x, parts, index);
  } else if (isObject(v)) fromObject(out, v, parts, index);
  else out.push(v as TermValue);
}

/** `q` with every lookup replaced by the `terms` query `values` gives for it. */
function replaceLookups(q: Query, values: (l: TermsLookupQuery) => TermValue[]): Query {
  switch (q.kind) {
    case 'terms_lookup':
      return { kind: 'terms', field: q.field, values: values(q), boost: q.boost };
    case 'bool': {
      const map = (qs: Query[]) => qs.map((c) => replaceLookups(c, values));
      return { ...q, must: map(q.must), should: map(q.should), filter: map(q.filter), mustNot: map(q.mustNot) };
    }
    case 'dis_max':
      return { ...q, queries: q.queries.map((c) => replaceLookups(c, values)) };
    case 'constant_score':
      return { ...q, filter: replaceLookups(q.filter, values) };
    case 'multi_field':
      return { ...q, query: replaceLookups(q.query, values) };
    default:
      return q;
  }
}

/** The terms lookups of a query tree, in order. */
function collectLookups(q: Query, out: TermsLookupQuery[]): TermsLookupQuery[] {
  if (q.kind === 'terms_lookup') out.push(q);
  for (const c of subQueries(q)) collectLookups(c, out);
  return out;
}

const lookupKey = (l: TermsLookupQuery) => JSON.stringify([l.index, l.id, l.routing ?? null]);

/**
 * The request with its terms lookups (in `query` and rescore queries) resolved: each distinct
 * document is fetched once, concurrently. The request itself when it has none (a plain search pays
 * one walk of its query tree).
 * @throws EsError from the fetch (404 `index_not_found_exception` for a missing lookup index).
 */
export async function resolveTermsLookups(req: SearchRequest, fetch: LookupFetcher): Promise<SearchRequest> {
  const lookups = [req.query, ...req.rescore.map((r) => r.query)].flatMap((q) => collectLookups(q, []));
  if (lookups.length === 0) return req;
  const distinct = new Map<string, TermsLookupQuery>();
  for (const l of lookups) if (!distinct.has(lookupKey(l))) distinct.set(lookupKey(l), l);
  const fetched = await Promise.all([...distinct.values()].map((l) => fetch(l)));
  const sources = new Map([...distinct.keys()].map((k, i) => [k, fetched[i]]));
  const values = (l: TermsLookupQuery) => extractRawValues(l.path, sources.get(lookupKey(l)));
  return {
    ...req,
    query: replaceLookups(req.query, values),
    rescore: req.rescore.map((r) => ({ ...r, query: replaceLookups(r.query, values) })),
  };
}
