/**
 * One shard of one index: the write path (ES `index`/`create`/`update`/`delete` semantics with
 * versions and sequence numbers), the in-memory buffer made searchable by `refresh()` (ES near-real-
 * time search), copy-on-write live docs, merges, real-time `get`, and retained generations for
 * multi-phase searches and point-in-time readers.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/near-real-time.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-index_.html
 */
import { hashId } from './storage/id-hash.ts';
import { randomUUID } from 'node:crypto';
import { inferMappingUpdate } from '../../shared/dynamic-mapping.ts';
import { EsError, searchContextMissing } from '../../shared/errors.ts';
import type { Mapping } from '../../shared/mapping.ts';
import type { WriteOp, WriteResult } from '../../shared/protocol.ts';
import { parseDocument } from './doc-parser.ts';
import { Generation } from './generation.ts';
import type { Segment } from './segment.ts';
import { SegmentBuilder } from './segment.ts';
import type { SegmentView } from './segment-merge.ts';
import { mergeSegments, selectMerge } from './segment-merge.ts';
import { LocalCheckpointTracker } from './local-checkpoint.ts';
import type { Translog, TranslogOp } from './translog.ts';
import { MemoryTranslog } from './translog.ts';

/** Constructor options of {@link Shard}. */
export interface ShardOptions {
  index: string;
  shard: number;
  /** The index-level mapping (shared by the shards of a node). */
  getMapping: () => Mapping;
  /** Applies a dynamic mapping update (new fields only) to the index-level mapping. */
  updateMapping: (update: Mapping) => void;
  translog?: Translog;
  /** Clock in epoch ms (for keep-alive expiry); defaults to Date.now. */
  now?: () => number;
}

/** Real-time get result (ES GET `_doc`). */
export interface GetResult {
  found: boolean;
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  _source?: Record<string, unknown>;
}

/** Shard statistics (`NodeStats` entry without index/shard). */
export interface ShardStats {
  docs: number;
  deleted: number;
  segments: number;
  generation: number;
}

/** Where the live copy of an `_id` is: the unrefreshed buffer (`seg` null, `ord` >= 0) or a segment. */
interface DocEntry {
  version: number;
  seqNo: number;
  deleted: boolean;
  seg: Segment | null;
  /** Ordinal in `seg`, or in the buffer when `seg` is null; -1 for tombstones. */
  ord: number;
}

interface SegState {
  segment: Segment;
  /** null = all live. Shared with a published generation when `shared`: copy before writing. */
  live: Uint8Array | null;
  shared: boolean;
  liveCount: number;
}

/** ES `update` merge: objects merge recursively, every other value (arrays included) is replaced. */
export function deepMerge(base: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(changes)) {
    const old = out[k];
    const isObj = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);
    out[k] = isObj(old) && isObj(v) ? deepMerge(old, v) : v;
  }
  return out;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The id of a new shard's first generation: the start time in ms × 1,000. Generation ids name
 * snapshots across requests (fetch phase, dfs and sample caches, `Folio-Snapshot`, PIT), so a
 * restarted shard node must never reuse one: ids grow by one per refresh, and no shard refreshes
 * 1,000 times per millisecond, so ids stay above any earlier process's (and below 2^53 until 2255).
 */
export function firstGenerationId(nowMs: number): number {
  return Math.floor(nowMs) * 1000;
}

