/**
 * ES `filter_path`: trims a JSON response to the listed paths, as `FilterPath` and
 * `FilterPathBasedFilter` do in XContent.
 *
 * - `a.b.c` keeps that path; arrays are transparent (the rest of the path applies to each element).
 * - `*` inside a segment matches any characters of one field name (`hits.hits._sou*`, `*.total`).
 * - `**` matches one or more levels (`**.name`, `hits.**`): as in ES, `**.name` finds `name` below
 *   the top level, not a top-level `name`.
 * - `\.` is a literal dot inside a segment (`b\.c` keeps the field named `b.c`).
 * - `-a.b` excludes a path. Exclusions apply first, then inclusions (ES's documented order).
 * - A container that ends up empty because nothing under it matched is dropped; a value matched by a
 *   whole path is kept as it is, even when it is empty.
 *
 * The paths are compiled into ES's trie (a node per distinct prefix, literal children in a map,
 * wildcard children in a list) and walked as a set of nodes per JSON level, deduplicated, so a
 * field costs at most one map lookup and one wildcard match per live node: `**.**.…(120×).x` costs
 * 121 nodes per field, where the old recursive walk (one branch per way to split the levels between
 * the `**`s) ran out of memory.
 *
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/common-options.html#common-options-response-filtering
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/x-content/src/main/java/org/elasticsearch/xcontent/support/filtering/FilterPath.java
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/x-content/src/main/java/org/elasticsearch/xcontent/support/filtering/FilterPathBasedFilter.java
 * @example applyFilterPath({ took: 1, hits: { total: 2 } }, parseFilterPath('hits.total')) // { hits: { total: 2 } }
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { isJsonContainer } from '../../shared/exact-json.ts';
import { setOwn } from '../../shared/own-keys.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';

/**
 * The longest `filter_path` value accepted, in characters. ES has no limit of its own, but its whole
 * HTTP request line is capped at `http.max_initial_line_length` (4kb by default), so no ES client
 * sends a longer one.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-network.html#http-settings
 */
export const MAX_FILTER_PATH_CHARS = 4096;

/** One node of the filter trie: the prefix of the paths that lead to it. */
interface Node {
  /** A path ends here: the field that reached this node is kept (or dropped) whole. */
  final: boolean;
  /** This node was reached by a `**` segment, which also consumes any further level. */
  doubleWildcard: boolean;
  /** Children by literal segment (a Map, so `constructor` or `__proto__` is a field like any other). */
  terms: Map<string, Node>;
  /** Children whose segment holds a `*`, with their pattern. */
  wildcards: { pattern: string; node: Node }[];
}

/** A parsed `filter_path`: the trie of the paths to keep (null = keep all) and of the paths to drop. */
export interface FilterPath {
  includes: Node | null;
  excludes: Node | null;
}

function newNode(doubleWildcard: boolean): Node {
  return { final: false, doubleWildcard, terms: new Map(), wildcards: [] };
}

/**
 * Splits one path as ES's `FilterPathBuilder.insertNode`: at each unescaped `.` that is not the
 * first character of what is left (so `a..b` is `a` then `.b`, and a trailing `.` leaves an empty
 * last segment), with `\.` turned into a literal dot.
 */
function segmentsOf(path: string): string[] {
  const out: string[] = [];
  let rest = path;
  for (;;) {
    let split = -1;
    for (let i = 0; i < rest.length; i++) {
      const c = rest[i];
      if (c === '.') {
        split = i;
        break;
      }
      if (c === '\\' && rest[i + 1] === '.') i++;
    }
    if (split <= 0) {
      out.push(rest.replaceAll('\\.', '.'));
      return out;
    }
    out.push(rest.slice(0, split).replaceAll('\\.', '.'));
    rest = rest.slice(split + 1);
  }
}

