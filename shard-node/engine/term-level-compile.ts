/**
 * Compiles ES's exact-value term-level queries into plans (query-plan.ts): `term`, `terms`, `range`
 * (numeric, date with date math, ip, keyword), `exists`, and the exact-value query every non-text
 * field runs for `match`, with ES's errors for values a field type cannot parse and for fields that
 * are not searchable. The multi-term ones (`prefix`, `wildcard`, `fuzzy`, `regexp`) are in
 * multi-term-compile.ts.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/term-level-queries.html
 */
import { EsError } from '../../protocol/errors.ts';
import type { FieldMapping } from '../../protocol/mapping.ts';
import { NUMERIC_TYPES } from '../../protocol/mapping.ts';
import type { Query, TermValue } from '../../protocol/query-ast.ts';
import { DEFAULT_DATE_FORMAT, DEFAULT_DATE_NANOS_FORMAT, parseDateInstant, parseTimeZone, type TimeZone } from '../../shared/date-format.ts';
import { DateMathError, parseDateMath } from './date-math.ts';
import { parseBoolean, parseNumber, toHalfFloat } from './field-value-parse.ts';
import { cidrRange, encodeIp } from './ip-address.ts';
import type { Bounds } from './matchers.ts';
import * as M from './matchers.ts';
import { constantPlan, f, NONE, unscored, type CompileContext, type Plan } from './query-plan.ts';

/** 400 `query_shard_exception` for a value the field type cannot parse (ES `failed to create query`). */
function badValue(v: unknown): EsError {
  return new EsError(400, 'query_shard_exception', `failed to create query: For input string: "${String(v)}"`);
}

/** ES `failed to create query: <reason>` caused by the field type's `illegal_argument_exception`. */
function queryFailure(reason: string): EsError {
  return new EsError(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type: 'illegal_argument_exception', reason } });
}

/** A date bound that does not parse: ES `DateFieldType` → `parse_exception`. */
function badDate(v: unknown, format: string, detail?: string): EsError {
  const reason = `failed to parse date field [${String(v)}] with format [${format}]`;
  return new EsError(400, 'parse_exception', detail ? `${reason}: [${detail}]` : `${reason}: [${reason}]`, {
    causedBy: { type: 'illegal_argument_exception', reason: detail ?? reason },
  });
}

/** `failed to create query: …` (ES's `SearchExecutionContext.toQuery` around an `IllegalArgumentException`). */
export function failedToCreate(reason: string): EsError {
  return new EsError(400, 'query_shard_exception', `failed to create query: ${reason}`, { causedBy: { type: 'illegal_argument_exception', reason } });
}

/**
 * ES `MappedFieldType.failIfNotIndexed`/`failIfNotIndexedNorDocValuesFallback`: a field with
 * `index: false` is searched through its doc values (ES 8), unless it has none; `text` needs the index.
 */
export function checkSearchable(field: string, fm: FieldMapping): void {
  if (fm.index !== false) return;
  if (fm.type === 'text' || fm.type === 'match_only_text') throw queryFailure(`Cannot search on field [${field}] since it is not indexed.`);
  if (fm.doc_values === false) throw queryFailure(`Cannot search on field [${field}] since it is not indexed nor has doc values.`);
}

/** Numeric query values as the type indexes them (half_float and scaled_float rounded, as ES's query parse). */
function roundForType(n: number, fm: FieldMapping): number {
  if (fm.type === 'half_float') return toHalfFloat(n);
  if (fm.type === 'scaled_float') return Math.round(n * (fm.scaling_factor ?? 1)) / (fm.scaling_factor ?? 1);
  return n;
}

/** Types whose terms are exact keyword-like strings in the inverted index. */
export function isExactTermType(t: string): boolean {
  return t === 'keyword' || t === 'wildcard' || t === 'flattened' || t === 'flat_object';
}

/** `values` as strings: the array itself when every value is one already (a 60,000-value list is not copied). */
export function asStrings(values: readonly TermValue[]): readonly string[] {
  for (const v of values) if (typeof v !== 'string') return values.map(String);
  return values as readonly string[];
}

/** Milliseconds of "now" for date math: one value per compiled query. */
function nowMs(): number {
  return Date.now();
}

/**
 * ES `term`: one BM25 term query on text and keyword-like fields (constant score `boost` on
 * `match_only_text`; a term scan with `case_insensitive`), the exact-value query elsewhere.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-term-query.html
 */
export function term(c: CompileContext, field: string, value: TermValue, caseInsensitive: boolean, boost: number): Plan {
  const fm = c.field(field);
  if (!fm) return NONE;
  checkSearchable(field, fm);
  if (fm.type === 'text' || fm.type === 'match_only_text' || isExactTermType(fm.type)) {
    const s = String(value);
    if (caseInsensitive) {
      const lower = s.toLowerCase();
      return constantPlan(boost, (seg) => M.termScanMatch(seg, field, (t) => t.toLowerCase() === lower));
    }
    return unscored(fm, c.termPlan(field, s, boost), boost);
  }
  if (fm.type === 'constant_keyword' && caseInsensitive) {
    return fm.value !== undefined && String(fm.value).toLowerCase() === String(value).toLowerCase() ? constantPlan(boost, M.allDocs) : NONE;
  }
  return exact(c, field, fm, value, boost, false);
}

