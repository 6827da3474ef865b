/**
 * The primary's optimistic concurrency decision for one write (pure functions): whether a write's
 * conditions (`if_seq_no` + `if_primary_term`, or an external `version`) hold against what the
 * live version map has for its `_id`, and which version the write gives the document. The shard
 * calls them synchronously between reading the `_id`'s state and applying the write, which is
 * ES's per-`_id` lock (`InternalEngine.planIndexingAsPrimary`, `planDeletionAsPrimary`); replicas
 * never call them, they apply the version and seq_no the primary decided.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/engine/InternalEngine.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/VersionType.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/optimistic-concurrency-control.html
 */
import { EsError } from '../../protocol/errors.ts';
import { ownValue, setOwn } from '../../shared/own-keys.ts';
import type { WriteConditions } from '../../protocol/write.ts';

/**
 * What the live version map holds for an `_id` when a write is planned: its last change's version
 * and seq_no, and whether that change was a delete (a tombstone). Undefined: nothing known (never
 * written, or its tombstone was pruned after `index.gc_deletes`).
 */
export interface CurrentVersion {
  version: number;
  seqNo: number;
  deleted: boolean;
}

/**
 * ES `VersionConflictEngineException`: 409 `version_conflict_engine_exception` with ES's reason,
 * `[<id>]: version conflict, <explanation>`.
 */
export function versionConflict(id: string, explanation: string): EsError {
  return new EsError(409, 'version_conflict_engine_exception', `[${id}]: version conflict, ${explanation}`);
}

/**
 * Throws ES's conflict when `cond` does not hold for the `_id`'s `current` state.
 * - `ifSeqNo`/`ifPrimaryTerm`: the live document must carry both (`primaryTerm` is the term Folio
 *   reports for every document of the shard, see `Shard.primaryTerm`); a missing or deleted one is
 *   a conflict `... but no document was found`.
 * - `version` with `external`: the current version (a tombstone's too) must be lower than it; with
 *   `external_gte`, not higher. A document never written (or whose tombstone is gone) has no version,
 *   so any external version is accepted.
 * @throws EsError 409 `version_conflict_engine_exception`
 */
export function checkWriteConditions(id: string, cond: WriteConditions, current: CurrentVersion | undefined, primaryTerm: number): void {
  if (cond.ifSeqNo !== undefined) {
    const term = cond.ifPrimaryTerm ?? 0;
    const required = `required seqNo [${cond.ifSeqNo}], primary term [${term}].`;
    if (current === undefined || current.deleted) throw versionConflict(id, `${required} but no document was found`);
    if (current.seqNo !== cond.ifSeqNo || primaryTerm !== term) {
      throw versionConflict(id, `${required} current document has seqNo [${current.seqNo}] and primary term [${primaryTerm}]`);
    }
    return;
  }
  if (cond.versionType === undefined || cond.version === undefined || current === undefined) return;
  if (cond.versionType === 'external' && current.version >= cond.version) {
    throw versionConflict(id, `current version [${current.version}] is higher or equal to the one provided [${cond.version}]`);
  }
  if (cond.versionType === 'external_gte' && current.version > cond.version) {
    throw versionConflict(id, `current version [${current.version}] is higher than the one provided [${cond.version}]`);
  }
}

/**
 * The version a write gives the document (ES `VersionType.updateVersion`): the external version
 * when one is given, else the current version plus one (a tombstone's too, so a re-created
 * document continues the sequence), or 1.
 */
export function nextVersion(cond: WriteConditions, current: CurrentVersion | undefined): number {
  if (cond.versionType !== undefined && cond.version !== undefined) return cond.version;
  return current ? current.version + 1 : 1;
}

/**
 * ES `XContentHelper.update`, the merge of an update's partial `doc` into the stored source: objects
 * merge recursively, any other value (arrays included) replaces the old one. `modified` is false
 * when nothing changed (`detectNoop`: values compared; without it any field present counts as a
 * change, as in ES where `detect_noop: false` still answers `noop` for an empty `doc`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-update.html#_detect_noop_updates
 */
export function mergeUpdate(
  base: Record<string, unknown>,
  changes: Record<string, unknown>,
  detectNoop: boolean,
): { merged: Record<string, unknown>; modified: boolean } {
  const merged: Record<string, unknown> = { ...base };
  let modified = false;
  for (const [k, v] of Object.entries(changes)) {
    if (!Object.hasOwn(merged, k)) {
      setOwn(merged, k, v);
      modified = true;
      continue;
    }
    const old = ownValue(merged, k);
    if (isObject(old) && isObject(v)) {
      const inner = mergeUpdate(old, v, detectNoop && !modified);
      setOwn(merged, k, inner.merged);
      modified ||= inner.modified;
      continue;
    }
    setOwn(merged, k, v);
    if (!modified) modified = !detectNoop || !sameValue(old, v);
  }
  return { merged, modified };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Java `Objects.equals` on parsed JSON: maps compare by entries whatever their order, lists in order. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameValue(ownValue(a, k), ownValue(b, k)));
  }
  return false;
}
