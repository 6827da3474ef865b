/**
 * Brzozowski derivatives of a parsed Lucene regular expression (regexp-parse.ts), what
 * regexp-automaton.ts determinizes: expression nodes are hash-consed, and the smart constructors
 * keep `|` and `&` associative, commutative and idempotent so that a pattern has finitely many
 * distinct derivatives (Owens, Reppy and Turon, "Regular-expression derivatives re-examined", 2009).
 * Derivatives are taken per character class: {@link DerivativeBuilder.classStarts} gives the code
 * points where a node's derivative may change. The work is bounded ({@link MAX_DERIVATIVE_WORK}):
 * past it the pattern is refused with Lucene's {@link TooComplexError}.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/automaton/TooComplexToDeterminizeException.java
 */
import { MAX_CODE_POINT, type Rx } from './regexp-parse.ts';

/**
 * Derivative nodes one automaton may create or visit while it is built: about 50–150 ms of work. Past
 * it the pattern is refused as too complex, like a pattern over `max_determinized_states`.
 */
export const MAX_DERIVATIVE_WORK = 1_000_000;

/** Lucene's `TooComplexToDeterminizeException`: the automaton would exceed its state budget. */
export class TooComplexError extends Error {}

/** A hash-consed expression node; `id` indexes {@link DerivativeBuilder.nodes}. */
export type Node =
  | { k: 'none' | 'eps'; nullable: boolean }
  | { k: 'set'; nullable: false; ranges: number[] }
  | { k: 'cat'; nullable: boolean; a: number; b: number }
  | { k: 'or' | 'and'; nullable: boolean; kids: number[] }
  | { k: 'rep'; nullable: boolean; r: number; min: number; max: number }
  | { k: 'not'; nullable: boolean; r: number };

/** The node of no string (Lucene `#`). */
export const NONE = 0;
const EPS = 1;
/** `~#`, every string (Lucene `@`). */
const ALL = 2;

/** Whether `c` falls in normalized ranges (binary search). */
function inRanges(ranges: readonly number[], c: number): boolean {
  let lo = 0;
  let hi = (ranges.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (c < ranges[2 * mid]) hi = mid - 1;
    else if (c > ranges[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Intersection of two normalized range lists. */
function intersectRanges(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i], b[j]);
    const hi = Math.min(a[i + 1], b[j + 1]);
    if (lo <= hi) out.push(lo, hi);
    if (a[i + 1] < b[j + 1]) i += 2;
    else j += 2;
  }
  return out;
}

/** Union of two normalized range lists. */
function unionRanges(a: readonly number[], b: readonly number[]): number[] {
  const all: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const takeA = j >= b.length || (i < a.length && a[i] <= b[j]);
    const lo = takeA ? a[i] : b[j];
    const hi = takeA ? a[i + 1] : b[j + 1];
    if (takeA) i += 2;
    else j += 2;
    if (all.length > 0 && lo <= all[all.length - 1] + 1) all[all.length - 1] = Math.max(all[all.length - 1], hi);
    else all.push(lo, hi);
  }
  return all;
}