/** A shard engine. All methods are synchronous. */
export class Shard {
  readonly index: string;
  readonly shard: number;
  private readonly getMapping: () => Mapping;
  private readonly updateMapping: (update: Mapping) => void;
  private readonly translog: Translog;
  private readonly now: () => number;
  /**
   * The live version map (ES `LiveVersionMap`): entries for writes not yet refreshed (`seg` null)
   * and tombstones of deletes. A refreshed document's version lives in its segment's columns and
   * is found by {@link Shard.lookup}, so the map does not grow with the index.
   */
  private readonly entries = new Map<string, DocEntry>();
  /** Unrefreshed docs, already inverted (Lucene's in-memory segment); null when empty. */
  private buffer: SegmentBuilder | null = null;
  /** Buffer ordinals overwritten or deleted before the refresh. */
  private bufferDead = new Set<number>();
  private segs: SegState[] = [];
  private dirty = false;
  private seqNo = -1;
  private current: Generation;
  private readonly retained = new Map<number, { gen: Generation; keepAliveMs: number; expiresAt: number }>();
  /** Processed seq_nos of this copy (ES local checkpoint); a peer recovery waits for it (local-checkpoint.ts). */
  private readonly checkpoints = new LocalCheckpointTracker();
  /**
   * The shard's primary term (ES `IndexShard.getOperationPrimaryTerm`), set by the registry from the
   * index metadata; reported as `_primary_term` of writes and gets. Folio keeps no term per
   * document, so a GET reports the shard's current term rather than the term that wrote the doc.
   */
  primaryTerm = 1;
  /**
   * Names this instance of the copy (random per open): a peer recovery moves the local checkpoint
   * only on the instance it started on, so a copy emptied meanwhile by another recovery (or
   * reopened) is not declared complete by the first one (ES: a recovery targets one allocation id).
   */
  readonly copyId = randomUUID();

  constructor(opts: ShardOptions) {
    this.index = opts.index;
    this.shard = opts.shard;
    this.getMapping = opts.getMapping;
    this.updateMapping = opts.updateMapping;
    this.translog = opts.translog ?? new MemoryTranslog();
    this.now = opts.now ?? Date.now;
    this.current = new Generation(firstGenerationId(this.now()), [], this.getMapping);
  }

  /** True when writes since the last refresh are not yet searchable. */
  get hasPendingWrites(): boolean {
    return this.dirty;
  }

  /** Id of the current (latest published) generation. */
  get generation(): number {
    return this.current.id;
  }

  /** The highest sequence number assigned (-1 before the first write). */
  get maxSeqNo(): number {
    return this.seqNo;
  }

  /** ES local checkpoint: every op up to it has been processed by this copy (-1 when unknown, e.g. after a restart). */
  get localCheckpoint(): number {
    return this.checkpoints.checkpoint;
  }

  /**
   * Applies writes in order with ES semantics; a failed op does not stop the others. Accepted ops
   * are appended to the translog (updates as the resulting index op) before returning; `logged`,
   * when given, receives those same ops in seq_no order (what the replicas then apply, see
   * {@link Shard.applyReplicated}).
   */
  apply(ops: readonly WriteOp[], logged?: TranslogOp[]): WriteResult[] {
    const log: TranslogOp[] = [];
    const results = ops.map((op) => {
      try {
        if (op.op === 'index') return this.indexDoc(op._id, op.source, op.create, log);
        if (op.op === 'delete') return this.deleteDoc(op._id, log);
        return this.updateDoc(op._id, op.doc, op.docAsUpsert, op.upsert, log);
      } catch (e) {
        if (!(e instanceof EsError)) throw e;
        return { _id: op._id, status: e.status, error: { type: e.type, reason: e.message, shard: String(this.shard), index: this.index } };
      }
    });
    if (log.length > 0) this.translog.append(log);
    for (const op of log) this.checkpoints.markProcessed(op.seqNo);
    if (logged) for (const op of log) logged.push(op);
    return results;
  }

  /**
   * A replica's write (ES `IndexShard.applyIndexOperationOnReplica`): applies ops exactly as the
   * primary logged them, with the primary's seq_no and version and no conflict checks, skipping an
   * op older than what the shard holds for its `_id` (replication requests may arrive out of order
   * or twice), and appends the applied ops to the translog. {@link Shard.sync} makes them durable.
   * @returns the ops applied (not skipped).
   */
  applyReplicated(ops: readonly TranslogOp[]): TranslogOp[] {
    const fresh = ops.filter((op) => {
      const e = this.lookup(op._id);
      return e === undefined || e.seqNo < op.seqNo;
    });
    this.restore(fresh);
    if (fresh.length > 0) this.translog.append(fresh);
    for (const op of ops) this.checkpoints.markProcessed(op.seqNo);
    return fresh;
  }

