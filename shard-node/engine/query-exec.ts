/**
 * Executes a compiled {@link Plan} over one segment, term-at-a-time: every node yields its matching
 * doc ordinals (ascending, deleted docs included) and, when scoring, a float score per match.
 * Combination follows Lucene: bool sums the scores of matching MUST and SHOULD clauses (in double,
 * cast to float), FILTER/MUST_NOT do not score, dis_max is `max + tie * (sum - max)`.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/BooleanWeight.java
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/DisjunctionMaxScorer.java
 */
import { NO_NORMS } from './similarity.ts';
import type { Plan } from './query-plan.ts';
import type { Segment } from './segment.ts';

/** Matches of one node in one segment; `scores[i]` belongs to `docs[i]` (null when not scoring). */
export interface Matches {
  docs: Int32Array;
  scores: Float64Array | null;
}

const EMPTY: Matches = { docs: new Int32Array(0), scores: null };
const f = Math.fround;

function constScores(docs: Int32Array, score: number, scoring: boolean): Matches {
  return { docs, scores: scoring ? new Float64Array(docs.length).fill(score) : null };
}

/** Lucene phrase frequency of one doc: exact (count of matches) or sloppy (sum of 1/(1+distance)). */
function phraseFreq(posLists: Int32Array[], slop: number): number {
  const first = posLists[0];
  let freq = 0;
  for (let i = 0; i < first.length; i++) {
    const p0 = first[i];
    if (slop === 0) {
      let ok = true;
      for (let t = 1; t < posLists.length && ok; t++) ok = posLists[t].includes(p0 + t);
      if (ok) freq++;
      continue;
    }
    // Sloppy: for each term take the position closest to where the phrase expects it; the match
    // length is the spread of the (position - offset) values (Lucene SloppyPhraseMatcher's distance).
    let lo = p0;
    let hi = p0;
    for (let t = 1; t < posLists.length; t++) {
      let best = Infinity;
      let bestOff = 0;
      for (const q of posLists[t]) {
        const off = q - t;
        const d = Math.abs(off - p0);
        if (d < best) {
          best = d;
          bestOff = off;
        }
      }
      if (bestOff < lo) lo = bestOff;
      if (bestOff > hi) hi = bestOff;
    }
    const len = hi - lo;
    if (len <= slop) freq += f(1 / (len + 1));
  }
  return freq;
}

function evalPhrase(p: Extract<Plan, { t: 'phrase' }>, seg: Segment, scoring: boolean): Matches {
  const inv = seg.inverted.get(p.field);
  if (!inv) return EMPTY;
  const lists = p.terms.map((t) => inv.terms.get(t));
  if (lists.some((l) => !l || !l.positions)) return EMPTY;
  const pls = lists as NonNullable<(typeof lists)[number]>[];
  // Conjunction of the postings, driven by the rarest term.
  const order = pls.map((_, i) => i).sort((a, b) => pls[a].docs.length - pls[b].docs.length);
  const cursors = new Int32Array(pls.length);
  const docs: number[] = [];
  const scores: number[] = [];
  const lead = pls[order[0]];
  outer: for (let i = 0; i < lead.docs.length; i++) {
    const d = lead.docs[i];
    const idx = new Int32Array(pls.length);
    idx[order[0]] = i;
    for (let k = 1; k < order.length; k++) {
      const pl = pls[order[k]];
      let c = cursors[order[k]];
      while (c < pl.docs.length && pl.docs[c] < d) c++;
      cursors[order[k]] = c;
      if (c >= pl.docs.length) break outer;
      if (pl.docs[c] !== d) continue outer;
      idx[order[k]] = c;
    }
    const posLists = pls.map((pl, t) => pl.positions!.subarray(pl.posStarts![idx[t]], pl.posStarts![idx[t] + 1]));
    const freq = phraseFreq(posLists, p.slop);
    if (freq <= 0) continue;
    docs.push(d);
    if (scoring) scores.push(p.scorer.score(freq, inv.norms ? inv.norms[d] : NO_NORMS));
  }
  return { docs: Int32Array.from(docs), scores: scoring ? Float64Array.from(scores) : null };
}

