/**
 * The Lucene classic query parser (the grammar of ES `query_string` and of the `q=` URI search)
 * turned into the shared {@link Query} AST. Clause occurrence follows `QueryParserBase.addClause`
 * exactly: with default operator OR plain clauses are SHOULD, `+` MUST, `-`/`!`/`NOT` MUST_NOT, and
 * `AND` makes both neighbours MUST; with default operator AND clauses are MUST unless joined by `OR`.
 * Terms become `match` (with the default operator), quoted text `match_phrase` (`"a b"~2` = slop),
 * `foo*` `prefix`, `f?o*` `wildcard`, `foo~1` `fuzzy`, `/re/` `regexp`, `*` match_all (or `exists`
 * on a concrete field), `field:*` and `_exists_:field` `exists`, `[a TO b]`/`{a TO b}`/`>=5` ranges.
 * A term runs on its `field:`, else on the default fields (`fields`, `df`, or every field); several
 * fields or a pattern make a `multi_field` node the shard resolves against its mapping, as ES's
 * `QueryStringQueryParser` does per shard. Prefix, wildcard and fuzzy terms are normalized there.
 * @see https://github.com/apache/lucene/blob/main/lucene/queryparser/src/java/org/apache/lucene/queryparser/classic/QueryParser.jj
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/search/QueryStringQueryParser.java
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { AUTO, fuzzyDefaults, type Fuzziness, type FuzzyOptions } from '../../protocol/fuzziness.ts';
import { parseFuzziness } from './fuzziness-parse.ts';
import type { Operator, Query, QueryStringNormalize } from '../../protocol/query-ast.ts';
import { DEFAULT_MAX_DETERMINIZED_STATES } from '../../protocol/regexp-flags.ts';
import { IMAGE, SyntaxError_, tokenize, unescape, type Kind, type Token } from './query-string-lexer.ts';

/** Options of the URI search (`default_operator`, `df`, …) and of the `query_string` query. */
export interface QueryStringOptions {
  defaultOperator: Operator;
  /** Default field (`df`, `default_field`; a name or a `*` pattern); without it unfielded terms search every field (`*`). */
  df?: string;
  /** The `query_string` `fields` (names or `*` patterns, with boosts): where terms without a field run. */
  fields?: { field: string; boost: number }[];
  /**
   * ES `lenient`: a field that cannot run a term (text into a number) is left out instead of failing.
   * Unset, it is true when the fields include `*` (ES's all-fields rule), else false.
   */
  lenient?: boolean;
  /** ES `analyzer`: forced on every field (match terms analyze with it, prefix/wildcard/fuzzy terms normalize with it). */
  analyzer?: string;
  /** ES `analyze_wildcard`: a prefix term is analyzed, its last token a prefix (default false). */
  analyzeWildcard?: boolean;
  /** ES `allow_leading_wildcard` (default true): false refuses `*x`/`?x` terms. */
  allowLeadingWildcard?: boolean;
  /** `fuzziness` (default AUTO), `fuzzy_prefix_length`, `fuzzy_max_expansions`, `fuzzy_transpositions`, `fuzzy_rewrite` of `term~`. */
  fuzzy?: FuzzyOptions;
  /** ES `phrase_slop`: the slop of quoted phrases without `~N` (default 0). */
  phraseSlop?: number;
  /** How one term over several fields combines: dis_max with this tie breaker (best_fields 0, most_fields 1). */
  tieBreaker?: number;
  /** ES `rewrite` of prefix and wildcard terms. */
  rewrite?: string;
  /** ES `max_determinized_states` of regexp terms (default 10,000). */
  maxDeterminizedStates?: number;
}

/** Parenthesis nesting Folio accepts before rejecting the query string (stack safety). */
export const MAX_PAREN_DEPTH = 256;

type Occur = 'must' | 'should' | 'mustNot';
type Mod = 'none' | 'req' | 'not';
type Conj = 'none' | 'and' | 'or';

/** Recursive-descent parser over the token list, building the AST as it goes. */
class Parser {
  readonly toks: Token[];
  readonly opts: QueryStringOptions;
  pos = 0;
  depth = 0;
  constructor(toks: Token[], opts: QueryStringOptions) {
    this.toks = toks;
    this.opts = opts;
  }

  peek(n = 0): Token {
    return this.toks[Math.min(this.pos + n, this.toks.length - 1)];
  }

  next(): Token {
    const t = this.peek();
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }

  unexpected(): never {
    const t = this.peek();
    const enc = t.kind === 'EOF' ? '"<EOF>"' : `" ${IMAGE[t.kind]} "${t.image} ""`;
    throw new SyntaxError_(`Encountered ${enc} at line 1, column ${t.col}.`);
  }