  /**
   * A peer recovery's ops on the target (ES `RecoveryTarget.indexTranslogOperations`): applied as
   * {@link Shard.applyReplicated} does (idempotent by seq_no); with `upTo`, the copy holds every op
   * up to it afterwards (the primary's state when the ops were taken), so the local checkpoint
   * fast-forwards there.
   * @returns the ops applied (not skipped).
   */
  applyRecovery(ops: readonly TranslogOp[], upTo?: number): TranslogOp[] {
    const applied = this.applyReplicated(ops);
    if (upTo !== undefined) {
      this.checkpoints.fastForward(upTo);
      if (upTo > this.seqNo) this.seqNo = upTo;
    }
    return applied;
  }

  /**
   * The ops with seq_no above `fromSeqNo`, in seq_no order, when this copy's translog still holds
   * them all (ES `IndexShard.newChangesSnapshot` for an ops-based recovery); null when some were
   * trimmed or flushed away (the recovery then copies every document).
   */
  opsSince(fromSeqNo: number): TranslogOp[] | null {
    if (fromSeqNo >= this.seqNo) return [];
    return this.translog.opsSince?.(fromSeqNo) ?? null;
  }

  /**
   * The latest state of every `_id` this copy knows, live documents and delete tombstones, with
   * their version and seq_no: the current generation's live documents plus what is not refreshed
   * yet (ES file-based recovery: the files of a pinned commit, then the translog above it). Taken
   * synchronously, so it is the state at one instant: every later op reaches a tracked target live.
   */
  snapshotOps(): TranslogOp[] {
    const out: TranslogOp[] = [];
    for (const st of this.segs) {
      const seg = st.segment;
      for (let ord = 0; ord < seg.maxDoc; ord++) {
        if (st.live && !st.live[ord]) continue;
        const id = seg.ids[ord];
        if (this.entries.has(id)) continue; // superseded by an unrefreshed write or a tombstone
        const json = seg.source(ord);
        out.push({ op: 'index', _id: id, source: JSON.parse(json) as Record<string, unknown>, json, seqNo: seg.seqNos[ord], version: seg.versions[ord] });
      }
    }
    for (const [id, e] of this.entries) {
      if (e.deleted) out.push({ op: 'delete', _id: id, seqNo: e.seqNo, version: e.version });
      else {
        const json = e.seg ? e.seg.source(e.ord) : this.buffer!.source(e.ord);
        out.push({ op: 'index', _id: id, source: JSON.parse(json) as Record<string, unknown>, json, seqNo: e.seqNo, version: e.version });
      }
    }
    return out.sort((a, b) => a.seqNo - b.seqNo);
  }

  /**
   * Resolves once every write applied so far is durable in the translog (immediately for a
   * non-durable one). Rejects when the store could not write: the writes must not be acknowledged.
   */
  sync(): Promise<void> {
    return this.translog.sync?.() ?? Promise.resolve();
  }

  /**
   * Recovery: re-applies recorded ops (a flush snapshot, then the translog after it) exactly as
   * logged — same seq_no and version, no conflict checks, nothing written to the translog. An op
   * older than what the shard holds for its `_id` is skipped. The seq_no counter continues from the
   * highest replayed, as ES's local checkpoint does after a store recovery. Returns the ops applied;
   * call `refresh()` afterwards to make them searchable.
   * @throws EsError when a recorded document no longer parses under the mapping (corrupt store)
   */
  restore(ops: Iterable<TranslogOp>): number {
    let applied = 0;
    for (const op of ops) {
      const e = this.lookup(op._id);
      if (e && e.seqNo >= op.seqNo) continue;
      if (e && !e.deleted) this.removeLive(e);
      if (op.op === 'index') {
        const update = inferMappingUpdate(this.getMapping(), op.source);
        if (update) this.updateMapping(update);
        const parsed = parseDocument(op._id, op.source, this.getMapping());
        this.buffer ??= new SegmentBuilder();
        const ord = this.buffer.add(op._id, op.json, parsed, op.version, op.seqNo);
        this.entries.set(op._id, { version: op.version, seqNo: op.seqNo, deleted: false, seg: null, ord });
      } else {
        this.entries.set(op._id, { version: op.version, seqNo: op.seqNo, deleted: true, seg: null, ord: -1 });
      }
      this.dirty = true;
      if (op.seqNo > this.seqNo) this.seqNo = op.seqNo;
      applied++;
    }
    return applied;
  }

  private fail(status: number, type: string, reason: string): never {
    throw new EsError(status, type, reason);
  }

