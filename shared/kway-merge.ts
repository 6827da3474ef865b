/**
 * The k-way merge of sorted runs: a binary min-heap of run numbers, sized to the number of runs
 * and ordered by each run's head, as Lucene merges shard top hits (`TopDocs.merge`, a priority
 * queue of shards) and segments' sorted doc values (`MultiSorter`, a queue of segment cursors).
 * Runs are addressed by number and elements by position, so callers keep their own arrays (hit
 * lists, typed columns) and the merge allocates nothing per element.
 *
 * Users: the coordinator's query-phase merge (coordinator/search/merge.ts `mergeTopHits`), and the
 * engine's presorted orders (shard-node/engine/sort-order.ts) and merged term dictionaries (shard-node/engine/columns/sorted-terms-merge.ts).
 * The order of the output is the order of `less`; elements that `less` finds equal in both
 * directions come out in no defined order, so callers that need a stable order break ties in it.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/TopDocs.java
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/MultiSorter.java
 */
import { CLOCK_EVERY, runAtOnce, type SliceClock, type Steps } from './sliced-work.ts';

/**
 * Whether element `i` of run `a` sorts strictly before element `j` of run `b` (each run must be
 * sorted by it: a run whose next element sorts before its last is merged out of order).
 */
export type RunLess = (a: number, i: number, b: number, j: number) => boolean;

/**
 * A merge in progress: {@link RunMerge.next} pops the run whose head sorts first and moves that
 * run on by one. `pos[run]` is the position of each run's head (its length once it is spent).
 * @example
 * const m = new RunMerge([a.length, b.length], (x, i, y, j) => runs[x][i] < runs[y][j]);
 * for (let r = m.next(); r >= 0; r = m.next()) out.push(runs[r][m.pos[r] - 1]);
 */
export class RunMerge {
  /** Position of each run's head: elements before it were popped. */
  readonly pos: Int32Array;
  private readonly lengths: readonly number[];
  private readonly less: RunLess;
  /** Runs with elements left, as a binary heap by head (`heap[0]` first); `size` entries are used. */
  private readonly heap: Int32Array;
  private size = 0;

  /** A merge of runs of `lengths` elements (empty runs are skipped), ordered by `less`. */
  constructor(lengths: readonly number[], less: RunLess) {
    this.lengths = lengths;
    this.less = less;
    this.pos = new Int32Array(lengths.length);
    this.heap = new Int32Array(lengths.length);
    for (let r = 0; r < lengths.length; r++) if (lengths[r] > 0) this.heap[this.size++] = r;
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  /** True while some run has elements left. */
  get pending(): boolean {
    return this.size > 0;
  }

  /**
   * The run whose head sorts first, or -1 when every run is spent. Its element is at
   * `pos[run] - 1` after the call (the head has moved on).
   */
  next(): number {
    if (this.size === 0) return -1;
    const heap = this.heap;
    const r = heap[0];
    if (++this.pos[r] >= this.lengths[r]) heap[0] = heap[--this.size];
    if (this.size > 1) this.siftDown(0);
    return r;
  }

  /** Moves the run at heap slot `i` down to where its head belongs. */
  private siftDown(i: number): void {
    const heap = this.heap;
    const pos = this.pos;
    const less = this.less;
    const n = this.size;
    const run = heap[i];
    const at = pos[run];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let m = l;
      let mr = heap[l];
      if (l + 1 < n) {
        const rr = heap[l + 1];
        if (less(rr, pos[rr], mr, pos[mr])) {
          m = l + 1;
          mr = rr;
        }
      }
      if (!less(mr, pos[mr], run, at)) break;
      heap[i] = mr;
      i = m;
    }
    heap[i] = run;
  }
}

/**
 * Merges sorted runs whole: `emit(run, index)` for every element of every run, in `less` order.
 */
export function kwayMerge(lengths: readonly number[], less: RunLess, emit: (run: number, index: number) => void): void {
  runAtOnce((clock) => kwayMergeSteps(lengths, less, emit, clock));
}

/** {@link kwayMerge} as pausable steps (shared/sliced-work.ts): it may pause every {@link CLOCK_EVERY} elements. */
export function* kwayMergeSteps(lengths: readonly number[], less: RunLess, emit: (run: number, index: number) => void, clock: SliceClock): Steps<void> {
  const m = new RunMerge(lengths, less);
  const pos = m.pos;
  let emitted = 0;
  for (let r = m.next(); r >= 0; r = m.next()) {
    emit(r, pos[r] - 1);
    if ((++emitted & (CLOCK_EVERY - 1)) === 0 && clock.due()) yield;
  }
}
