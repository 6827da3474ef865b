/**
 * The read side of the alias APIs, built from the indices' metadata: `GET /_alias` (and its index
 * and name forms, `HEAD` for `indices.exists_alias`), the `aliases` of `GET /{index}`, and the rows
 * of `_cat/aliases`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-get-alias.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cat-alias.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/action/admin/indices/RestGetAliasesAction.java
 */
import type { AliasMetadata, IndexMetadata } from '../../../protocol/metadata.ts';
import { wildcardMatch } from '../../../shared/wildcard.ts';
import type { CatCell, CatColumn } from '../../http/cat-table.ts';
import { matchAliases } from './alias-actions.ts';

/** An index's aliases as ES prints them: by name, sorted (`AliasMetadata.toXContent` each). */
export function aliasesOf(m: IndexMetadata, names: readonly string[] | null = null): Record<string, AliasMetadata> {
  const all = Object.keys(m.aliases ?? {}).sort();
  const selected = names === null ? all : matchAliases(names, all);
  return Object.fromEntries(selected.map((a) => [a, m.aliases![a]]));
}

/** Whether a requested alias name is a pattern (ES `Regex.isSimpleMatchPattern`, or `_all`). */
const isPattern = (name: string): boolean => name.includes('*') || name === '_all';

/**
 * The explicitly requested alias names that the answer lacks (ES `RestGetAliasesAction.buildRestResponse`):
 * patterns, `_all` and `-exclusions` after the first pattern are never missing, nor a name a later
 * exclusion removes.
 */
export function missingAliases(requested: readonly string[], returned: ReadonlySet<string>): string[] {
  const firstPattern = requested.findIndex((n) => n.includes('*'));
  const first = firstPattern < 0 ? requested.length : firstPattern;
  const missing = new Set<string>();
  requested.forEach((name, i) => {
    if (isPattern(name) || (i > first && name.startsWith('-'))) return;
    for (let j = Math.max(i + 1, first); j < requested.length; j++) {
      const r = requested[j];
      if (r.startsWith('-') && (wildcardMatch(r.slice(1), name) || r.slice(1) === '_all')) return;
    }
    if (!returned.has(name)) missing.add(name);
  });
  return [...missing].sort();
}

/**
 * The `GET /_alias` answer over `indices` (sorted): each index with the aliases `names` select
 * (null: no names asked, every index is listed, even without aliases; with names, only the indices
 * that have a selected alias). An explicitly requested name no index has makes it a 404 whose body
 * starts with `error` (`alias [a] missing` / `aliases [a,b] missing`) and `status`, then the rest.
 */
export function getAliasesAnswer(indices: readonly IndexMetadata[], names: readonly string[] | null): { status: number; body: Record<string, unknown> } {
  const entries: [string, { aliases: Record<string, AliasMetadata> }][] = [];
  const returned = new Set<string>();
  const patterns = names === null || (names.length === 1 && names[0] === '_all') ? null : names;
  for (const m of indices) {
    const aliases = aliasesOf(m, patterns);
    for (const a of Object.keys(aliases)) returned.add(a);
    if (names !== null && Object.keys(aliases).length === 0) continue;
    entries.push([m.name, { aliases }]);
  }
  const missing = names === null ? [] : missingAliases(names, returned);
  if (missing.length === 0) return { status: 200, body: Object.fromEntries(entries) };
  const error = missing.length === 1 ? `alias [${missing[0]}] missing` : `aliases [${missing.join(',')}] missing`;
  return { status: 404, body: { error, status: 404, ...Object.fromEntries(entries) } };
}

/** `_cat/aliases` columns (ES `RestAliasAction.getTableWithHeader`). */
export const CAT_ALIASES_COLUMNS: readonly CatColumn[] = [
  { name: 'alias', aliases: ['a'], desc: 'alias name' },
  { name: 'index', aliases: ['i', 'idx'], desc: 'index alias points to' },
  { name: 'filter', aliases: ['f', 'fi'], desc: 'filter' },
  { name: 'routing.index', aliases: ['ri', 'routingIndex'], desc: 'index routing' },
  { name: 'routing.search', aliases: ['rs', 'routingSearch'], desc: 'search routing' },
  { name: 'is_write_index', aliases: ['w', 'isWriteIndex'], desc: 'write index' },
];

/**
 * The `_cat/aliases` rows of `indices`, the aliases `names` select (null: all), sorted by alias then
 * index: `filter` is `*` when the alias filters, routings and `is_write_index` are `-` when unset.
 */
export function catAliasesRows(indices: readonly IndexMetadata[], names: readonly string[] | null): CatCell[][] {
  const rows: CatCell[][] = [];
  for (const m of indices) {
    for (const [alias, md] of Object.entries(aliasesOf(m, names))) {
      rows.push([
        alias,
        m.name,
        md.filter ? '*' : '-',
        md.index_routing || '-',
        md.search_routing || '-',
        md.is_write_index === undefined ? '-' : String(md.is_write_index),
      ]);
    }
  }
  return rows.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : a[1]! < b[1]! ? -1 : a[1]! > b[1]! ? 1 : 0));
}