  private indexDoc(id: string, source: Record<string, unknown>, create: boolean, log: TranslogOp[], forceCreated = false): WriteResult {
    const e = this.lookup(id);
    const exists = e !== undefined && !e.deleted;
    if (create && exists) {
      this.fail(409, 'version_conflict_engine_exception', `[${id}]: version conflict, document already exists (current version [${e!.version}])`);
    }
    const update = inferMappingUpdate(this.getMapping(), source);
    if (update) this.updateMapping(update);
    const parsed = parseDocument(id, source, this.getMapping());
    if (exists) this.removeLive(e!);
    const version = e ? e.version + 1 : 1;
    const seqNo = ++this.seqNo;
    this.buffer ??= new SegmentBuilder();
    const json = JSON.stringify(source);
    const ord = this.buffer.add(id, json, parsed, version, seqNo);
    this.entries.set(id, { version, seqNo, deleted: false, seg: null, ord });
    this.dirty = true;
    log.push({ op: 'index', _id: id, source, json, seqNo, version });
    const created = forceCreated || !exists;
    return { _id: id, status: created ? 201 : 200, result: created ? 'created' : 'updated', _version: version, _seq_no: seqNo, _primary_term: this.primaryTerm };
  }

  private deleteDoc(id: string, log: TranslogOp[]): WriteResult {
    const e = this.lookup(id);
    const exists = e !== undefined && !e.deleted;
    if (exists) this.removeLive(e!);
    const version = e ? e.version + 1 : 1;
    const seqNo = ++this.seqNo;
    // Tombstone: a later re-index continues the version sequence (ES keeps it for gc_deletes).
    this.entries.set(id, { version, seqNo, deleted: true, seg: null, ord: -1 });
    log.push({ op: 'delete', _id: id, seqNo, version });
    return { _id: id, status: exists ? 200 : 404, result: exists ? 'deleted' : 'not_found', _version: version, _seq_no: seqNo, _primary_term: this.primaryTerm };
  }

  private updateDoc(
    id: string,
    doc: Record<string, unknown>,
    docAsUpsert: boolean,
    upsert: Record<string, unknown> | undefined,
    log: TranslogOp[],
  ): WriteResult {
    const cur = this.get(id);
    if (!cur.found) {
      if (upsert) return this.indexDoc(id, upsert, false, log, true);
      if (docAsUpsert) return this.indexDoc(id, doc, false, log, true);
      this.fail(404, 'document_missing_exception', `[${id}]: document missing`);
    }
    const merged = deepMerge(cur._source!, doc);
    if (deepEqual(merged, cur._source)) {
      return { _id: id, status: 200, result: 'noop', _version: cur._version, _seq_no: cur._seq_no, _primary_term: this.primaryTerm };
    }
    return this.indexDoc(id, merged, false, log);
  }

  /**
   * The newest state of `id`: its live-version-map entry (an unrefreshed write or a tombstone),
   * else its live copy in the newest segment holding one (version and seq_no from the segment's
   * columns, as ES resolves a version from the index when the live version map has none).
   */
  private lookup(id: string): DocEntry | undefined {
    const e = this.entries.get(id);
    if (e !== undefined) return e;
    const hash = hashId(id);
    for (let i = this.segs.length - 1; i >= 0; i--) {
      const st = this.segs[i];
      const ord = st.segment.idToOrd.get(id, hash);
      if (ord >= 0 && (!st.live || st.live[ord])) return { version: st.segment.versions[ord], seqNo: st.segment.seqNos[ord], deleted: false, seg: st.segment, ord };
    }
    return undefined;
  }

  /** Removes the live copy of a doc: from the buffer, or from its segment's live docs (copy-on-write). */
  private removeLive(e: DocEntry): void {
    this.dirty = true;
    if (!e.seg) {
      this.bufferDead.add(e.ord);
      return;
    }
    const st = this.segs.find((s) => s.segment === e.seg);
    if (!st) return;
    if (!st.live) {
      st.live = new Uint8Array(st.segment.maxDoc).fill(1);
      st.shared = false;
    } else if (st.shared) {
      st.live = st.live.slice();
      st.shared = false;
    }
    if (st.live[e.ord]) {
      st.live[e.ord] = 0;
      st.liveCount--;
    }
  }

