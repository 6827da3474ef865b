/**
 * The executable form of a query (Lucene's `Weight` tree): what query-compile.ts produces from the
 * protocol's query tree and query-exec.ts evaluates per segment, with BM25 weights resolved. Also
 * what the compilers of each query family (term-level-compile.ts, multi-term-compile.ts,
 * full-text-compile.ts) read from the compiler they work for ({@link CompileContext}).
 * @see https://lucene.apache.org/core/9_0_0/core/org/apache/lucene/search/Weight.html
 */
import type { FieldMapping } from '../../protocol/mapping.ts';
import type { Query } from '../../protocol/query-ast.ts';
import type { FieldStatistics, TermStatistics } from '../../protocol/search.ts';
import type { ValueList } from './matchers.ts';
import type { MultiTermContext, ScanBudget } from './multi-term.ts';
import type { Segment } from './segment.ts';
import type { Bm25Scorer } from './similarity.ts';

/** Where term and field statistics come from (the generation, or the request's dfs stats). */
export interface StatsSource {
  field(field: string): FieldStatistics;
  term(field: string, term: string): TermStatistics;
}

/** An executable query node. Scores are floats; `const` leaves score their boost. */
export type Plan =
  | { t: 'term'; field: string; term: string; scorer: Bm25Scorer }
  | { t: 'phrase'; field: string; terms: string[]; slop: number; scorer: Bm25Scorer }
  | { t: 'const'; score: number; match: (seg: Segment) => Int32Array }
  | { t: 'bool'; must: Plan[]; should: Plan[]; filter: Plan[]; mustNot: Plan[]; msm: number }
  | { t: 'dismax'; queries: Plan[]; tie: number }
  | { t: 'constant'; inner: Plan; score: number }
  | { t: 'none' };

/** The plan that matches nothing. */
export const NONE: Plan = { t: 'none' };

/** Scores are floats, as Lucene's. */
export const f = Math.fround;

/** A constant-score leaf: the docs `match` returns per segment, each scoring `boost`. */
export function constantPlan(boost: number, match: (seg: Segment) => Int32Array): Plan {
  return { t: 'const', score: f(boost), match };
}

/** ES `match_only_text`: matches like text, each term or phrase scoring its boost (no frequencies or norms). */
export function unscored(fm: FieldMapping, plan: Plan, boost: number): Plan {
  return fm.type === 'match_only_text' ? { t: 'constant', inner: plan, score: f(boost) } : plan;
}

/** What the compiler of one query family reads from the compiler it works for (query-compile.ts `QueryCompiler`). */
export interface CompileContext {
  /** The index mapping, flattened to field paths, without field aliases (what `*` patterns expand to). */
  readonly fields: ReadonlyMap<string, FieldMapping>;
  readonly stats: StatsSource;
  /** What multi-term queries (prefix, wildcard, fuzzy) expand against: the shard's term dictionary. */
  readonly multiTerm: MultiTermContext;
  /** The dictionary terms this query's scanning leaves will read (bounded: multi-term.ts). */
  readonly scans: ScanBudget;
  /** The mapping of a queried field (a mapped field, `_ignored`, or a keyed path of a flattened field). */
  field(name: string): FieldMapping | undefined;
  /** A value list for a `terms` or `ids` query, kept to prepare in slices. */
  valueList(values: readonly string[]): ValueList;
  /** Field names matching a pattern (`name*`), or the name itself; an alias stands for its path. */
  expand(field: string): string[];
  /** A BM25-scored TermQuery. */
  termPlan(field: string, term: string, boost: number): Plan;
  /** Compiles a sub-query with an outer boost. */
  compile(q: Query, boost: number): Plan;
  /**
   * Counts one field copy of a `multi_field` node.
   * @throws EsError 400 `too_many_nested_clauses` past the clause limit.
   */
  countFieldCopy(): void;
}
