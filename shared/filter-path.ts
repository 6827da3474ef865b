/**
 * ES `filter_path`: trims a JSON response to the listed paths, as `FilterPath` and
 * `FilterPathBasedFilter` do in XContent.
 *
 * - `a.b.c` keeps that path; arrays are transparent (the rest of the path applies to each element).
 * - `*` inside a segment matches any characters of one field name (`hits.hits._sou*`, `*.total`).
 * - `**` matches any number of levels (`**.name`, `hits.**`).
 * - `-a.b` excludes a path. Exclusions apply first, then inclusions (ES's documented order).
 * - A container that ends up empty because nothing under it matched is dropped; a value matched by a
 *   whole path is kept as it is, even when it is empty.
 *
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/common-options.html#common-options-response-filtering
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/x-content/src/main/java/org/elasticsearch/xcontent/support/filtering/FilterPath.java
 * @example applyFilterPath({ took: 1, hits: { total: 2 } }, parseFilterPath('hits.total')) // { hits: { total: 2 } }
 */

/** One path as its segments (`['hits', 'hits', '_id']`); a `**` segment spans any depth. */
type Path = readonly string[];

/** A parsed `filter_path`: the paths to keep (none = keep all) and the paths to drop. */
export interface FilterPath {
  includes: Path[];
  excludes: Path[];
}

/** Parses the comma-separated `filter_path` value. Empty entries are ignored. */
export function parseFilterPath(value: string): FilterPath {
  const includes: Path[] = [];
  const excludes: Path[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '' || entry === '-') continue;
    const exclude = entry.startsWith('-');
    const segments = (exclude ? entry.slice(1) : entry).split('.').filter((s) => s !== '');
    if (segments.length === 0) continue;
    (exclude ? excludes : includes).push(segments);
  }
  return { includes, excludes };
}

/** True when no path was given (the response goes out untouched). */
export function isEmptyFilter(filter: FilterPath): boolean {
  return filter.includes.length === 0 && filter.excludes.length === 0;
}

const patternCache = new Map<string, RegExp>();

/** ES `Regex.simpleMatch`: `*` matches any run of characters, everything else is literal. */
function segmentMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  let re = patternCache.get(pattern);
  if (!re) {
    re = new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$', 's');
    if (patternCache.size < 1000) patternCache.set(pattern, re);
  }
  return re.test(name);
}

/**
 * What remains of `paths` below the field `name`: `full` when some path ends at this field
 * (the whole value matches), else the remaining paths (empty when nothing can match below).
 */
function descend(paths: readonly Path[], name: string): { full: boolean; rest: Path[] } {
  const rest: Path[] = [];
  let full = false;
  const visit = (p: Path): void => {
    if (p[0] === '**') {
      if (p.length === 1) {
        full = true;
        return;
      }
      rest.push(p); // `**` consumes this level and stays
      visit(p.slice(1)); // or matches zero levels
      return;
    }
    if (!segmentMatches(p[0], name)) return;
    if (p.length === 1) full = true;
    else rest.push(p.slice(1));
  };
  for (const p of paths) visit(p);
  return { full, rest };
}

/** Keeps what `paths` select in `value`; undefined when nothing is selected. */
function include(value: unknown, paths: readonly Path[]): unknown {
  if (Array.isArray(value)) {
    const out = value.map((v) => include(v, paths)).filter((v) => v !== undefined);
    return out.length > 0 ? out : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const [k, v] of Object.entries(value)) {
    const { full, rest } = descend(paths, k);
    const picked = full ? v : rest.length > 0 ? include(v, rest) : undefined;
    if (picked !== undefined) {
      out[k] = picked;
      kept++;
    }
  }
  return kept > 0 ? out : undefined;
}

/** Drops what `paths` select in `value`; containers left empty are kept (only matched fields go). */
function exclude(value: unknown, paths: readonly Path[]): unknown {
  if (Array.isArray(value)) return value.map((v) => exclude(v, paths));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const { full, rest } = descend(paths, k);
    if (full) continue;
    out[k] = rest.length > 0 ? exclude(v, rest) : v;
  }
  return out;
}

/**
 * Applies a parsed `filter_path` to a response body. A body from which every field was filtered
 * out becomes `{}` (ES sends an empty object).
 */
export function applyFilterPath(body: unknown, filter: FilterPath): unknown {
  if (isEmptyFilter(filter)) return body;
  let out = filter.excludes.length > 0 ? exclude(body, filter.excludes) : body;
  if (filter.includes.length > 0) out = include(out, filter.includes);
  if (out === undefined) return Array.isArray(body) ? [] : {};
  return out;
}