  /**
   * Makes pending writes searchable: seals the buffer into a segment, drops fully deleted segments,
   * runs the merge policy, and publishes a new generation. Without pending writes the current
   * generation is kept. Returns the current generation id.
   */
  refresh(): number {
    if (!this.dirty) return this.current.id;
    if (this.buffer) {
      let segment = this.buffer.build();
      if (this.bufferDead.size > 0) {
        // Docs overwritten or deleted before this refresh never reach a published segment (nor
        // its term statistics): compact them away, as if they had never been buffered.
        const live = new Uint8Array(segment.maxDoc).fill(1);
        for (const d of this.bufferDead) live[d] = 0;
        const liveCount = segment.maxDoc - this.bufferDead.size;
        segment = mergeSegments([{ segment, live, liveCount }]).segment;
      }
      // Refreshed: these docs' versions are now read from the segment (lookup); tombstones stay.
      for (let ord = 0; ord < segment.maxDoc; ord++) this.entries.delete(segment.ids[ord]);
      if (segment.maxDoc > 0) this.segs.push({ segment, live: null, shared: false, liveCount: segment.maxDoc });
      this.buffer = null;
      this.bufferDead = new Set();
    }
    this.segs = this.segs.filter((s) => s.liveCount > 0);
    for (;;) {
      const pick = selectMerge(this.segs.map((s) => this.view(s)));
      if (pick.length < 2) break;
      const chosen = pick.map((i) => this.segs[i]);
      const { segment } = mergeSegments(chosen.map((s) => this.view(s)));
      const merged: SegState = { segment, live: null, shared: false, liveCount: segment.maxDoc };
      const set = new Set(chosen);
      const at = pick[0];
      this.segs = this.segs.flatMap((s, i) => (i === at ? [merged] : set.has(s) ? [] : [s]));
    }
    this.translog.trim?.(this.seqNo);
    for (const s of this.segs) s.shared = true;
    this.current = new Generation(this.current.id + 1, this.segs.map((s) => this.view(s)), this.getMapping);
    this.dirty = false;
    this.expire();
    return this.current.id;
  }

  private view(s: SegState): SegmentView {
    return { segment: s.segment, live: s.live, liveCount: s.liveCount };
  }

  private expire(): void {
    const t = this.now();
    for (const [id, r] of this.retained) if (r.expiresAt <= t) this.retained.delete(id);
  }

  /**
   * The current generation (no id), or a retained one by id. With `keepAliveMs`, the returned
   * generation is retained until `keepAliveMs` after this call (each acquire extends it).
   * @throws EsError 404 `search_context_missing_exception` for an unknown or expired id.
   */
  acquire(generation?: number, keepAliveMs?: number): Generation {
    this.expire();
    let gen: Generation;
    if (generation === undefined || generation === this.current.id) gen = this.current;
    else {
      const r = this.retained.get(generation);
      if (!r) throw searchContextMissing(generation);
      gen = r.gen;
      keepAliveMs ??= r.keepAliveMs;
    }
    if (keepAliveMs !== undefined) this.retained.set(gen.id, { gen, keepAliveMs, expiresAt: this.now() + keepAliveMs });
    return gen;
  }

  /** Retained generations other than the current one (what `Folio-Snapshot` tokens can keep alive), expired ones dropped first. */
  retainedPastGenerations(): number {
    this.expire();
    return this.retained.size - (this.retained.has(this.current.id) ? 1 : 0);
  }

  /** Stops retaining a generation (ES: close a PIT). Returns whether it was retained. */
  release(generation: number): boolean {
    return this.retained.delete(generation);
  }

  /** Real-time get: sees writes that are not refreshed yet, like ES GET `_doc`. */
  get(id: string): GetResult {
    const e = this.lookup(id);
    if (!e || e.deleted) return { found: false };
    const json = e.seg ? e.seg.source(e.ord) : this.buffer!.source(e.ord);
    const source = JSON.parse(json) as Record<string, unknown>;
    return { found: true, _version: e.version, _seq_no: e.seqNo, _primary_term: this.primaryTerm, _source: source };
  }

  /** Doc counts of the current generation. */
  stats(): ShardStats {
    const g = this.current;
    return { docs: g.docCount, deleted: g.deletedCount, segments: g.views.length, generation: g.id };
  }
}