/** Hash-consing node factory with the smart constructors that keep derivatives finite (ACI of `|` and `&`). */
export class DerivativeBuilder {
  readonly nodes: Node[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly derivatives = new Map<number, Map<number, number>>();
  private readonly boundaries = new Map<number, number[]>();
  private work = 0;

  constructor() {
    this.intern('none', { k: 'none', nullable: false });
    this.intern('eps', { k: 'eps', nullable: true });
    this.intern(`n:${NONE}`, { k: 'not', nullable: true, r: NONE });
  }

  /** Counts `units` of work (a node made or visited, a union member flattened), refusing past the budget. */
  private tick(units = 1): void {
    this.work += units;
    if (this.work > MAX_DERIVATIVE_WORK) throw new TooComplexError(`Determinizing automaton would take more than ${MAX_DERIVATIVE_WORK} steps.`);
  }

  private intern(key: string, node: Node): number {
    const hit = this.byKey.get(key);
    if (hit !== undefined) return hit;
    this.tick();
    this.nodes.push(node);
    this.byKey.set(key, this.nodes.length - 1);
    return this.nodes.length - 1;
  }

  set(ranges: number[]): number {
    if (ranges.length === 0) return NONE;
    return this.intern(`s:${ranges.join(',')}`, { k: 'set', nullable: false, ranges });
  }

  cat(a: number, b: number): number {
    if (a === NONE || b === NONE) return NONE;
    if (a === EPS) return b;
    if (b === EPS) return a;
    const na = this.nodes[a];
    if (na.k === 'cat') return this.cat(na.a, this.cat(na.b, b)); // right-associated
    return this.intern(`c:${a},${b}`, { k: 'cat', nullable: na.nullable && this.nodes[b].nullable, a, b });
  }

  or(items: readonly number[]): number {
    const kids = new Set<number>();
    let chars: number[] | null = null;
    const add = (id: number): boolean => {
      this.tick();
      const n = this.nodes[id];
      if (id === ALL) return true;
      if (n.k === 'or') {
        for (const k of n.kids) if (add(k)) return true;
      } else if (n.k === 'set') chars = chars ? unionRanges(chars, n.ranges) : n.ranges;
      else if (id !== NONE) kids.add(id);
      return false;
    };
    for (const id of items) if (add(id)) return ALL;
    if (chars) kids.add(this.set(chars));
    return this.combine('or', kids, NONE);
  }

  and(items: readonly number[]): number {
    const kids = new Set<number>();
    let chars: number[] | null = null;
    const add = (id: number): boolean => {
      this.tick();
      const n = this.nodes[id];
      if (id === NONE) return true;
      if (n.k === 'and') {
        for (const k of n.kids) if (add(k)) return true;
      } else if (n.k === 'set') chars = chars ? intersectRanges(chars, n.ranges) : n.ranges;
      else if (id !== ALL) kids.add(id);
      return false;
    };
    for (const id of items) if (add(id)) return NONE;
    if (chars) {
      if ((chars as number[]).length === 0) return NONE;
      kids.add(this.set(chars));
    }
    return this.combine('and', kids, ALL);
  }

  private combine(k: 'or' | 'and', kids: Set<number>, empty: number): number {
    if (kids.size === 0) return empty;
    if (kids.size === 1) return kids.values().next().value!;
    this.tick(kids.size);
    const sorted = [...kids].sort((x, y) => x - y);
    const nullable = k === 'or' ? sorted.some((id) => this.nodes[id].nullable) : sorted.every((id) => this.nodes[id].nullable);
    return this.intern(`${k}:${sorted.join(',')}`, { k, nullable, kids: sorted });
  }

  not(r: number): number {
    const n = this.nodes[r];
    if (n.k === 'not') return n.r;
    return this.intern(`n:${r}`, { k: 'not', nullable: !n.nullable, r });
  }

  rep(r: number, min: number, max: number): number {
    if (max < min) return NONE;
    if (r === NONE) return min === 0 ? EPS : NONE;
    if (r === EPS || max === 0) return EPS;
    const n = this.nodes[r];
    if (n.nullable) min = 0; // an iteration may match nothing
    if (min === 1 && max === 1) return r;
    if (n.k === 'rep' && n.min === 0 && n.max === Infinity && min === 0) return r; // (r*)* = r*, (r*){0,m} = r*
    return this.intern(`r:${r},${min},${max}`, { k: 'rep', nullable: min === 0 || n.nullable, r, min, max });
  }

  /** Builds the node of a parsed expression. */
  fromRx(e: Rx): number {
    switch (e.t) {
      case 'set':
        return this.set(e.ranges);
      case 'eps':
        return EPS;
      case 'none':
        return NONE;
      case 'all':
        return ALL;
      case 'cat': {
        let id = EPS;
        for (let i = e.parts.length - 1; i >= 0; i--) id = this.cat(this.fromRx(e.parts[i]), id);
        return id;
      }
      case 'or':
        return this.or(e.parts.map((p) => this.fromRx(p)));
      case 'and':
        return this.and(e.parts.map((p) => this.fromRx(p)));
      case 'rep':
        return this.rep(this.fromRx(e.r), e.min, e.max);
      case 'not':
        return this.not(this.fromRx(e.r));
    }
  }

  /** The derivative of node `id` by code point `c`: the strings s such that c·s is in the node's language. */
  derive(id: number, c: number): number {
    let memo = this.derivatives.get(id);
    if (!memo) {
      memo = new Map();
      this.derivatives.set(id, memo);
    }
    const hit = memo.get(c);
    if (hit !== undefined) return hit;
    this.tick();
    const n = this.nodes[id];
    let out: number;
    switch (n.k) {
      case 'none':
      case 'eps':
        out = NONE;
        break;
      case 'set':
        out = inRanges(n.ranges, c) ? EPS : NONE;
        break;
      case 'cat': {
        const first = this.cat(this.derive(n.a, c), n.b);
        out = this.nodes[n.a].nullable ? this.or([first, this.derive(n.b, c)]) : first;
        break;
      }
      case 'or':
        out = this.or(n.kids.map((k) => this.derive(k, c)));
        break;
      case 'and':
        out = this.and(n.kids.map((k) => this.derive(k, c)));
        break;
      case 'rep':
        out = this.cat(this.derive(n.r, c), this.rep(n.r, Math.max(0, n.min - 1), n.max - 1));
        break;
      case 'not':
        out = this.not(this.derive(n.r, c));
        break;
    }
    memo.set(c, out);
    return out;
  }

  /**
   * Code points where the node's derivative may change (the starts of its derivative classes,
   * 0 excluded): every code point in one interval between two boundaries gives the same derivative.
   */
  classStarts(id: number): number[] {
    const hit = this.boundaries.get(id);
    if (hit) return hit;
    this.tick();
    const n = this.nodes[id];
    let out: number[];
    switch (n.k) {
      case 'none':
      case 'eps':
        out = [];
        break;
      case 'set':
        out = [];
        for (let i = 0; i < n.ranges.length; i += 2) {
          if (n.ranges[i] > 0) out.push(n.ranges[i]);
          if (n.ranges[i + 1] < MAX_CODE_POINT) out.push(n.ranges[i + 1] + 1);
        }
        break;
      case 'cat':
        out = this.nodes[n.a].nullable ? mergeSorted(this.classStarts(n.a), this.classStarts(n.b)) : this.classStarts(n.a);
        break;
      case 'or':
      case 'and':
        out = [];
        for (const k of n.kids) out = mergeSorted(out, this.classStarts(k));
        break;
      case 'rep':
      case 'not':
        out = this.classStarts(n.r);
        break;
    }
    this.boundaries.set(id, out);
    return out;
  }
}

/** Union of two sorted lists without duplicates. */
function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  if (a.length === 0) return b as number[];
  if (b.length === 0) return a as number[];
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = j >= b.length || (i < a.length && a[i] < b[j]) ? a[i++] : b[j++];
    if (out.length === 0 || out[out.length - 1] !== x) out.push(x);
  }
  return out;
}