  expect(kind: Kind): Token {
    if (this.peek().kind !== kind) this.unexpected();
    return this.next();
  }

  /** `Query ::= Modifiers Clause (Conjunction Modifiers Clause)*` */
  query(field: string | null): Query | null {
    const clauses: { q: Query; occur: Occur }[] = [];
    let mods = this.modifiers();
    let q = this.clause(field);
    this.addClause(clauses, 'none', mods, q);
    const first = mods === 'none' ? q : null;
    const starts: Kind[] = [
      'AND',
      'OR',
      'NOT',
      'PLUS',
      'MINUS',
      'BAREOPER',
      'LPAREN',
      'STAR',
      'QUOTED',
      'TERM',
      'PREFIXTERM',
      'WILDTERM',
      'REGEXPTERM',
      'RANGEIN_START',
      'RANGEEX_START',
      'NUMBER',
    ];
    while (starts.includes(this.peek().kind)) {
      const k = this.peek().kind;
      const conj: Conj = k === 'AND' ? 'and' : k === 'OR' ? 'or' : 'none';
      if (conj !== 'none') this.next();
      mods = this.modifiers();
      q = this.clause(field);
      this.addClause(clauses, conj, mods, q);
    }
    if (clauses.length === 1 && first !== null) return first;
    if (clauses.length === 0) return null;
    const pick = (o: Occur) => clauses.filter((c) => c.occur === o).map((c) => c.q);
    return { kind: 'bool', must: pick('must'), should: pick('should'), filter: [], mustNot: pick('mustNot'), boost: 1 };
  }

  modifiers(): Mod {
    const k = this.peek().kind;
    if (k === 'PLUS') return (this.next(), 'req');
    if (k === 'MINUS' || k === 'NOT') return (this.next(), 'not');
    return 'none';
  }

  /** `QueryParserBase.addClause`, verbatim in logic. */
  addClause(clauses: { q: Query; occur: Occur }[], conj: Conj, mods: Mod, q: Query | null): void {
    const last = clauses[clauses.length - 1];
    if (last && conj === 'and' && last.occur !== 'mustNot') last.occur = 'must';
    if (last && this.opts.defaultOperator === 'and' && conj === 'or' && last.occur !== 'mustNot') last.occur = 'should';
    if (q === null) return;
    const prohibited = mods === 'not';
    const required = this.opts.defaultOperator === 'or' ? mods === 'req' || (conj === 'and' && !prohibited) : !prohibited && conj !== 'or';
    clauses.push({ q, occur: prohibited ? 'mustNot' : required ? 'must' : 'should' });
  }

  /** `Clause ::= [(TERM | STAR) ":"] (Term | "(" Query ")" ["^" NUMBER])` */
  clause(field: string | null): Query | null {
    const t = this.peek();
    if ((t.kind === 'TERM' || t.kind === 'STAR') && this.peek(1).kind === 'COLON') {
      field = t.kind === 'STAR' ? '*' : unescape(t.image);
      this.next();
      this.next();
    }
    if (this.peek().kind !== 'LPAREN') return this.term(field);
    this.next();
    if (++this.depth > MAX_PAREN_DEPTH) throw new SyntaxError_(`Too many nested parentheses (more than ${MAX_PAREN_DEPTH})`);
    const q = this.query(field);
    this.depth--;
    this.expect('RPAREN');
    return this.boost(q);
  }

  boost(q: Query | null): Query | null {
    if (this.peek().kind !== 'CARAT') return q;
    this.next();
    const b = Number(this.expect('NUMBER').image);
    return q === null ? null : { ...q, boost: b };
  }

  term(field: string | null): Query | null {
    const t = this.peek();
    if (t.kind === 'RANGEIN_START' || t.kind === 'RANGEEX_START') return this.range(field);
    const termKinds: Kind[] = ['TERM', 'STAR', 'PREFIXTERM', 'WILDTERM', 'REGEXPTERM', 'NUMBER', 'BAREOPER', 'QUOTED'];
    if (!termKinds.includes(t.kind)) this.unexpected();
    this.next();
    // `term [~fuzzy] [^boost [~fuzzy]]`, as the grammar's Term production.
    let fuzzy: string | null = null;
    if (this.peek().kind === 'FUZZY_SLOP') fuzzy = this.next().image.slice(1);
    let boost: number | null = null;
    if (this.peek().kind === 'CARAT') {
      this.next();
      boost = Number(this.expect('NUMBER').image);
      if (this.peek().kind === 'FUZZY_SLOP') fuzzy = this.next().image.slice(1);
    }
    const q = t.kind === 'QUOTED' ? this.phraseQuery(t, field, fuzzy) : this.termQuery(t, field, fuzzy);
    return q === null || boost === null ? q : { ...q, boost };
  }

