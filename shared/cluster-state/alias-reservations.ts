/**
 * Alias name reservations: one key per alias (keys.ts `ALIASES_PREFIX`) listing the indices the
 * alias names, rewritten in the same transaction as every index change that gains or loses the
 * alias, so that an index and an alias never share a name, even when two coordinators race (ES's
 * `AliasValidator` and `MetadataCreateIndexService` check the same within one cluster state update).
 * @see docs/cluster-state.md
 */
import { ALIAS_NAMES_INDEX, invalidAliasName } from '../../protocol/errors.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { isStateStoreError } from '../state-store/errors.ts';
import type { Compare, KeyValue, StateStore, TxnOp, TxnResult } from '../state-store/types.ts';
import { aliasKey, indexKey, INDICES_PREFIX } from './keys.ts';
import { noMasterBlock } from './no-master-block.ts';

/** The aliases of each index (absent: none), before or after a change. */
export type AliasesByIndex = Map<string, readonly string[]>;

/** The aliases an index's metadata names. */
export const aliasNamesOf = (m: IndexMetadata | undefined): string[] => Object.keys(m?.aliases ?? {});

/** The indices an alias reservation lists (its value: a sorted JSON array of index names). */
export function reservedIndices(kv: KeyValue | undefined): string[] {
  if (!kv) return [];
  try {
    const v = JSON.parse(kv.value) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The compares and ops that keep alias name reservations (read from `store`) in step with a change whose indices had
 * the aliases `before` and have `after` (a deleted index has none after): each alias that gains or
 * loses an index, or is `edited` on one, gets its reservation rewritten (deleted when no index is
 * left), compared on the revision read now, so two changes of one alias never both decide on the
 * same state; each alias that gains an index compares the index key of its name absent, unless
 * that index is deleted in the same change (`deleting`). `listed`: the indices the reservations
 * name now (the caller makes sure its decision saw each of them).
 * @throws EsError 503 when the store cannot be reached
 */
export async function reservationChanges(
  store: StateStore,
  before: AliasesByIndex,
  after: AliasesByIndex,
  deleting: readonly string[],
  edited: ReadonlySet<string> = new Set(),
): Promise<{ compare: Compare[]; ops: TxnOp[]; listed: string[] }> {
  const gained = new Map<string, Set<string>>();
  const lost = new Map<string, Set<string>>();
  for (const index of new Set([...before.keys(), ...after.keys()])) {
    const b = new Set(before.get(index) ?? []);
    const a = new Set(after.get(index) ?? []);
    for (const alias of a) if (!b.has(alias)) gained.set(alias, (gained.get(alias) ?? new Set()).add(index));
    for (const alias of b) if (!a.has(alias)) lost.set(alias, (lost.get(alias) ?? new Set()).add(index));
  }
  const compare: Compare[] = [];
  const ops: TxnOp[] = [];
  const listed: string[] = [];
  for (const alias of [...new Set([...gained.keys(), ...lost.keys(), ...edited])].sort()) {
    let kv: KeyValue | undefined;
    try {
      kv = await store.get(aliasKey(alias));
    } catch (err) {
      if (isStateStoreError(err)) throw noMasterBlock(err.message);
      throw err;
    }
    const next = new Set(reservedIndices(kv));
    listed.push(...next);
    for (const i of lost.get(alias) ?? []) next.delete(i);
    for (const i of gained.get(alias) ?? []) next.add(i);
    compare.push(kv ? { key: aliasKey(alias), modRevision: kv.modRevision } : { key: aliasKey(alias), createRevision: 0 });
    if (next.size > 0) ops.push({ op: 'put', key: aliasKey(alias), value: JSON.stringify([...next].sort()) });
    else if (kv) ops.push({ op: 'delete', key: aliasKey(alias) });
    if (gained.has(alias) && !deleting.includes(alias)) compare.push({ key: indexKey(alias), createRevision: 0 });
  }
  return { compare, ops, listed };
}

/**
 * After a failed txn: when an index now holds the name of an alias the txn would have added (an
 * index key compared absent exists, other than the change's `own` indices), the change fails as
 * ES's `AliasValidator` fails it.
 * @throws EsError 400 `invalid_alias_name_exception`
 */
export function failOnIndexNamedLikeAlias(r: TxnResult & { succeeded: false }, own: ReadonlySet<string>): void {
  for (const [key, kv] of r.current) {
    if (!kv || !key.startsWith(INDICES_PREFIX)) continue;
    const name = key.slice(INDICES_PREFIX.length);
    if (!own.has(name)) throw invalidAliasName(name, ALIAS_NAMES_INDEX);
  }
}