function evalBool(p: Extract<Plan, { t: 'bool' }>, seg: Segment, scoring: boolean): Matches {
  const nReq = p.must.length + p.filter.length;
  // Fast path: a single required clause and nothing else.
  if (nReq === 1 && p.should.length === 0 && p.mustNot.length === 0) {
    if (p.must.length === 1) return evaluate(p.must[0], seg, scoring);
    const m = evaluate(p.filter[0], seg, false);
    return { docs: m.docs, scores: scoring ? new Float64Array(m.docs.length) : null };
  }
  const n = seg.maxDoc;
  const acc = scoring ? new Float64Array(n) : null;
  const req = nReq > 0 ? new Uint16Array(n) : null;
  const opt = p.should.length > 0 ? new Uint16Array(n) : null;
  const excl = p.mustNot.length > 0 ? new Uint8Array(n) : null;
  const add = (m: Matches, counts: Uint16Array | null): void => {
    const { docs, scores } = m;
    for (let i = 0; i < docs.length; i++) {
      if (counts) counts[docs[i]]++;
      if (acc && scores) acc[docs[i]] += scores[i];
    }
  };
  for (const c of p.must) add(evaluate(c, seg, scoring), req);
  for (const c of p.filter) add(evaluate(c, seg, false), req);
  for (const c of p.should) add(evaluate(c, seg, scoring), opt);
  for (const c of p.mustNot) for (const d of evaluate(c, seg, false).docs) excl![d] = 1;
  // Only should clauses: at least one must match (and at least msm). Only must_not: all other docs
  // match with score 0 (ES adds a match_all FILTER to purely negative bools).
  const needOpt = nReq === 0 && p.should.length > 0 ? Math.max(1, p.msm) : p.msm;
  const docs: number[] = [];
  const scores: number[] = [];
  for (let d = 0; d < n; d++) {
    if (req && req[d] !== nReq) continue;
    if (needOpt > 0 && (!opt || opt[d] < needOpt)) continue;
    if (excl && excl[d]) continue;
    docs.push(d);
    if (acc) scores.push(f(acc[d]));
  }
  return { docs: Int32Array.from(docs), scores: acc ? Float64Array.from(scores) : null };
}

function evalDisMax(p: Extract<Plan, { t: 'dismax' }>, seg: Segment, scoring: boolean): Matches {
  if (p.queries.length === 1) return evaluate(p.queries[0], seg, scoring);
  const n = seg.maxDoc;
  const hit = new Uint8Array(n);
  const max = scoring ? new Float64Array(n) : null;
  const sum = scoring ? new Float64Array(n) : null;
  for (const c of p.queries) {
    const m = evaluate(c, seg, scoring);
    for (let i = 0; i < m.docs.length; i++) {
      const d = m.docs[i];
      hit[d] = 1;
      if (max && sum && m.scores) {
        const s = m.scores[i];
        sum[d] += s;
        if (s > max[d]) max[d] = s;
      }
    }
  }
  const docs: number[] = [];
  const scores: number[] = [];
  for (let d = 0; d < n; d++) {
    if (!hit[d]) continue;
    docs.push(d);
    if (max && sum) scores.push(f(max[d] + (sum[d] - max[d]) * p.tie));
  }
  return { docs: Int32Array.from(docs), scores: scoring ? Float64Array.from(scores) : null };
}

/**
 * Evaluates `plan` over `seg`. With `scoring` false no scores are computed (filter context, or a
 * sort without `_score`), which is much cheaper.
 */
