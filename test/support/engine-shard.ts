/**
 * Test helpers: a shard wired to a private mapping, and query/sort builders with ES defaults.
 */
import { mergeMappings } from '../../shared/dynamic-mapping.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import type { Query } from '../../protocol/query-ast.ts';
import type { SortField } from '../../protocol/sort.ts';
import { Shard } from '../../shard-node/engine/shard.ts';
import type { WriteOp } from '../../protocol/write.ts';

/** A shard whose index mapping starts as `mapping` and grows dynamically. */
export function newShard(mapping: Mapping = { properties: {} }, now?: () => number): { shard: Shard; mapping: () => Mapping } {
  let m = mapping;
  const shard = new Shard({ index: 'idx', shard: 0, getMapping: () => m, updateMapping: (u) => (m = mergeMappings(m, u)), now });
  return { shard, mapping: () => m };
}

/** Indexes docs `{_id, ...source}` and refreshes. */
export function load(shard: Shard, docs: Record<string, unknown>[]): void {
  const r = shard.apply(docs.map(({ _id, ...source }) => ({ op: 'index', _id: String(_id), source: JSON.stringify(source), create: false })));
  const bad = r.find((x) => x.error);
  if (bad) throw new Error(JSON.stringify(bad));
  shard.refresh();
}

/**
 * Indexes `docs` (`_id` and `_source` object each) in batches of `batch`, refreshing after each, as a
 * bulk load with periodic refreshes makes segments. Takes any shard with `apply` and `refresh`, so a
 * bench can load an engine of another checkout with it (bench/compact-postings.ts).
 */
export function indexInBatches(shard: Pick<Shard, 'apply' | 'refresh'>, docs: Iterable<{ _id: string; source: unknown }>, batch = 5000): void {
  let ops: WriteOp[] = [];
  for (const d of docs) {
    ops.push({ op: 'index', _id: d._id, source: JSON.stringify(d.source), create: false });
    if (ops.length === batch) {
      shard.apply(ops);
      shard.refresh();
      ops = [];
    }
  }
  if (ops.length > 0) shard.apply(ops);
  shard.refresh();
}

/** A field sort clause with ES defaults (mode min for asc, max for desc). */
export function byField(field: string, order: 'asc' | 'desc' = 'asc', extra: Partial<SortField> = {}): SortField {
  return { kind: 'field', field, order, missing: '_last', mode: order === 'asc' ? 'min' : 'max', ...extra };
}

/** Query builders with default boost 1. */
export const q = {
  all: (): Query => ({ kind: 'match_all', boost: 1 }),
  match: (field: string, query: string, extra: Partial<Extract<Query, { kind: 'match' }>> = {}): Query => ({
    kind: 'match',
    field,
    query,
    operator: 'or',
    boost: 1,
    ...extra,
  }),
  term: (field: string, value: string | number | boolean, extra = {}): Query => ({ kind: 'term', field, value, caseInsensitive: false, boost: 1, ...extra }),
  bool: (c: Partial<Extract<Query, { kind: 'bool' }>>): Query => ({ kind: 'bool', must: [], should: [], filter: [], mustNot: [], boost: 1, ...c }),
};
