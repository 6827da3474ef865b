/**
 * A shard bulk reply's items ({@link WriteResult}) held as columns, as the coordinator reads them
 * line by line (protocol/shard-bulk-reply.ts): a status, a result code and three numbers per item
 * in typed arrays (27 bytes), where 100,000 parsed objects held ~11 MB until the whole `_bulk` was
 * answered, long enough to be promoted and wait for a major GC (docs/reliability.md, issue 11).
 * An item whose `_id` is not the one its op sent, or that has anything else (an `error`, an
 * update's `source`), is kept as parsed. {@link WriteResultColumns.get} gives back an object equal
 * to the parsed line, field for field (absent fields stay absent).
 */
import type { WriteResult } from './write.ts';

const RESULTS = ['created', 'updated', 'deleted', 'not_found', 'noop'] as const;
/** A result's code in {@link WriteResultColumns}: 0 for none, else 1 + its place in {@link RESULTS}. */
const RESULT_CODE = new Map<string, number>(RESULTS.map((r, i) => [r, i + 1]));
/** The fields a compact item may have. */
const COMPACT_KEYS = new Set(['_id', 'status', 'result', '_version', '_seq_no', '_primary_term']);

/** Whether `v` is absent or a number (NaN never comes out of JSON, so it can mean absent). */
const numberOrAbsent = (v: unknown): boolean => v === undefined || typeof v === 'number';

/** The `_id`s of a shard bulk's ops, in order: a list, or the `_id` of op `j` (undefined past the last). */
export type OpIds = readonly string[] | ((j: number) => string | undefined);

/** The items of one shard bulk reply, in op order. */
export class WriteResultColumns {
  readonly length: number;
  private readonly idAt: (j: number) => string | undefined;
  private readonly status: Uint16Array;
  private readonly result: Uint8Array;
  /** `_version`, `_seq_no`, `_primary_term`, NaN when absent. */
  private readonly version: Float64Array;
  private readonly seqNo: Float64Array;
  private readonly primaryTerm: Float64Array;
  /** The items kept as parsed, by position. */
  private readonly whole = new Map<number, WriteResult>();

  /**
   * Room for `length` items; `ids` are the `_id`s of the ops sent, in order (an item with another
   * is kept whole), as a list or as the `_id` of op `j` (a string made on each call, so that no
   * list of 50,000 `_id`s is held: issue 11).
   */
  constructor(length: number, ids: OpIds) {
    this.length = length;
    this.idAt = typeof ids === 'function' ? ids : (j) => ids[j];
    this.status = new Uint16Array(length);
    this.result = new Uint8Array(length);
    this.version = new Float64Array(length);
    this.seqNo = new Float64Array(length);
    this.primaryTerm = new Float64Array(length);
  }

  /** The columns of parsed items (a reply read whole), the op `_id`s taken from them. */
  static of(items: readonly WriteResult[]): WriteResultColumns {
    const columns = new WriteResultColumns(
      items.length,
      items.map((r) => r._id),
    );
    items.forEach((r, j) => columns.set(j, r));
    return columns;
  }

  /** Stores the parsed item at position `j`. */
  set(j: number, value: WriteResult): void {
    if (!this.compact(j, value)) {
      this.whole.set(j, value);
      return;
    }
    this.status[j] = value.status;
    this.result[j] = value.result === undefined ? 0 : RESULT_CODE.get(value.result)!;
    this.version[j] = value._version ?? NaN;
    this.seqNo[j] = value._seq_no ?? NaN;
    this.primaryTerm[j] = value._primary_term ?? NaN;
  }

  /** Whether the item at `j` fits the columns: only their fields, of their types, and its op's `_id`. */
  private compact(j: number, value: WriteResult): boolean {
    for (const k of Object.keys(value)) if (!COMPACT_KEYS.has(k)) return false;
    return (
      value._id === this.idAt(j) &&
      Number.isInteger(value.status) &&
      value.status >= 0 &&
      value.status < 65536 &&
      (value.result === undefined || RESULT_CODE.has(value.result)) &&
      numberOrAbsent(value._version) &&
      numberOrAbsent(value._seq_no) &&
      numberOrAbsent(value._primary_term)
    );
  }

  /** The item at `j`, a new object with the parsed line's fields in its order of {@link WriteResult}. */
  get(j: number): WriteResult {
    const kept = this.whole.get(j);
    if (kept !== undefined) return kept;
    const r: WriteResult = { _id: this.idAt(j) as string, status: this.status[j] };
    if (this.result[j] !== 0) r.result = RESULTS[this.result[j] - 1];
    if (!Number.isNaN(this.version[j])) r._version = this.version[j];
    if (!Number.isNaN(this.seqNo[j])) r._seq_no = this.seqNo[j];
    if (!Number.isNaN(this.primaryTerm[j])) r._primary_term = this.primaryTerm[j];
    return r;
  }

  /** Every item, as objects. */
  toArray(): WriteResult[] {
    return Array.from({ length: this.length }, (_, j) => this.get(j));
  }
}
