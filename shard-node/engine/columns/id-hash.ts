/**
 * A segment's `_id` → ordinal lookup as an open-addressing hash table in one `Int32Array`
 * (linear probing, load ≤ 0.5), instead of a `Map<string, number>`: about 8–16 bytes per
 * document instead of ~47 measured for the Map (docs/performance.md), with the ids themselves
 * kept once, in the segment's id column (id-column.ts), compared there in place. Lucene finds `_id`s through the terms index of the `_id`
 * field; a segment here is immutable, so a table built once at seal time does the same job.
 */
import { CLOCK_EVERY, runAtOnce, type SliceClock, type Steps } from '../../../shared/sliced-work.ts';

/** FNV-1a over the UTF-16 code units of `s`, as a 32-bit unsigned integer. */
export function hashId(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** What the table is built over: ids by ordinal, compared in place ({@link IdColumn}, or {@link StringIds} over an array). */
export interface IdList {
  readonly length: number;
  get(d: number): string;
  equals(d: number, id: string): boolean;
}

/** An {@link IdList} over an array of strings (a `terms` query's values). */
export class StringIds implements IdList {
  readonly values: readonly string[];
  constructor(values: readonly string[]) {
    this.values = values;
  }
  get length(): number {
    return this.values.length;
  }
  get(d: number): string {
    return this.values[d];
  }
  equals(d: number, id: string): boolean {
    return this.values[d] === id;
  }
}

/** Immutable `_id` → ordinal table over a list of distinct ids. */
export class IdHash {
  private readonly ids: IdList;
  /** Slot value: ordinal + 1, 0 = empty. */
  private readonly slots: Int32Array;
  private readonly mask: number;

  /** An empty table sized for `ids`: {@link IdHash.build} fills it. */
  private constructor(ids: IdList) {
    this.ids = ids;
    let cap = 8;
    while (cap < ids.length * 2) cap *= 2;
    this.slots = new Int32Array(cap);
    this.mask = cap - 1;
  }

  /** The table over `ids` (ordinal = position; later duplicates are not found), built in one go. */
  static build(ids: IdList): IdHash {
    return runAtOnce((clock) => IdHash.buildSteps(ids, clock));
  }

  /**
   * {@link IdHash.build} as pausable steps (shared/sliced-work.ts), checking the clock every
   * {@link CLOCK_EVERY} ids. With `hashes` (one slot per id), each id's {@link hashId} is also
   * written there, for callers that probe other tables with it later.
   */
  static *buildSteps(ids: IdList, clock: SliceClock, hashes?: Uint32Array): Steps<IdHash> {
    const table = new IdHash(ids);
    for (let ord = 0; ord < ids.length; ord++) {
      const id = ids.get(ord);
      const h = hashId(id);
      if (hashes) hashes[ord] = h;
      table.insert(ord, id, h);
      if ((ord & (CLOCK_EVERY - 1)) === CLOCK_EVERY - 1 && clock.due()) yield;
    }
    return table;
  }

  private insert(ord: number, id: string, hash: number): void {
    const ids = this.ids;
    let s = hash & this.mask;
    while (this.slots[s] !== 0) {
      if (ids.equals(this.slots[s] - 1, id)) return;
      s = (s + 1) & this.mask;
    }
    this.slots[s] = ord + 1;
  }

  /** The ordinal of `id`, or -1 when the segment does not hold it; `hash` = {@link hashId}(id) when the caller probes several tables. */
  get(id: string, hash: number = hashId(id)): number {
    let s = hash & this.mask;
    for (;;) {
      const v = this.slots[s];
      if (v === 0) return -1;
      if (this.ids.equals(v - 1, id)) return v - 1;
      s = (s + 1) & this.mask;
    }
  }

  /** Bytes of the table (the ids are counted with the segment). */
  get byteLength(): number {
    return this.slots.byteLength;
  }
}