/** ES `terms`: constant score `boost` for docs with any of the values. */
export function terms(c: CompileContext, field: string, values: TermValue[], boost: number): Plan {
  const fm = c.field(field);
  if (!fm) return NONE;
  checkSearchable(field, fm);
  if (fm.type === 'text' || fm.type === 'match_only_text' || isExactTermType(fm.type) || fm.type === 'boolean') {
    const strs = c.valueList(fm.type === 'boolean' ? values.map((v) => String(parseBoolean(v) ?? v)) : asStrings(values));
    return constantPlan(boost, (seg) => M.termsMatch(seg, field, strs));
  }
  if (fm.type === 'constant_keyword' || fm.type === 'ip' || fm.type === 'binary') {
    const parts = values.map((v) => exact(c, field, fm, v, 1, false)).filter((p) => p.t !== 'none');
    if (parts.length === 0) return NONE;
    return { t: 'constant', inner: { t: 'bool', must: [], should: parts, filter: [], mustNot: [], msm: 1 }, score: f(boost) };
  }
  if (fm.type === 'date' || fm.type === 'date_nanos') {
    const parts = values.map((v) => exact(c, field, fm, v, 1, false));
    return { t: 'constant', inner: { t: 'bool', must: [], should: parts, filter: [], mustNot: [], msm: 1 }, score: f(boost) };
  }
  const nums = new Set(values.map((v) => numericValue(fm, v, false)));
  return constantPlan(boost, (seg) => M.numericMatch(seg, field, (v) => nums.has(v)));
}

/** Exact-value query of a non-text field (ES `term` semantics for keyword/boolean/numeric/date). */
export function exact(c: CompileContext, field: string, fm: FieldMapping, value: TermValue, boost: number, lenient: boolean): Plan {
  if (isExactTermType(fm.type)) return c.termPlan(field, String(value), boost);
  if (fm.type === 'constant_keyword') return fm.value !== undefined && String(fm.value) === String(value) ? constantPlan(boost, M.allDocs) : NONE;
  if (fm.type === 'ip') {
    const text = String(value);
    const cidr = text.includes('/') ? cidrRange(text) : null;
    if (cidr) return constantPlan(boost, (seg) => M.termRangeMatch(seg, field, { lo: cidr.lo, hi: cidr.hi, loInclusive: true, hiInclusive: true }));
    const hex = encodeIp(text);
    if (hex === null) {
      if (lenient) return NONE;
      throw queryFailure(`'${text}' is not an IP string literal.`);
    }
    return c.termPlan(field, hex, boost);
  }
  if (fm.type === 'binary') {
    if (lenient) return NONE;
    throw new EsError(400, 'query_shard_exception', `Binary fields do not support searching`);
  }
  if (fm.type === 'boolean') {
    const bv = parseBoolean(typeof value === 'string' ? value.trim() : value);
    if (bv === null) {
      if (lenient) return NONE;
      throw badValue(value);
    }
    return c.termPlan(field, String(bv), boost);
  }
  if (fm.type === 'date' || fm.type === 'date_nanos') {
    // ES DateFieldType.termQuery is rangeQuery(value, value) inclusive: the upper bound rounds up,
    // so `2015-01-01` matches the whole day and `now/d` today.
    let plan: Plan;
    try {
      plan = dateRange(c, { kind: 'range', field, gte: value, lte: value, boost }, fm, boost);
    } catch (e) {
      if (lenient && e instanceof EsError) return NONE;
      throw e;
    }
    return plan;
  }
  const n = numericValue(fm, value, lenient);
  if (n === null) return NONE;
  if (NUMERIC_TYPES.has(fm.type)) return constantPlan(boost, (seg) => M.numericMatch(seg, field, (v) => v === n));
  return NONE;
}

/** Parses a value for a numeric/date field; null (lenient) or throws. */
function numericValue(fm: FieldMapping, value: TermValue, lenient: boolean): number | null {
  let n: number | null;
  if (fm.type === 'date' || fm.type === 'date_nanos') {
    const format = fm.format ?? (fm.type === 'date' ? DEFAULT_DATE_FORMAT : DEFAULT_DATE_NANOS_FORMAT);
    const i = parseDateInstant(value, format);
    if (i === null) {
      if (lenient) return null;
      throw badDate(value, format);
    }
    return fm.type === 'date' ? i.ms : i.ms * 1e6 + i.nanos;
  } else if (NUMERIC_TYPES.has(fm.type)) {
    n = parseNumber(value, { ...fm, type: 'double' });
    if (n !== null) n = roundForType(n, fm);
    // An integer field never holds a fraction: `term: 1.5` on a long matches nothing.
  } else if (fm.type === 'boolean') {
    const bv = parseBoolean(value);
    n = bv === null ? null : bv ? 1 : 0;
  } else return null;
  if (n === null && !lenient) throw badValue(value);
  return n;
}

