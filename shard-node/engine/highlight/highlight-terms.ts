/**
 * What a query highlights in one field: its term, phrase and prefix clauses that apply to the field
 * (ES's highlighters extract them from the query as Lucene's `WeightedSpanTermExtractor` and the
 * unified highlighter's `Weight#matches` do), with the query text analyzed as the clause's field
 * analyzes it. `must_not` clauses highlight nothing; `filter` clauses do (as in ES).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/highlighting.html#highlighting-settings
 */
import type { FieldMapping } from '../../../protocol/mapping.ts';
import type { Query } from '../../../protocol/query-ast.ts';
import { wildcardMatch } from '../../../shared/wildcard.ts';
import { analyzeTerms } from '../analyzer.ts';

/** One highlighting clause, matched against the analyzed tokens of a field value. */
export type HighlightClause =
  /**
   * Tokens equal to one of `terms` (lower-cased first with `caseInsensitive`); with `all`, only
   * when every term occurs in the field (`operator: and`).
   */
  | { kind: 'terms'; terms: ReadonlySet<string>; all: boolean; caseInsensitive?: boolean }
  /** Runs of tokens spelling `terms` in order, at most `slop` extra positions apart. */
  | { kind: 'phrase'; terms: readonly string[]; slop: number }
  /** Tokens that start with `prefix` (compared lower-cased with `caseInsensitive`). */
  | { kind: 'prefix'; prefix: string; caseInsensitive: boolean }
  /** Tokens a Lucene wildcard pattern (`*` any run, `?` one character) matches. */
  | { kind: 'wildcard'; pattern: string; caseInsensitive: boolean };

/** How clauses are picked for a field: `require_field_match`, and the mapping for each clause field's analysis. */
export interface ClauseContext {
  /** The highlighted field (full path). */
  field: string;
  requireFieldMatch: boolean;
  fields: ReadonlyMap<string, FieldMapping>;
}

/** A field alias's path (ES resolves an alias to its target's field type on both sides), else the name. */
function resolved(name: string, ctx: ClauseContext): string {
  const fm = ctx.fields.get(name);
  return fm?.type === 'alias' && fm.path !== undefined ? fm.path : name;
}

/** True when a clause on `clauseField` (a name, `*`, or a pattern) targets the highlighted field. */
function targets(clauseField: string, ctx: ClauseContext): boolean {
  if (!ctx.requireFieldMatch) return true;
  if (clauseField === ctx.field || clauseField === '*' || (clauseField.includes('*') && wildcardMatch(clauseField, ctx.field))) return true;
  return resolved(clauseField, ctx) === resolved(ctx.field, ctx);
}

/**
 * The terms of a query text in a field: analyzed by the standard analyzer for a text field (and
 * for `*`, a pattern, or an unmapped field: the highlighted field's own type decides), the whole
 * text for a keyword field.
 */
function queryTerms(text: string, clauseField: string, ctx: ClauseContext): string[] {
  const concrete = resolved(clauseField === '*' || clauseField.includes('*') ? ctx.field : clauseField, ctx);
  const fm = ctx.fields.get(concrete) ?? ctx.fields.get(resolved(ctx.field, ctx));
  return fm?.type === 'keyword' ? [text] : analyzeTerms(text);
}

/** A `match`-like clause: one term clause, or a phrase clause (with `phrase`). */
function textClause(text: string, field: string, ctx: ClauseContext, phrase: boolean, slop: number, all: boolean, out: HighlightClause[]): void {
  const terms = queryTerms(text, field, ctx);
  if (terms.length === 0) return;
  if (phrase && terms.length > 1) out.push({ kind: 'phrase', terms, slop });
  else out.push({ kind: 'terms', terms: new Set(terms), all: all && terms.length > 1 });
}

/**
 * The clauses of `q` that highlight `ctx.field`, in query order. Query kinds with nothing to
 * highlight (range, exists, ids, match_all, …) and kinds this module does not know add nothing.
 * @example highlightClauses({kind: 'match_phrase', field: 'body', query: 'Quick fox', slop: 0, boost: 1}, ctx) // [{kind: 'phrase', terms: ['quick', 'fox'], slop: 0}]
 */
export function highlightClauses(q: Query, ctx: ClauseContext, out: HighlightClause[] = []): HighlightClause[] {
  switch (q.kind) {
    case 'match':
      if (targets(q.field, ctx)) textClause(q.query, q.field, ctx, false, 0, q.operator === 'and', out);
      break;
    case 'match_phrase':
      if (targets(q.field, ctx)) textClause(q.query, q.field, ctx, true, q.slop, false, out);
      break;
    case 'multi_match':
      for (const f of q.fields) {
        if (!targets(f.field, ctx)) continue;
        textClause(q.query, f.field, ctx, q.type === 'phrase', 0, q.operator === 'and' && q.type !== 'cross_fields', out);
        if (!ctx.requireFieldMatch) break; // every field's terms are the same text
      }
      break;
    case 'term':
      if (targets(q.field, ctx)) {
        const value = String(q.value);
        out.push({
          kind: 'terms',
          terms: new Set([q.caseInsensitive ? value.toLowerCase() : value]),
          all: false,
          ...(q.caseInsensitive ? { caseInsensitive: true } : {}),
        });
      }
      break;
    case 'terms':
      if (targets(q.field, ctx)) out.push({ kind: 'terms', terms: new Set(q.values.map(String)), all: false });
      break;
    case 'prefix':
      if (targets(q.field, ctx)) out.push({ kind: 'prefix', prefix: q.value, caseInsensitive: q.caseInsensitive });
      break;
    case 'bool':
      for (const c of [...q.must, ...q.should, ...q.filter]) highlightClauses(c, ctx, out);
      break;
    case 'constant_score':
      highlightClauses(q.filter, ctx, out);
      break;
    case 'dis_max':
      for (const c of q.queries) highlightClauses(c, ctx, out);
      break;
    case 'wildcard':
      if (targets(q.field, ctx)) out.push({ kind: 'wildcard', pattern: q.value, caseInsensitive: q.caseInsensitive });
      break;
    // Kinds with nothing to highlight.
    case 'exists':
    case 'fuzzy':
    case 'ids':
    case 'match_all':
    case 'match_bool_prefix':
    case 'match_none':
    case 'match_phrase_prefix':
    case 'multi_field':
    case 'range':
    case 'regexp':
    case 'slice':
    case 'terms_lookup':
      break;
  }
  return out;
}