  /** The fields a term without `field:` runs on: `fields`, else `df`, else every field. */
  defaultFields(): { field: string; boost: number }[] {
    return this.opts.fields ?? [{ field: this.opts.df ?? '*', boost: 1 }];
  }

  /**
   * `make(f)` on the term's fields (ES `QueryStringQueryParser`'s multi-field queries): one concrete
   * field directly; several fields, a pattern or `lenient` as a `multi_field` node the shard resolves
   * (match and phrase terms on `*` alone keep the all-fields form of `q=`).
   */
  onFields(field: string | null, make: (f: string) => Query): Query {
    const fields = field !== null ? [{ field, boost: 1 }] : this.defaultFields();
    const single = fields.length === 1 && fields[0].boost === 1 ? fields[0].field : null;
    if (single !== null && !single.includes('*') && this.opts.lenient !== true) return make(single);
    const template = make('');
    if (single === '*' && (template.kind === 'match' || template.kind === 'match_phrase') && this.opts.lenient !== false) return make('*');
    const lenient = this.opts.lenient ?? fields.some((f) => f.field === '*');
    return { kind: 'multi_field', fields, query: template, tieBreaker: this.opts.tieBreaker ?? 0, lenient, boost: 1 };
  }

  /** How prefix, wildcard and fuzzy terms are normalized on the shard. */
  normalize(): QueryStringNormalize {
    return this.opts.analyzer === undefined ? {} : { analyzer: this.opts.analyzer };
  }

  /** A quoted phrase (`"a b"~2`; `phrase_slop` without `~N`), or `_exists_:"f"`. */
  phraseQuery(t: Token, field: string | null, slop: string | null): Query | null {
    const text = unescape(t.image.slice(1, -1));
    if (field === '_exists_') return { kind: 'exists', field: text, boost: 1 };
    const n = slop !== null && slop !== '' ? Math.trunc(Number(slop)) : (this.opts.phraseSlop ?? 0);
    return this.onFields(field, (f) => ({ kind: 'match_phrase', field: f, query: text, slop: n, boost: 1 }));
  }

  termQuery(t: Token, field: string | null, fuzzy: string | null): Query | null {
    if (t.kind === 'BAREOPER') return null; // a lone operator analyzes to no terms
    if (t.kind === 'REGEXPTERM') {
      // `field:/pattern/`: Lucene's `getRegexpQuery` with every syntax flag (the pattern is not unescaped).
      if (field === '_exists_') throw unsupported(`regexp query [${t.image}] on [_exists_]`);
      const maxDeterminizedStates = this.opts.maxDeterminizedStates ?? DEFAULT_MAX_DETERMINIZED_STATES;
      return this.onFields(field, (f) => ({
        kind: 'regexp',
        field: f,
        value: t.image.slice(1, -1),
        flags: 0xffff,
        caseInsensitive: false,
        maxDeterminizedStates,
        boost: 1,
      }));
    }
    const text = unescape(t.image);
    if (field === '_exists_') return { kind: 'exists', field: text, boost: 1 };
    if (t.kind === 'STAR') {
      const f = field ?? (this.opts.fields ? null : (this.opts.df ?? '*'));
      if (f === '*') return { kind: 'match_all', boost: 1 };
      return this.onFields(f, (x) => ({ kind: 'exists', field: x, boost: 1 }));
    }
    const rewrite = this.opts.rewrite === undefined ? {} : { rewrite: this.opts.rewrite };
    if (t.kind === 'PREFIXTERM') {
      const value = unescape(t.image.slice(0, -1));
      if (this.opts.analyzeWildcard) {
        const analyzer = this.opts.analyzer === undefined ? {} : { analyzer: this.opts.analyzer };
        return this.onFields(field, (f) => ({ kind: 'match_bool_prefix', field: f, query: value, operator: this.opts.defaultOperator, ...analyzer, boost: 1 }));
      }
      return this.onFields(field, (f) => ({ kind: 'prefix', field: f, value, caseInsensitive: false, ...rewrite, normalize: this.normalize(), boost: 1 }));
    }
    if (t.kind === 'WILDTERM') {
      if (this.opts.allowLeadingWildcard === false && (t.image.startsWith('*') || t.image.startsWith('?'))) {
        throw new SyntaxError_("'*' or '?' not allowed as first character in WildcardQuery");
      }
      return this.onFields(field, (f) => ({
        kind: 'wildcard',
        field: f,
        value: t.image,
        caseInsensitive: false,
        ...rewrite,
        normalize: this.normalize(),
        boost: 1,
      }));
    }
    if (fuzzy !== null) {
      const base = this.opts.fuzzy ?? fuzzyDefaults(AUTO);
      const opts = fuzzy === '' ? base : { ...base, fuzziness: slopFuzziness(fuzzy) };
      return this.onFields(field, (f) => ({ kind: 'fuzzy', field: f, value: text, fuzzy: opts, normalize: this.normalize(), boost: 1 }));
    }
    const m = /^([<>])(=?)(.+)$/s.exec(text);
    if (m) {
      const op = (m[1] === '>' ? 'gt' : 'lt') + (m[2] ? 'e' : '');
      return this.onFields(field, (f) => ({ kind: 'range', field: f, [op]: m[3], boost: 1 }));
    }
    const analyzer = this.opts.analyzer === undefined ? {} : { analyzer: this.opts.analyzer };
    return this.onFields(field, (f) => ({ kind: 'match', field: f, query: text, operator: this.opts.defaultOperator, ...analyzer, boost: 1 }));
  }

