/**
 * Field aliases on the shard (ES `FieldAliasMapper`: `{"type": "alias", "path": "x"}`): a sort,
 * a `collapse` or an aggregation on an alias reads its path, as ES resolves an alias to its
 * target's field type before it reads doc values. Queries resolve aliases while they compile
 * (query-compile.ts); `fields` and `docvalue_fields` read the path but show the alias name
 * (shared/field-fetcher.ts). Without aliases in the mapping every function returns its input
 * unchanged, so a search without them pays nothing.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/field-alias.html
 */
import type { AggNode } from '../../protocol/agg-request.ts';
import type { ShardCollapse } from '../../protocol/search.ts';
import type { SortField } from '../../protocol/sort.ts';

/** Alias full name → target path (protocol/mapping.ts `aliasesOf`). */
export type FieldAliases = ReadonlyMap<string, string>;

/** Resolved copies per alias map and input, so a request resolved in two phases keeps one object (the plan caches key on it). */
const memo = new WeakMap<FieldAliases, WeakMap<object, unknown>>();

function remember<T extends object>(aliases: FieldAliases, input: T, build: () => T): T {
  let m = memo.get(aliases);
  if (!m) memo.set(aliases, (m = new WeakMap()));
  let out = m.get(input) as T | undefined;
  if (out === undefined) m.set(input, (out = build()));
  return out;
}

/** The sort with each field clause on an alias moved to the alias's path. */
export function resolveSortAliases(sort: SortField[], aliases: FieldAliases): SortField[] {
  if (aliases.size === 0 || !sort.some((f) => f.kind === 'field' && aliases.has(f.field))) return sort;
  return remember(aliases, sort, () => sort.map((f) => (f.kind === 'field' && aliases.has(f.field) ? { ...f, field: aliases.get(f.field)! } : f)));
}

/** A `collapse` on an alias, collapsing on the alias's path. */
export function resolveCollapseAlias(collapse: ShardCollapse, aliases: FieldAliases): ShardCollapse {
  const path = aliases.get(collapse.field);
  return path === undefined ? collapse : { ...collapse, field: path };
}

/** An aggregation tree with every `field` (composite sources and `top_hits` sorts included) that names an alias moved to its path. */
export function resolveAggAliases(nodes: readonly AggNode[], aliases: FieldAliases): readonly AggNode[] {
  if (aliases.size === 0) return nodes;
  return remember(aliases, nodes as AggNode[], () => nodes.map((n) => resolveNode(n, aliases)));
}

function resolveNode(n: AggNode, aliases: FieldAliases): AggNode {
  const out = { ...n, aggs: n.aggs.map((c) => resolveNode(c, aliases)) } as AggNode & { field?: string };
  if (typeof out.field === 'string' && aliases.has(out.field)) out.field = aliases.get(out.field)!;
  if (out.type === 'composite') out.sources = out.sources.map((s) => (aliases.has(s.field) ? { ...s, field: aliases.get(s.field)! } : s));
  if (out.type === 'top_hits') out.sort = resolveSortAliases(out.sort, aliases);
  return out;
}
