/**
 * Exact distributed `terms` (pure: no I/O): from what the shards have said about one terms
 * aggregation (their first-round lists and the replies to refinement tasks), either the exact
 * buckets (counts, order, `sum_other_doc_count`) or the tasks to send next. For `_count`
 * descending this is TPUT (Cao and Wang, "Efficient Top-K Query Calculation in Distributed
 * Networks", PODC 2004) with exact integer bounds:
 *   - each shard i's unlisted terms have at most `bound_i` docs there (its cut-off count), so a term
 *     has between L (its known counts) and U = L + Σ bounds of the shards that have not said;
 *   - τ = the `size`-th best lower bound among terms with L ≥ `min_doc_count` (or `min_doc_count`);
 *   - a seen term with U ≥ τ and shards that have not said gets its exact counts from them
 *     (`include`, with its sub-aggregations);
 *   - while unseen terms could reach τ (Σ bounds ≥ τ), every shard with a bound sends its terms of
 *     at least T = ⌈τ / m⌉ docs (`threshold`), after which an unseen term has < m·T… ≤ τ docs.
 * Settled when neither is needed: the top `size` are then exact, in order, ties broken by key.
 * `_key` orders settle in one round, and `full` lists are complete (shared/aggs/terms-plan.ts).
 * @see http://crypto.stanford.edu/~cao/topk.html
 * @see docs/aggregations.md
 */
import type { TermsAgg } from '../../../protocol/agg-request.ts';
import { compareKeys, countKeyComparator, termsMode } from '../../../shared/aggs/terms-plan.ts';
import type { AggPartial, BucketKey, TermsPartial, TermsRefineTask } from '../../../protocol/aggs.ts';

/** A refinement reply with the task it answers. */
export interface RefineReply {
  task: TermsRefineTask;
  reply: TermsPartial;
}

/** What one shard has said about one terms aggregation (in one bucket of its parents). */
export interface ShardTermsInput {
  /** The first-round list; undefined when the shard has no doc in this bucket. */
  first: TermsPartial | undefined;
  replies: readonly RefineReply[];
}

/** A settled bucket: its exact count and, per shard that has docs in it, its sub-aggregation partials. */
export interface SettledBucket {
  key: BucketKey;
  n: number;
  /** Parallel to the shards: that shard's sub-aggregation partials, undefined when it has no doc here. */
  subs: (AggPartial[] | undefined)[];
}

/** Outcome of {@link settleTerms}: the buckets once settled, else the tasks per shard position. */
export type SettleOutcome =
  | { settled: true; buckets: SettledBucket[]; sumOther: number; order: 'count' | 'key' | 'full' }
  | { settled: false; tasks: Map<number, Omit<TermsRefineTask, 'path' | 'agg'>[]> };

/** A map key for a bucket key (numbers and strings apart). */
const mk = (k: BucketKey): string => (typeof k === 'number' ? 'n' : 's') + String(k);

interface Knowledge {
  counts: Map<string, number>;
  subs: Map<string, AggPartial[]>;
  bound: number;
  total: number;
  /** The first-round cut-off: every term above it was listed. */
  cutoff: number;
}

/** Folds a shard's first list and replies into exact counts, sub-aggregations, and its bound on unlisted terms. */
function know(input: ShardTermsInput, keys: Map<string, BucketKey>): Knowledge {
  const k: Knowledge = { counts: new Map(), subs: new Map(), bound: 0, total: 0, cutoff: 0 };
  const first = input.first;
  if (!first) return k;
  k.total = first.total;
  for (const b of first.buckets) {
    const id = mk(b.key);
    keys.set(id, b.key);
    k.counts.set(id, b.n);
    if (b.aggs) k.subs.set(id, b.aggs);
  }
  if (first.more) {
    first.more.keys.forEach((key, i) => {
      const id = mk(key);
      keys.set(id, key);
      k.counts.set(id, first.more!.counts[i]);
    });
  }
  k.bound = first.complete ? 0 : first.cutoff;
  k.cutoff = k.bound;
  for (const { task, reply } of input.replies) {
    for (const b of reply.buckets) {
      const id = mk(b.key);
      keys.set(id, b.key);
      k.counts.set(id, b.n);
      if (b.aggs) k.subs.set(id, b.aggs);
    }
    if (task.threshold) k.bound = Math.min(k.bound, task.threshold.min - 1);
    if (task.include) {
      for (const key of task.include) {
        const id = mk(key);
        if (!k.counts.has(id)) k.counts.set(id, 0);
        if (task.subAggs && !k.subs.has(id)) k.subs.set(id, []);
      }
    }
  }
  return k;
}

/**
 * Sorts bucket ids by a `full` order (one on sub-aggregation values, compared on every shard's
 * partials at once): each criterion in turn (`_count` on the summed counts `L`, `_key`, or an order
 * path), buckets without a value last, ties by key.
 */
