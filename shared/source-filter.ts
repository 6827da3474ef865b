/**
 * ES `_source` filtering (`_source: false`, `_source: ["a.*"]`, `{includes, excludes}`), shared by
 * the shard fetch phase and the coordinator's GET _doc (the request's `_source` is parsed by
 * coordinator/rest/source-filter-parse.ts).
 *
 * Semantics (ES `XContentMapValues.filter`): patterns match full dotted paths, `*` matches any run
 * of characters (dots included, ES `Regex.simpleMatch`, see shared/wildcard.ts); an included object keeps its whole subtree; excludes win over
 * includes; objects inside arrays are filtered element-wise and dropped when they end up empty.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-fields.html#source-filtering
 */
import type { SourceFilter } from '../protocol/search.ts';
import { setOwn } from './own-keys.ts';
import { wildcardCanMatchPrefix, wildcardMatch } from './wildcard.ts';
import { isJsonContainer as isContainer } from './exact-json.ts';

interface Compiled {
  includes: string[];
  excludes: string[];
}

function filterValue(value: unknown, path: string, c: Compiled, included: boolean): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      if (isContainer(v)) {
        const fv = filterValue(v, path, c, included);
        if (fv !== undefined && (included || Object.keys(fv as object).length > 0 || Array.isArray(fv))) out.push(fv);
      } else if (included) out.push(v);
    }
    return out.length > 0 || included ? out : undefined;
  }
  if (isContainer(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const p = path === '' ? k : `${path}.${k}`;
      if (c.excludes.some((e) => wildcardMatch(e, p))) continue;
      const inc = included || c.includes.some((i) => wildcardMatch(i, p));
      if (inc) {
        const fv = c.excludes.length > 0 ? filterValue(v, p, c, true) : v;
        if (fv !== undefined) setOwn(out, k, fv);
        continue;
      }
      if (!isContainer(v)) continue;
      if (!c.includes.some((i) => wildcardCanMatchPrefix(i, p + '.'))) continue;
      const fv = filterValue(v, p, c, false);
      if (fv === undefined) continue;
      if (Array.isArray(fv) ? fv.length > 0 : Object.keys(fv as object).length > 0) setOwn(out, k, fv);
    }
    return out;
  }
  return included ? value : undefined;
}

/**
 * Applies an ES `_source` filter to a document source. Returns the source itself for `true` (or
 * no patterns), `undefined` for `false` (the hit then has no `_source`), else a filtered copy.
 * @example filterSource({a: {b: 1, c: 2}, d: 3}, {includes: ['a.*'], excludes: ['a.c']}) // {a: {b: 1}}
 */
export function filterSource(source: Record<string, unknown>, filter: SourceFilter): Record<string, unknown> | undefined {
  if (filter === false) return undefined;
  if (filter === true) return source;
  const includes = filter.includes ?? [];
  const excludes = filter.excludes ?? [];
  if (includes.length === 0 && excludes.length === 0) return source;
  const c: Compiled = { includes, excludes };
  return filterValue(source, '', c, includes.length === 0) as Record<string, unknown>;
}
