/**
 * The write path of one shard copy: ES `index`/`create`/`update`/`delete` on the primary, with
 * versions, sequence numbers and write conditions decided in the same synchronous step as the
 * write (ES's per-`_id` lock), the replica's and the recovery's apply of logged ops, the replay of
 * recorded ops at start-up, and the gets: real-time (what the update reads) and non-real-time.
 * Writes go to the unrefreshed buffer (shard-state.ts) and the translog; a refresh makes them
 * searchable (shard-refresh.ts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-index_.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/engine/InternalEngine.java
 */
import { yieldToEventLoop } from '../../shared/event-loop-slices.ts';
import { inferMappingUpdate } from '../../shared/dynamic-mapping.ts';
import { EsError } from '../../protocol/errors.ts';
import type { WriteConditions, WriteOp, WriteResult } from '../../protocol/write.ts';
import { visibleSourceText } from '../../shared/source-mapping.ts';
import { parseDocument } from './doc-parser.ts';
import { ignoredFields } from './hit-fetch.ts';
import type { ShardState } from './shard-state.ts';
import { PRUNE_SLICE_MS } from './tombstone-gc.ts';
import type { TranslogOp } from './translog.ts';
import { checkWriteConditions, mergeUpdate, nextVersion } from './write-conditions.ts';

/** Real-time get result (ES GET `_doc`). */
export interface GetResult {
  found: boolean;
  _version?: number;
  _seq_no?: number;
  _primary_term?: number;
  /** The custom routing the document was indexed with. */
  _routing?: string;
  /** ES `_ignored`: the fields whose values were not indexed (malformed, over `ignore_above`), sorted. */
  _ignored?: string[];
  /** The stored `_source` JSON text, exactly as indexed. */
  _source?: string;
}

/**
 * Parses a document's `_source` text for indexing. Numbers become doubles (what doc values hold);
 * the text itself is what the shard stores and returns.
 * @throws EsError 400 `mapper_parsing_exception` when the text is not a JSON object.
 */
