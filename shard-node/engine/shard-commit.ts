/**
 * A shard copy's commit (Lucene's `IndexWriter.commit`, the commit ES's flush makes): what the
 * durable store writes as segment files and a commit point (shard-node/storage/segment-commits.ts),
 * taken synchronously from the shard's state, and the state a restart rebuilds from one. A commit
 * names the sealed segments with their deleted docs, the delete tombstones of the live version
 * map, the mapping, and `seqNo`: every op at or below it is reflected in them, so a restart
 * replays only the translog above it (ES replays the translog above the safe commit's
 * `local_checkpoint`). Writes not refreshed yet are not in it: `seqNo` stays below the oldest of
 * them, and the translog keeps them.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-flush.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/engine/InternalEngine.java
 */
import type { FieldMapping, Mapping } from '../../protocol/mapping.ts';
import type { Segment } from './segment.ts';
import type { ShardState } from './shard-state.ts';

/** A delete tombstone of the live version map (ES keeps them as soft-deleted Lucene docs). */
export interface CommitTombstone {
  id: string;
  version: number;
  seqNo: number;
}

/** One segment of a commit and the ordinals deleted in it (Lucene's live docs, inverted). */
export interface CommitSegment {
  segment: Segment;
  /** Deleted doc ordinals, ascending (empty: all live). */
  deleted: Int32Array;
}

/** What a commit holds ({@link takeCommit}; the store writes it, a restart reads it back). */
export interface ShardCommit {
  segments: CommitSegment[];
  tombstones: CommitTombstone[];
  /** Every op with seq_no ≤ this is reflected in the segments and tombstones. */
  seqNo: number;
  /** The highest seq_no of a live doc or tombstone in the commit, or `seqNo` when higher. */
  maxSeqNo: number;
  /** The index mapping when it was taken (a restart adds the fields the index metadata lacks). */
  mapping: Mapping;
}

/**
 * The shard's commit now: its segments with their deleted docs, its tombstones, and the highest
 * seq_no below which every op is in them: the local checkpoint, or just below the oldest
 * unrefreshed write when lower. Synchronous, so a refresh or merge is wholly before or after it.
 */
export function takeCommit(s: ShardState): ShardCommit {
  let seqNo = s.checkpoints.checkpoint;
  const tombstones: CommitTombstone[] = [];
  let maxSeqNo = -1;
  for (const [id, e] of s.versions.entries) {
    if (e.buf) seqNo = Math.min(seqNo, e.seqNo - 1);
    else if (e.deleted) {
      tombstones.push({ id, version: e.version, seqNo: e.seqNo });
      maxSeqNo = Math.max(maxSeqNo, e.seqNo);
    }
  }
  const segments: CommitSegment[] = [];
  for (const st of s.segs) {
    const deleted: number[] = [];
    const seqNos = st.segment.seqNos;
    for (let d = 0; d < st.segment.maxDoc; d++) {
      if (st.live && !st.live[d]) deleted.push(d);
      else if (seqNos[d] > maxSeqNo) maxSeqNo = seqNos[d];
    }
    segments.push({ segment: st.segment, deleted: Int32Array.from(deleted) });
  }
  return { segments, tombstones, seqNo, maxSeqNo: Math.max(maxSeqNo, seqNo), mapping: s.getMapping() };
}

/**
 * Rebuilds a new, empty shard's state from a commit: its segments (with their deletes), its
 * tombstones (aged from now, as a replayed delete is), its max seq_no, and the mapping fields the
 * index metadata lacks (a dynamic update the commit saw). The caller replays the translog above
 * `commit.seqNo` and refreshes, which publishes the segments.
 * @returns the `_id` states restored (live docs and tombstones: one op each, as a snapshot row is)
 */
export function openCommit(s: ShardState, commit: ShardCommit): number {
  let restored = commit.tombstones.length;
  const missing = missingFields(s.getMapping().properties ?? {}, commit.mapping.properties ?? {});
  if (missing) s.updateMapping({ properties: missing });
  for (const { segment, deleted } of commit.segments) {
    let live: Uint8Array | null = null;
    if (deleted.length > 0) {
      live = new Uint8Array(segment.maxDoc).fill(1);
      for (const d of deleted) live[d] = 0;
    }
    const liveCount = segment.maxDoc - deleted.length;
    restored += liveCount;
    if (liveCount > 0) s.segs.push({ segment, live, shared: false, liveCount });
  }
  const now = s.now();
  for (const t of commit.tombstones)
    s.versions.entries.set(t.id, {
      version: t.version,
      seqNo: t.seqNo,
      deleted: true,
      seg: null,
      buf: null,
      ord: -1,
      deletedAt: now,
      generation: s.tombstoneGeneration(),
    });
  if (commit.maxSeqNo > s.seqNo) s.seqNo = commit.maxSeqNo;
  s.dirty = true;
  return restored;
}

/** The fields (recursively, with multi-fields) of `stored` that `current` lacks; null when none. */
function missingFields(current: Record<string, FieldMapping>, stored: Record<string, FieldMapping>): Record<string, FieldMapping> | null {
  let out: Record<string, FieldMapping> | null = null;
  for (const [name, fm] of Object.entries(stored)) {
    const have = Object.hasOwn(current, name) ? current[name] : undefined;
    if (!have) {
      (out ??= {})[name] = fm;
      continue;
    }
    const props = fm.properties && missingFields(have.properties ?? {}, fm.properties);
    const fields = fm.fields && missingFields(have.fields ?? {}, fm.fields);
    if (props || fields) (out ??= {})[name] = { ...have, ...(props ? { properties: props } : {}), ...(fields ? { fields } : {}) };
  }
  return out;
}