export function evaluate(plan: Plan, seg: Segment, scoring: boolean): Matches {
  switch (plan.t) {
    case 'none':
      return EMPTY;
    case 'const':
      return constScores(plan.match(seg), plan.score, scoring);
    case 'constant':
      return constScores(evaluate(plan.inner, seg, false).docs, plan.score, scoring);
    case 'term': {
      const inv = seg.inverted.get(plan.field);
      if (!inv) return EMPTY;
      if (!scoring) {
        const docs = inv.terms.docs(plan.term);
        return docs ? { docs, scores: null } : EMPTY;
      }
      // Positions are not decoded: a term scores on its freqs.
      const pl = inv.terms.docsAndFreqs(plan.term);
      if (!pl) return EMPTY;
      const scores = new Float64Array(pl.docs.length);
      const norms = inv.norms;
      for (let i = 0; i < pl.docs.length; i++) {
        scores[i] = plan.scorer.score(pl.freqs ? pl.freqs[i] : 1, norms ? norms[pl.docs[i]] : NO_NORMS);
      }
      return { docs: pl.docs, scores };
    }
    case 'phrase':
      return evalPhrase(plan, seg, scoring);
    case 'bool':
      return evalBool(plan, seg, scoring);
    case 'dismax':
      return evalDisMax(plan, seg, scoring);
  }
}

/**
 * The live matches of `plan` in one segment, counted without collecting them where an index
 * statistic answers, as Lucene's `Weight.count`: a term in a segment without deletions matches
 * its `docFreq` documents (TermWeight.count); nothing matches `none`; any other plan is evaluated
 * unscored and its live matches counted. `live` is the segment's live-docs bitset (null: none deleted).
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/TermQuery.java
 */
export function countMatches(plan: Plan, seg: Segment, live: Uint8Array | null): number {
  if (plan.t === 'none') return 0;
  if (plan.t === 'term' && live === null) return seg.inverted.get(plan.field)?.terms.stats(plan.term)?.docFreq ?? 0;
  const { docs } = evaluate(plan, seg, false);
  if (live === null) return docs.length;
  let n = 0;
  for (const d of docs) n += live[d];
  return n;
}

/**
 * The score every match of `plan` gets in all of `segs` when it is provably the same, else null:
 * `match_all`, `exists`, `terms`, `range`, `prefix`, `ids` and `constant_score` score their boost;
 * a term on a field indexed without freqs and norms (keyword, boolean) scores `scorer(1, NO_NORMS)`;
 * a bool sums its constant MUST (and all-zero SHOULD) clauses as {@link evaluate} does (FILTER and
 * MUST_NOT score 0); a dis_max with tie 0 over equal constants scores that constant. Bit-exact with
 * {@link evaluate}, so a `_score` sort clause compares equal for every pair of matches.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/search/ConstantScoreQuery.java
 */
export function constantScore(plan: Plan, segs: readonly Segment[]): number | null {
  switch (plan.t) {
    case 'none':
      return 0; // matches nothing: any constant
    case 'const':
    case 'constant':
      return plan.score;
    case 'term': {
      for (const seg of segs) {
        const inv = seg.inverted.get(plan.field);
        if (inv && (inv.norms !== null || inv.terms.hasFreqs) && inv.terms.has(plan.term)) return null;
      }
      return plan.scorer.score(1, NO_NORMS);
    }
    case 'phrase':
      return null;
    case 'bool': {
      const nReq = plan.must.length + plan.filter.length;
      if (nReq === 1 && plan.should.length === 0 && plan.mustNot.length === 0) {
        return plan.must.length === 1 ? constantScore(plan.must[0], segs) : 0;
      }
      let sum = 0;
      for (const c of plan.must) {
        const s = constantScore(c, segs);
        if (s === null) return null;
        sum += s;
      }
      for (const c of plan.should) if (constantScore(c, segs) !== 0) return null;
      return f(sum);
    }
    case 'dismax': {
      if (plan.queries.length === 1) return constantScore(plan.queries[0], segs);
      if (plan.tie !== 0) return null;
      const first = constantScore(plan.queries[0], segs);
      if (first === null || first < 0) return null;
      for (const c of plan.queries) if (constantScore(c, segs) !== first) return null;
      return f(first);
    }
  }
}