export function parseSource(json: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    throw new EsError(400, 'mapper_parsing_exception', `failed to parse: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new EsError(400, 'mapper_parsing_exception', 'failed to parse, document is empty');
  return v as Record<string, unknown>;
}

/** The write path over a shard's state (shard.ts documents each entry point). */
export class WritePath {
  private readonly s: ShardState;

  constructor(state: ShardState) {
    this.s = state;
  }

  /** shard.ts `Shard.apply`, from `from` on, for about `maxMs`; logs the ops to the translog. @returns where it stopped */
  applySlice(ops: readonly WriteOp[], from: number, maxMs: number, results: WriteResult[], logged?: TranslogOp[]): number {
    const started = performance.now();
    const log: TranslogOp[] = [];
    let i = from;
    while (i < ops.length) {
      results.push(this.applyOne(ops[i++], log));
      if ((i & 31) === 0 && performance.now() - started >= maxMs) break;
    }
    if (log.length > 0) this.s.translog.append(log);
    for (const op of log) this.s.checkpoints.markProcessed(op.seqNo);
    if (logged) for (const op of log) logged.push(op);
    this.s.versions.maybePrune(PRUNE_SLICE_MS);
    return i;
  }

  /**
   * shard.ts `Shard.apply` in slices of about `sliceMs` of work, yielding to the event loop between
   * slices, so that a large bulk does not hold the node's event loop (docs/reliability.md). Each
   * op is applied whole and logged to the translog in the slice that applied it, so ops keep their
   * order and seq_no order, and a reader between slices sees some ops of the request and not the
   * others, never half an op: Elasticsearch promises per-document atomicity for a bulk, not
   * per-request (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-bulk.html).
   * Ops of concurrent requests may interleave, as they do in ES. `afterLast` runs in the same
   * synchronous step as the last slice (to read state, such as the replication group, that must be
   * consistent with the request's last op).
   */
  async applySliced(ops: readonly WriteOp[], logged: TranslogOp[] | undefined, sliceMs: number, afterLast?: () => void): Promise<WriteResult[]> {
    const results: WriteResult[] = [];
    let pos = 0;
    for (;;) {
      pos = this.applySlice(ops, pos, sliceMs, results, logged);
      if (pos >= ops.length) break;
      await yieldToEventLoop();
    }
    afterLast?.();
    return results;
  }

  private applyOne(op: WriteOp, log: TranslogOp[]): WriteResult {
    const c = this.s.counters;
    try {
      if (op.op === 'delete') {
        c.deleteTotal++;
        return this.deleteDoc(op._id, log, op);
      }
      const r = op.op === 'index' ? this.indexDoc(op._id, parseSource(op.source), op.source, op.create, log, false, op) : this.updateDoc(op, log);
      if (r.result === 'noop') c.noopUpdateTotal++;
      else if (r.error) c.indexFailed++;
      else c.indexTotal++;
      return r;
    } catch (e) {
      if (!(e instanceof EsError)) throw e;
      if (op.op !== 'delete') c.indexFailed++;
      const error = { type: e.type, reason: e.message, shard: String(this.s.shard), index: this.s.index, ...(e.causedBy ? { caused_by: e.causedBy } : {}) };
      return { _id: op._id, status: e.status, error };
    }
  }

  /**
   * A replica's write (ES `IndexShard.applyIndexOperationOnReplica`): applies ops exactly as the
   * primary logged them, with the primary's seq_no and version and no conflict checks, skipping an
   * op that is stale (replication requests may arrive out of order or twice), and appends the
   * applied ops to the translog. shard.ts `Shard.sync` makes them durable.
   *
   * An op is stale as in ES `InternalEngine.planIndexingAsNonPrimary`: its seq_no is at or below
   * the local checkpoint (this copy processed it already), or the copy holds a newer op for its
   * `_id` (a live doc, an unrefreshed write, or a tombstone). The first rule is what makes pruning
   * tombstones safe: a tombstone is pruned only once its seq_no is at or below the local checkpoint
   * (shard.ts `Shard.pruneTombstones`), so any older op on that `_id` has a seq_no below the checkpoint
   * too and is still recognised as stale without the tombstone, and a deleted document cannot be
   * resurrected by a late op. ES explains the argument in `InternalEngine.pruneDeletedTombstones`:
   * https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/engine/InternalEngine.java
   * @returns the ops applied (not skipped).
   */
  applyReplicatedSlice(ops: readonly TranslogOp[], from: number, maxMs: number, fresh: TranslogOp[], mark = true): number {
    const started = performance.now();
    const checkpoint = this.s.checkpoints.checkpoint;
    const applied: TranslogOp[] = [];
    let i = from;
    while (i < ops.length) {
      const op = ops[i++];
      if (op.seqNo > checkpoint) {
        const e = this.s.lookup(op._id);
        if (e === undefined || e.seqNo < op.seqNo) {
          this.restore([op]);
          applied.push(op);
        }
      }
      if ((i & 31) === 0 && performance.now() - started >= maxMs) break;
    }
    if (applied.length > 0) this.s.translog.append(applied);
    if (mark) {
      for (let j = from; j < i; j++) this.s.checkpoints.markProcessed(ops[j].seqNo);
      // Live replication counts as indexing on the replica, a recovery does not (ES `InternalIndexingStats`).
      for (const op of applied) {
        if (op.op === 'delete') this.s.counters.deleteTotal++;
        else this.s.counters.indexTotal++;
      }
    }
    for (const op of applied) fresh.push(op);
    this.s.versions.maybePrune(PRUNE_SLICE_MS);
    return i;
  }

  /** {@link WritePath.applyReplicatedSlice} in slices of about `sliceMs`, yielding between them. @returns the ops applied */
  async applyReplicatedSliced(ops: readonly TranslogOp[], sliceMs: number, mark = true): Promise<TranslogOp[]> {
    const fresh: TranslogOp[] = [];
    let pos = 0;
    for (;;) {
      pos = this.applyReplicatedSlice(ops, pos, sliceMs, fresh, mark);
      if (pos >= ops.length) return fresh;
      await yieldToEventLoop();
    }
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
    const s = this.s;
    let applied = 0;
    for (const op of ops) {
      const e = s.lookup(op._id);
      if (e && e.seqNo >= op.seqNo) continue;
      if (e && !e.deleted) s.removeLive(e);
      if (op.op === 'index') {
        const source = parseSource(op.json);
        const update = inferMappingUpdate(s.getMapping(), source);
        if (update) s.updateMapping(update);
        const parsed = parseDocument(op._id, source, s.getMapping());
        const buf = s.writeBuffer();
        const ord = buf.builder.add(op._id, op.json, parsed, op.version, op.seqNo, op.routing);
        s.versions.entries.set(op._id, { version: op.version, seqNo: op.seqNo, deleted: false, seg: null, buf, ord });
      } else {
        s.versions.entries.set(op._id, {
          version: op.version,
          seqNo: op.seqNo,
          deleted: true,
          seg: null,
          buf: null,
          ord: -1,
          deletedAt: s.now(),
          generation: s.tombstoneGeneration(),
        });
      }
      s.dirty = true;
      if (op.seqNo > s.seqNo) s.seqNo = op.seqNo;
      applied++;
    }
    return applied;
  }

  /**
   * Indexes `source` (parsed from, or serialized as, `json`) and stores `json` as its `_source` and
   * `write.routing` as its `_routing`, once the conditions of `write` hold for the `_id`'s current
   * state (write-conditions.ts). The check, the version and the seq_no are decided in the same
   * synchronous step as the write: nothing else touches the `_id` in between (ES's per-`_id` lock).
   * A conflict assigns no seq_no, as in ES.
   */
  private indexDoc(
    id: string,
    source: Record<string, unknown>,
    json: string,
    create: boolean,
    log: TranslogOp[],
    forceCreated = false,
    write: WriteConditions & { routing?: string } = {},
  ): WriteResult {
    const s: ShardState = this.s;
    const routing = write.routing;
    const e = s.lookup(id);
    const exists = e !== undefined && !e.deleted;
    if (create && exists) {
      s.fail(409, 'version_conflict_engine_exception', `[${id}]: version conflict, document already exists (current version [${e.version}])`);
    }
    checkWriteConditions(id, write, e, s.primaryTerm);
    const update = inferMappingUpdate(s.getMapping(), source);
    if (update) s.updateMapping(update);
    const parsed = parseDocument(id, source, s.getMapping());
    if (exists) s.removeLive(e);
    const version = nextVersion(write, e);
    const seqNo = ++s.seqNo;
    const buf = s.writeBuffer();
    const ord = buf.builder.add(id, json, parsed, version, seqNo, routing);
    s.versions.entries.set(id, { version, seqNo, deleted: false, seg: null, buf, ord });
    s.dirty = true;
    log.push({ op: 'index', _id: id, json, seqNo, version, ...(routing !== undefined ? { routing } : {}) });
    const created = forceCreated || !exists;
    return { _id: id, status: created ? 201 : 200, result: created ? 'created' : 'updated', _version: version, _seq_no: seqNo, _primary_term: s.primaryTerm };
  }

  /** Deletes `id` once `cond` holds (as {@link WritePath.indexDoc}); a missing `_id` answers `not_found` and still gets a tombstone. */
  private deleteDoc(id: string, log: TranslogOp[], cond: WriteConditions = {}): WriteResult {
    const s = this.s;
    const e = s.lookup(id);
    const exists = e !== undefined && !e.deleted;
    checkWriteConditions(id, cond, e, s.primaryTerm);
    if (exists) s.removeLive(e);
    const version = nextVersion(cond, e);
    const seqNo = ++s.seqNo;
    // Tombstone, even for an id that never existed (ES does the same): a later re-index continues
    // the version sequence, and a replica recognises older ops on the id as stale, until the
    // tombstone is pruned after index.gc_deletes (live-version-map.ts).
    s.versions.entries.set(id, { version, seqNo, deleted: true, seg: null, buf: null, ord: -1, deletedAt: s.now(), generation: s.tombstoneGeneration() });
    s.dirty = true; // a change to refresh even for a missing id (ES writes a tombstone doc): the tombstone is collected only once refreshed
    log.push({ op: 'delete', _id: id, seqNo, version });
    return { _id: id, status: exists ? 200 : 404, result: exists ? 'deleted' : 'not_found', _version: version, _seq_no: seqNo, _primary_term: s.primaryTerm };
  }

  /**
   * ES `UpdateHelper` on the primary: reads the document in real time; a missing one is created
   * from `upsert` (or `doc` with `doc_as_upsert`), else 404. With `ifSeqNo` the read document must
   * carry it (ES `getForUpdate`). `doc` is merged in (write-conditions.ts `mergeUpdate`); a merge
   * that changes nothing (with `detect_noop`, the default) answers `noop` with the current version
   * and seq_no and writes nothing. The document keeps its `_routing` unless the op gives one.
   */
  private updateDoc(op: Extract<WriteOp, { op: 'update' }>, log: TranslogOp[]): WriteResult {
    const s: ShardState = this.s;
    const id = op._id;
    const cur = this.get(id);
    const withSource = (r: WriteResult, json: string): WriteResult => (op.fetchSource ? { ...r, source: json } : r);
    if (!cur.found) {
      const doc = op.upsert ?? (op.docAsUpsert ? op.doc : undefined);
      if (doc === undefined) s.fail(404, 'document_missing_exception', `[${id}]: document missing`);
      const json = JSON.stringify(doc);
      return withSource(this.indexDoc(id, doc, json, false, log, true, { routing: op.routing }), json);
    }
    checkWriteConditions(id, op, { version: cur._version!, seqNo: cur._seq_no!, deleted: false }, s.primaryTerm);
    // The update reads the source as the mapping's `_source` keeps it (ES stores no more): none when disabled.
    const shown = visibleSourceText(cur._source!, s.getMapping());
    if (shown === undefined) s.fail(400, 'document_source_missing_exception', `[${id}]: document source missing`);
    const { merged, modified } = mergeUpdate(parseSource(shown), op.doc, op.detectNoop !== false);
    if (!modified) {
      return withSource({ _id: id, status: 200, result: 'noop', _version: cur._version, _seq_no: cur._seq_no, _primary_term: s.primaryTerm }, shown);
    }
    // ES re-serializes an updated document too (UpdateHelper builds a new source from the merged map).
    const json = JSON.stringify(merged);
    return withSource(this.indexDoc(id, merged, json, false, log, false, { routing: op.routing ?? cur._routing }), json);
  }

  /** Real-time get: sees writes that are not refreshed yet, like ES GET `_doc`; `_source` is the stored text. */
  get(id: string): GetResult {
    const e = this.s.lookup(id);
    this.s.counters.getTotal++;
    if (!e || e.deleted) {
      this.s.counters.getMissing++;
      return { found: false };
    }
    this.s.counters.getExists++;
    const json = e.seg ? e.seg.source(e.ord) : e.buf!.builder.source(e.ord);
    const routing = e.seg ? e.seg.routings?.get(e.ord) : e.buf!.builder.routing(e.ord);
    const ignored = e.seg ? ignoredFields(e.seg, e.ord) : e.buf!.builder.ignored(e.ord);
    return {
      found: true,
      _version: e.version,
      _seq_no: e.seqNo,
      _primary_term: this.s.primaryTerm,
      ...(routing !== undefined ? { _routing: routing } : {}),
      ...(ignored !== undefined ? { _ignored: ignored } : {}),
      _source: json,
    };
  }

  /** Non-real-time get (shard.ts `Shard.getRefreshed`): the document as the latest published generation holds it. */
  getRefreshed(id: string): GetResult {
    const doc = this.s.readers.latest.getDoc(id);
    const counters = this.s.counters;
    counters.getTotal++;
    if (!doc) {
      counters.getMissing++;
      return { found: false };
    }
    counters.getExists++;
    return {
      found: true,
      _version: doc.version,
      _seq_no: doc.seqNo,
      _primary_term: this.s.primaryTerm,
      ...(doc.routing !== undefined ? { _routing: doc.routing } : {}),
      ...(doc.ignored !== undefined ? { _ignored: doc.ignored } : {}),
      _source: doc.source,
    };
  }
}