function sortByFullOrder(
  node: TermsAgg,
  ids: string[],
  keys: ReadonlyMap<string, BucketKey>,
  L: ReadonlyMap<string, number>,
  ks: readonly Knowledge[],
  orderValue: (path: string, subs: readonly (AggPartial[] | undefined)[]) => number | null,
): string[] {
  const values = new Map<string, (number | null)[]>();
  const paths = node.order.filter((o) => o.key !== '_count' && o.key !== '_key');
  for (const id of ids)
    values.set(
      id,
      paths.map((o) =>
        orderValue(
          o.key,
          ks.map((k) => k.subs.get(id)),
        ),
      ),
    );
  return ids.sort((a, b) => {
    let p = 0;
    for (const o of node.order) {
      let c: number;
      if (o.key === '_count') c = L.get(a)! - L.get(b)!;
      else if (o.key === '_key') c = compareKeys(keys.get(a)!, keys.get(b)!);
      else {
        const va = values.get(a)![p];
        const vb = values.get(b)![p++];
        if (va === null || vb === null) {
          if (va !== vb) return va === null ? 1 : -1; // buckets without a value sort last either way
          continue;
        }
        c = va - vb;
      }
      if (c !== 0) return o.asc ? c : -c;
    }
    return compareKeys(keys.get(a)!, keys.get(b)!);
  });
}

/**
 * Settles one terms aggregation from what `shards` have said (parallel to the participating shards).
 * A count-ordered include task asks sub-aggregations only for a likely winner (its lower bound at τ);
 * a contender's come in a later round if it wins.
 * @param orderValue for `full` orders on a sub-aggregation: the bucket's value at an order path
 *   (from the sub-aggregation partials of every shard), null when it has none
 */
export function settleTerms(
  node: TermsAgg,
  shards: readonly ShardTermsInput[],
  orderValue: (path: string, subs: readonly (AggPartial[] | undefined)[]) => number | null = () => null,
): SettleOutcome {
  const mode = termsMode(node);
  const keys = new Map<string, BucketKey>();
  const ks = shards.map((s) => know(s, keys));
  const withSubs = node.aggs.length > 0;
  const lower = (id: string): number => ks.reduce((n, k) => n + (k.counts.get(id) ?? 0), 0);
  const ids = [...keys.keys()];
  const L = new Map(ids.map((id) => [id, lower(id)]));
  const mdc = node.minDocCount;
  const tasks = new Map<number, Omit<TermsRefineTask, 'path' | 'agg'>[]>();
  const addTask = (i: number, t: Omit<TermsRefineTask, 'path' | 'agg'>) => {
    const list = tasks.get(i) ?? [];
    list.push(t);
    tasks.set(i, list);
  };

  let sorted: string[];
  if (mode === 'full') {
    sorted = sortByFullOrder(node, ids, keys, L, ks, orderValue);
  } else {
    const cmp = countKeyComparator(node.order);
    sorted = ids.sort((a, b) => cmp(keys.get(a)!, L.get(a)!, keys.get(b)!, L.get(b)!));
  }
  const qualifying = sorted.filter((id) => L.get(id)! >= mdc && (mdc > 0 || mode === 'full'));
  const winners = qualifying.slice(0, node.size);

  if (mode === 'count') {
    const tau = qualifying.length >= node.size ? L.get(qualifying[node.size - 1])! : Math.max(1, mdc);
    for (const id of ids) {
      const unknown = ks.map((k, i) => (!k.counts.has(id) && k.bound > 0 ? i : -1)).filter((i) => i >= 0);
      if (unknown.length === 0) continue;
      const upper = L.get(id)! + unknown.reduce((n, i) => n + ks[i].bound, 0);
      if (upper >= tau) for (const i of unknown) addTask(i, { include: [keys.get(id)!], ...(withSubs && L.get(id)! >= tau ? { subAggs: true } : {}) });
    }
    const unseen = ks.reduce((n, k) => n + k.bound, 0);
    if (unseen >= tau) {
      const open = ks.filter((k) => k.bound > 0).length;
      const t = Math.max(1, Math.ceil(tau / open));
      ks.forEach((k, i) => {
        if (k.bound >= t) addTask(i, { threshold: { min: t, max: k.cutoff } });
      });
    }
  }
  if (tasks.size === 0 && withSubs) {
    // Counts are settled: every shard with docs in a winning bucket must have sent its sub-aggregations.
    for (const id of winners)
      ks.forEach((k, i) => {
        if ((k.counts.get(id) ?? 0) > 0 && !k.subs.has(id)) addTask(i, { include: [keys.get(id)!], subAggs: true });
      });
  }
  if (tasks.size > 0) return { settled: false, tasks: mergeIncludes(tasks) };
  let total = 0;
  for (const k of ks) total += k.total;
  const buckets = winners.map((id) => ({ key: keys.get(id)!, n: L.get(id)!, subs: ks.map((k) => ((k.counts.get(id) ?? 0) > 0 ? k.subs.get(id) : undefined)) }));
  const inBuckets = buckets.reduce((n, b) => n + b.n, 0);
  return { settled: true, buckets, sumOther: total - inBuckets, order: mode };
}

/** Per shard, at most two include tasks (keys joined: with sub-aggregations, and counts only); threshold tasks as they are. */
function mergeIncludes(tasks: Map<number, Omit<TermsRefineTask, 'path' | 'agg'>[]>): Map<number, Omit<TermsRefineTask, 'path' | 'agg'>[]> {
  const out = new Map<number, Omit<TermsRefineTask, 'path' | 'agg'>[]>();
  for (const [i, list] of tasks) {
    const withSubs: BucketKey[] = [];
    const countsOnly: BucketKey[] = [];
    const rest: Omit<TermsRefineTask, 'path' | 'agg'>[] = [];
    for (const t of list) {
      if (t.include) (t.subAggs === true ? withSubs : countsOnly).push(...t.include);
      else rest.push(t);
    }
    if (countsOnly.length > 0) rest.push({ include: countsOnly });
    if (withSubs.length > 0) rest.push({ include: withSubs, subAggs: true });
    out.set(i, rest);
  }
  return out;
}
