/**
 * ES `_source` filtering (`_source: false`, `_source: ["a.*"]`, `{includes, excludes}`), shared by
 * the shard fetch phase and the coordinator's GET _doc.
 *
 * Semantics (ES `XContentMapValues.filter`): patterns match full dotted paths, `*` matches any run
 * of characters (dots included, ES `Regex.simpleMatch`, see shared/wildcard.ts); an included object keeps its whole subtree; excludes win over
 * includes; objects inside arrays are filtered element-wise and dropped when they end up empty.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-fields.html#source-filtering
 */
import { parsingException } from './errors.ts';
import { isObject, tokenName } from './params.ts';
import type { SourceFilter } from './protocol.ts';
import { setOwn } from './own-keys.ts';
import { wildcardCanMatchPrefix, wildcardMatch } from './wildcard.ts';

interface Compiled {
  includes: string[];
  excludes: string[];
}

function filterValue(value: unknown, path: string, c: Compiled, included: boolean): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      if (v !== null && typeof v === 'object') {
        const fv = filterValue(v, path, c, included);
        if (fv !== undefined && (included || Object.keys(fv as object).length > 0 || Array.isArray(fv))) out.push(fv);
      } else if (included) out.push(v);
    }
    return out.length > 0 || included ? out : undefined;
  }
  if (value !== null && typeof value === 'object') {
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
      if (v === null || typeof v !== 'object') continue;
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