/** ES `range` on numeric/date/boolean doc values or keyword/text terms; constant score. */
export function range(c: CompileContext, q: Extract<Query, { kind: 'range' }>, boost: number): Plan {
  const fm = c.field(q.field);
  if (!fm) return NONE;
  checkSearchable(q.field, fm);
  const lo = q.gt ?? q.gte;
  const hi = q.lt ?? q.lte;
  const loInclusive = q.gt === undefined;
  const hiInclusive = q.lt === undefined;
  if (fm.type === 'date' || fm.type === 'date_nanos') return dateRange(c, q, fm, boost);
  if (fm.type === 'ip') {
    const enc = (v: TermValue | undefined): string | undefined => {
      if (v === undefined) return undefined;
      const hex = encodeIp(String(v));
      if (hex === null) throw queryFailure(`'${String(v)}' is not an IP string literal.`);
      return hex;
    };
    const b: Bounds<string> = { lo: enc(lo), hi: enc(hi), loInclusive, hiInclusive };
    return constantPlan(boost, (seg) => M.termRangeMatch(seg, q.field, b));
  }
  if (fm.type === 'constant_keyword') {
    if (fm.value === undefined) return NONE;
    const v = String(fm.value);
    const above = lo === undefined || (loInclusive ? v >= String(lo) : v > String(lo));
    const below = hi === undefined || (hiInclusive ? v <= String(hi) : v < String(hi));
    return above && below ? constantPlan(boost, M.allDocs) : NONE;
  }
  if (fm.type === 'binary') throw new EsError(400, 'query_shard_exception', `Binary fields do not support searching`);
  if (fm.type === 'text' || fm.type === 'match_only_text' || isExactTermType(fm.type)) {
    const b: Bounds<string> = { lo: lo === undefined ? undefined : String(lo), hi: hi === undefined ? undefined : String(hi), loInclusive, hiInclusive };
    return constantPlan(boost, (seg) => M.termRangeMatch(seg, q.field, b));
  }
  const b: Bounds<number> = {
    lo: lo === undefined ? undefined : numericValue(fm, lo, false)!,
    hi: hi === undefined ? undefined : numericValue(fm, hi, false)!,
    loInclusive,
    hiInclusive,
  };
  if (b.lo === null || b.hi === null) return NONE;
  const pred = M.numericRange(b);
  return constantPlan(boost, (seg) => M.numericMatch(seg, q.field, pred));
}

/**
 * ES `range` on `date`/`date_nanos`: bounds parsed with the query's `format` (else the field's),
 * in `time_zone`, with date math (`now-1d/d`, `2020-01-01||+1M`); `gt` and `lte` round up to the
 * unit's last millisecond. `date_nanos` compares epoch nanoseconds.
 */
function dateRange(c: CompileContext, q: Extract<Query, { kind: 'range' }>, fm: FieldMapping, boost: number): Plan {
  const format = q.format ?? fm.format ?? (fm.type === 'date' ? DEFAULT_DATE_FORMAT : DEFAULT_DATE_NANOS_FORMAT);
  let zone: TimeZone | undefined;
  if (q.timeZone !== undefined) {
    const z = parseTimeZone(q.timeZone);
    if (!z) throw new EsError(400, 'illegal_argument_exception', `Unknown time-zone ID: ${q.timeZone}`);
    zone = z;
  }
  const now = nowMs();
  const parse = (v: TermValue, roundUp: boolean): number => {
    let i;
    try {
      i = typeof v === 'string' ? parseDateMath(v, { format, zone, roundUp, nowMs: now }) : parseDateMath(String(v), { format, zone, roundUp, nowMs: now });
    } catch (e) {
      if (e instanceof DateMathError) throw badDate(v, format, e.message);
      throw e;
    }
    if (!i) throw badDate(v, format);
    return fm.type === 'date' ? i.ms : i.ms * 1e6 + i.nanos;
  };
  const b: Bounds<number> = {
    lo: q.gt !== undefined ? parse(q.gt, true) : q.gte !== undefined ? parse(q.gte, false) : undefined,
    hi: q.lt !== undefined ? parse(q.lt, false) : q.lte !== undefined ? parse(q.lte, true) : undefined,
    loInclusive: q.gt === undefined,
    hiInclusive: q.lt === undefined,
  };
  const pred = M.numericRange(b);
  return constantPlan(boost, (seg) => M.numericMatch(seg, q.field, pred));
}

/** ES `exists`: docs with a value (a `constant_keyword` with a value: every doc). */
export function existsQuery(c: CompileContext, q: Extract<Query, { kind: 'exists' }>, b: number): Plan {
  const fm = c.fields.get(q.field);
  if (fm?.type === 'constant_keyword') return fm.value === undefined ? NONE : constantPlan(b, M.allDocs);
  return constantPlan(b, (seg) => M.existsMatch(seg, q.field));
}
