/**
 * A deterministic automaton for a parsed Lucene regular expression (regexp-parse.ts), built eagerly
 * from Brzozowski derivatives over the expression's character classes (Owens, Reppy and Turon,
 * "Regular-expression derivatives re-examined", 2009), then run over terms in linear time: one table
 * step per character, no backtracking whatever the pattern. Derivatives handle Lucene's complement
 * (`~`) and intersection (`&`) directly, where a Thompson NFA could not.
 *
 * Like Lucene's `Operations.determinize`, construction stops with a {@link TooComplexError} once the
 * automaton would exceed `max_determinized_states` states; it also stops after a fixed amount of
 * derivative work (`MAX_DERIVATIVE_WORK` (regexp-derivatives.ts)), so a hostile pattern costs bounded time. The
 * derivatives themselves are regexp-derivatives.ts's.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/automaton/Operations.java
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/automaton/TooComplexToDeterminizeException.java
 */
import type { Rx } from './regexp-parse.ts';
import { DerivativeBuilder, NONE, TooComplexError } from './regexp-derivatives.ts';

/** ES `max_determinized_states` default (Lucene `Operations.DEFAULT_DETERMINIZE_WORK_LIMIT / 10`). */
export const DEFAULT_MAX_DETERMINIZED_STATES = 10_000;

/** The dead state: no continuation matches. */
const DEAD = -1;

/**
 * The states from which every continuation is accepted (`@`, `.*`): accepting states all of whose
 * transitions lead to such states (the greatest fixpoint, starting from every accepting state).
 */
function universalStates(targets: readonly Int32Array[], accept: Uint8Array): Uint8Array {
  const out = Uint8Array.from(accept);
  for (let changed = true; changed;) {
    changed = false;
    for (let s = 0; s < targets.length; s++) {
      if (!out[s]) continue;
      for (const t of targets[s]) {
        if (t === DEAD || !out[t]) {
          out[s] = 0;
          changed = true;
          break;
        }
      }
    }
  }
  return out;
}

/**
 * A minimal-enough DFA over code points: state 0 is the start; each state has interval starts and
 * the target of each interval, an ASCII fast table, and whether it accepts.
 */
export class RegexpAutomaton {
  private readonly starts: Int32Array[];
  private readonly targets: Int32Array[];
  private readonly ascii: Int32Array;
  private readonly accept: Uint8Array;
  /** States that accept every continuation (`@`, `.*`): a match is decided there. */
  private readonly acceptsAll: Uint8Array;

  private constructor(starts: Int32Array[], targets: Int32Array[], accept: Uint8Array) {
    this.starts = starts;
    this.targets = targets;
    this.accept = accept;
    this.acceptsAll = universalStates(targets, accept);
    this.ascii = new Int32Array(starts.length * 128);
    for (let s = 0; s < starts.length; s++) for (let c = 0; c < 128; c++) this.ascii[s * 128 + c] = this.lookup(s, c);
  }

  /** Number of states (the dead state not counted). */
  get size(): number {
    return this.starts.length;
  }

  /**
   * Determinizes a parsed expression.
   * @throws TooComplexError past `maxStates` states or `MAX_DERIVATIVE_WORK` (regexp-derivatives.ts) steps.
   */
  static build(rx: Rx, maxStates = DEFAULT_MAX_DETERMINIZED_STATES): RegexpAutomaton {
    const b = new DerivativeBuilder();
    const root = b.fromRx(rx);
    const stateOf = new Map<number, number>();
    const queue: number[] = [];
    const state = (id: number): number => {
      if (id === NONE) return DEAD;
      let s = stateOf.get(id);
      if (s === undefined) {
        s = queue.length;
        if (s >= maxStates) {
          throw new TooComplexError(`Determinizing automaton with ${b.nodes.length} states would result in more than ${maxStates} states.`);
        }
        stateOf.set(id, s);
        queue.push(id);
      }
      return s;
    };
    if (root === NONE) return new RegexpAutomaton([Int32Array.of(0)], [Int32Array.of(DEAD)], Uint8Array.of(0));
    state(root);
    const starts: Int32Array[] = [];
    const targets: Int32Array[] = [];
    for (let s = 0; s < queue.length; s++) {
      const id = queue[s];
      const cls = [0, ...b.classStarts(id)];
      const st: number[] = [];
      const tg: number[] = [];
      for (const c of cls) {
        const t = state(b.derive(id, c));
        if (tg.length > 0 && tg[tg.length - 1] === t) continue; // adjacent intervals with one target
        st.push(c);
        tg.push(t);
      }
      starts.push(Int32Array.from(st));
      targets.push(Int32Array.from(tg));
    }
    return new RegexpAutomaton(
      starts,
      targets,
      Uint8Array.from(queue, (id) => (b.nodes[id].nullable ? 1 : 0)),
    );
  }

  private lookup(s: number, c: number): number {
    const st = this.starts[s];
    let lo = 0;
    let hi = st.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (st[mid] <= c) lo = mid;
      else hi = mid - 1;
    }
    return this.targets[s][lo];
  }

  /** True when the whole `term` is in the language (one table step per code point). */
  matches(term: string): boolean {
    let s = 0;
    const ascii = this.ascii;
    for (let i = 0; i < term.length;) {
      if (this.acceptsAll[s]) return true;
      let c = term.charCodeAt(i);
      if (c < 128) {
        s = ascii[s * 128 + c];
        i++;
      } else {
        c = term.codePointAt(i)!;
        i += c > 0xffff ? 2 : 1;
        s = this.lookup(s, c);
      }
      if (s === DEAD) return false;
    }
    return this.accept[s] === 1;
  }
}