  /** `("[" | "{") goop ["TO"] goop ("]" | "}") ["^" NUMBER]`; `*` is an open end. */
  range(field: string | null): Query | null {
    const inclLower = this.next().kind === 'RANGEIN_START';
    const goop = (): string | null => {
      const t = this.peek();
      if (t.kind !== 'RANGE_GOOP' && t.kind !== 'RANGE_QUOTED' && t.kind !== 'RANGE_TO') this.unexpected();
      this.next();
      if (t.kind === 'RANGE_QUOTED') return unescape(t.image.slice(1, -1));
      return t.image === '*' ? null : unescape(t.image);
    };
    const lower = goop();
    if (this.peek().kind === 'RANGE_TO') this.next();
    const upper = goop();
    const end = this.peek();
    if (end.kind !== 'RANGEIN_END' && end.kind !== 'RANGEEX_END') this.unexpected();
    this.next();
    const q = this.onFields(field, (f) => {
      const r: Query = { kind: 'range', field: f, boost: 1 };
      if (lower !== null) r[inclLower ? 'gte' : 'gt'] = lower;
      if (upper !== null) r[end.kind === 'RANGEIN_END' ? 'lte' : 'lt'] = upper;
      return r;
    });
    return this.boost(q);
  }
}

/**
 * The fuzziness of `term~N` (ES `QueryStringQueryParser.handleBareFuzzy`: `Fuzziness.fromString`).
 * @throws EsError 400 `query_shard_exception` `failed to create query: …` for a value ES refuses (`~1.5`, `~3`).
 */
function slopFuzziness(text: string): Fuzziness {
  try {
    return parseFuzziness(text);
  } catch (e) {
    if (!(e instanceof EsError)) throw e;
    throw new EsError(400, 'query_shard_exception', `failed to create query: ${e.message}`, { causedBy: e.toCause() });
  }
}

function unsupported(what: string): EsError {
  return illegalArgument(`${what} is not supported by Folio's query string yet`);
}

/**
 * Parses a query string (`q=`, or a `query_string` query's `query`). Empty or blank input matches
 * nothing (ES `QueryStringQueryParser`).
 * @throws EsError 400 `query_shard_exception` `Failed to parse query [q]` caused by `parse_exception`
 *   `Cannot parse 'q': Encountered "<EOF>" at line 1, column N.` (Lucene's text, without the
 *   `Was expecting one of:` list) for a syntax error or a leading wildcard that
 *   `allowLeadingWildcard: false` refuses; `failed to create query: …` for a bad `term~N`.
 * @example parseQueryString('title:"quick fox" -draft', { defaultOperator: 'or' })
 */
export function parseQueryString(q: string, opts: QueryStringOptions): Query {
  if (q.trim() === '') return { kind: 'match_none', boost: 1 };
  try {
    const p = new Parser(tokenize(q), opts);
    const query = p.query(null);
    if (p.peek().kind !== 'EOF') p.unexpected();
    return query ?? { kind: 'match_none', boost: 1 };
  } catch (e) {
    if (!(e instanceof SyntaxError_)) throw e;
    throw new EsError(400, 'query_shard_exception', `Failed to parse query [${q}]`, {
      causedBy: { type: 'parse_exception', reason: `Cannot parse '${q}': ${e.message}` },
    });
  }
}