/** Builds the trie of `paths`. A path that ends at a node makes it final; nothing below a final node matters. */
function buildTrie(paths: readonly string[]): Node | null {
  if (paths.length === 0) return null;
  const root = newNode(false);
  for (const path of paths) {
    let node = root;
    for (const seg of segmentsOf(path)) {
      if (node.final) break;
      let child: Node | undefined;
      if (seg.includes('*')) {
        child = node.wildcards.find((w) => w.pattern === seg)?.node;
        if (!child) node.wildcards.push({ pattern: seg, node: (child = newNode(seg === '**')) });
      } else {
        child = node.terms.get(seg);
        if (!child) node.terms.set(seg, (child = newNode(false)));
      }
      node = child;
    }
    node.final = true;
    node.terms.clear();
    node.wildcards.length = 0;
  }
  return root;
}

/**
 * Parses the comma-separated `filter_path` value (ES `Strings.tokenizeByCommaToSet`: entries are
 * trimmed, empty ones ignored; a leading `-` makes an exclusion).
 * @throws EsError 400 `illegal_argument_exception` when the value is longer than {@link MAX_FILTER_PATH_CHARS}.
 */
export function parseFilterPath(value: string): FilterPath {
  if (value.length > MAX_FILTER_PATH_CHARS) {
    throw illegalArgument(`[filter_path] is too long: [${value.length}] characters, the limit is [${MAX_FILTER_PATH_CHARS}]`);
  }
  const includes: string[] = [];
  const excludes: string[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (entry.startsWith('-')) {
      const path = entry.slice(1).trim();
      if (path !== '') excludes.push(path);
    } else includes.push(entry);
  }
  return { includes: buildTrie(includes), excludes: buildTrie(excludes) };
}

/** True when no path was given (the response goes out untouched). */
export function isEmptyFilter(filter: FilterPath): boolean {
  return filter.includes === null && filter.excludes === null;
}

/** A per-level set of live trie nodes. */
type Live = readonly Node[];

/**
 * ES `FilterPath.matches` over every live node, deduplicated: `full` when some path ends at the
 * field `name` (its whole value is selected), else the nodes live below it (empty: nothing can match).
 */
function step(live: Live, name: string): { full: boolean; next: Node[] } {
  const next: Node[] = [];
  const seen = new Set<Node>();
  const add = (n: Node): void => {
    if (!seen.has(n)) {
      seen.add(n);
      next.push(n);
    }
  };
  for (const node of live) {
    const term = node.terms.get(name);
    if (term) {
      if (term.final) return { full: true, next: [] };
      add(term);
    }
    for (const w of node.wildcards) {
      if (!wildcardMatch(w.pattern, name)) continue;
      if (w.node.final) return { full: true, next: [] };
      add(w.node);
    }
    if (node.doubleWildcard) add(node);
  }
  return { full: false, next };
}

/** Keeps what the live nodes select in `value`; undefined when nothing is selected. */
function include(value: unknown, live: Live): unknown {
  if (Array.isArray(value)) {
    const out = value.map((v) => include(v, live)).filter((v) => v !== undefined);
    return out.length > 0 ? out : undefined;
  }
  if (!isJsonContainer(value)) return undefined;
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const { full, next } = step(live, k);
    const picked = full ? v : next.length > 0 ? include(v, next) : undefined;
    if (picked !== undefined) {
      setOwn(out, k, picked); // a `__proto__` key stays a field
      kept++;
    }
  }
  return kept > 0 ? out : undefined;
}

/** Drops what the live nodes select in `value`; containers left empty are kept (only matched fields go). */
function exclude(value: unknown, live: Live): unknown {
  if (Array.isArray(value)) return value.map((v) => exclude(v, live));
  if (!isJsonContainer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const { full, next } = step(live, k);
    if (full) continue;
    setOwn(out, k, next.length > 0 ? exclude(v, next) : v);
  }
  return out;
}

/**
 * Applies a parsed `filter_path` to a response body. A body from which every field was filtered
 * out becomes `{}` (ES sends an empty object). The work per JSON field is bounded by the number of
 * trie nodes (at most the number of segments in the filter).
 */
export function applyFilterPath(body: unknown, filter: FilterPath): unknown {
  if (isEmptyFilter(filter)) return body;
  let out = filter.excludes ? exclude(body, [filter.excludes]) : body;
  if (filter.includes) out = include(out, [filter.includes]);
  if (out === undefined) return Array.isArray(body) ? [] : {};
  return out;
}
