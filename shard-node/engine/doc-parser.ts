/**
 * Turns a JSON `_source` into the per-field values a segment indexes, coercing each value per the
 * mapping as ES's `DocumentParser` does (numeric strings for numeric fields, ISO/epoch dates,
 * `geo_point` forms), and rejecting values ES rejects with `document_parsing_exception`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/coerce.html
 */
import { EsError } from '../../protocol/errors.ts';
import type { FieldMapping, Mapping } from '../../protocol/mapping.ts';
import { flatFields, INTEGER_TYPES, isObjectMapping, KEYWORD_LIKE_TYPES, NUMERIC_TYPES } from '../../protocol/mapping.ts';
import { ownValue } from '../../shared/own-keys.ts';
import { DEFAULT_DATE_NANOS_FORMAT, parseDate as parseDateWithFormat, parseDateInstant } from '../../shared/date-format.ts';
import { encodeIp } from './ip-address.ts';
import { forEachTerm, POSITION_INCREMENT_GAP } from './analyzer.ts';

/** Analyzed text of one field: terms with their positions, and the field length in tokens. */
export interface TextValues {
  terms: string[];
  positions: number[];
  /** Next free position (for the increment gap between array values). */
  nextPos: number;
}

/** What a document contributes to each field of a segment. */
export interface ParsedDoc {
  /** Text fields (analyzed). */
  text: Map<string, TextValues>;
  /** Exact terms of keyword fields, and `true`/`false` of boolean fields. */
  terms: Map<string, string[]>;
  /** Numeric, date (epoch ms) and boolean (0/1) doc values. */
  numbers: Map<string, number[]>;
  /** Every leaf field path that has a value. */
  exists: Set<string>;
}

/**
 * ES's `_ignored` metadata field: the names of the fields of a document whose values were not
 * indexed (malformed with `ignore_malformed`, or keywords longer than `ignore_above`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-ignored-field.html
 */
export const IGNORED_FIELD = '_ignored';

/** Keyword fields whose terms also serve as sortable string doc values. */
export function isKeywordLike(fm: FieldMapping): boolean {
  return KEYWORD_LIKE_TYPES.has(fm.type);
}

function preview(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The types this parser indexes; values of other (stored-only) types stay in `_source`. */
const INDEXED_TYPES: ReadonlySet<string> = new Set([
  'text', 'match_only_text', 'keyword', 'wildcard', 'constant_keyword', 'date', 'date_nanos', 'boolean', 'ip', 'binary', ...NUMERIC_TYPES,
]);

/** A value the type refuses: the field's value is not indexed (`ignore_malformed`), or the document fails. */
class MalformedValue extends Error {
  readonly cause_: { type: string; reason: string } | undefined;
  constructor(cause?: { type: string; reason: string }) {
    super(cause?.reason ?? 'malformed');
    this.cause_ = cause;
  }
}

function parseError(id: string, path: string, fm: FieldMapping, v: unknown, cause?: { type: string; reason: string }): EsError {
  return new EsError(
    400,
    'document_parsing_exception',
    `[1:2] failed to parse field [${path}] of type [${fm.type}] in document with id '${id}'. Preview of field's value: '${preview(v)}'`,
    cause ? { causedBy: cause } : {},
  );
}

/**
 * ES `DocumentParser`: a document may not hold a value for a field alias (aliases are read-only),
 * wrapped as every parse failure: `document_parsing_exception` "failed to parse: …".
 */
function aliasWrite(path: string): EsError {
  const reason = `Cannot write to a field alias [${path}].`;
  return new EsError(400, 'document_parsing_exception', `[1:2] failed to parse: ${reason}`, { causedBy: { type: 'illegal_argument_exception', reason } });
}

/**
 * Parses a date as a `date` field with `format` (ES default `strict_date_optional_time||epoch_millis`):
 * ISO strings (UTC when no zone is given) or epoch milliseconds (number or digit string), or the
 * given format's alternatives. Returns epoch ms, or null.
 * @see shared/date-format.ts
 */
export function parseDate(v: unknown, format?: string): number | null {
  return parseDateWithFormat(v, format);
}

/** Epoch nanoseconds of 2262-04-11T23:47:16.854775807Z, the last instant a `date_nanos` holds (Java `Long.MAX_VALUE` ns). */
const MAX_NANOS_MS = 9_223_372_036_854;

/**
 * Parses a `date_nanos` value into epoch nanoseconds (a double: exact to about 256 ns for current
 * dates, docs/compatibility.md); ES refuses instants before 1970 and after 2262-04-11T23:47:16.854775807.
 * @throws MalformedValue for an unparsable or out-of-range value
 */
function parseDateNanos(v: unknown, format: string): number {
  const i = parseDateInstant(v, format);
  if (!i) throw new MalformedValue();
  const instant = instantText(i.ms, i.nanos);
  if (i.ms < 0) {
    throw new MalformedValue({ type: 'illegal_argument_exception', reason: `date[${instant}] is before the epoch in 1970 and cannot be stored in nanosecond resolution` });
  }
  if (i.ms > MAX_NANOS_MS || (i.ms === MAX_NANOS_MS && i.nanos > 775_807)) {
    throw new MalformedValue({ type: 'illegal_argument_exception', reason: `date[${instant}] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution` });
  }
  return i.ms * 1e6 + i.nanos;
}

/** Java `Instant.toString()`: ISO UTC with the fraction in groups of three digits, as needed. */
function instantText(ms: number, nanos: number): string {
  const d = new Date(ms - (((ms % 1000) + 1000) % 1000));
  const base = d.toISOString().slice(0, 19);
  const frac = ((((ms % 1000) + 1000) % 1000) * 1_000_000 + nanos);
  if (frac === 0) return base + 'Z';
  let f = String(frac).padStart(9, '0');
  while (f.endsWith('000')) f = f.slice(0, -3);
  return `${base}.${f}Z`;
}

/** Rounds to the nearest IEEE half-precision value (ties to even), as ES's `half_float` stores it. */
export function toHalfFloat(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= 65520) return x > 0 ? Infinity : -Infinity;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  const quantum = e < -14 ? 2 ** -24 : 2 ** (e - 10);
  const q = a / quantum;
  let r = Math.round(q);
  if (r - q === 0.5 && r % 2 === 1) r--; // Math.round rounds .5 up: make it even
  return Math.sign(x) * r * quantum;
}

/** The largest integral values of the integer types (ES `NumberFieldMapper.NumberType`). */
const INTEGER_RANGE: Record<string, [number, number, string]> = {
  byte: [-128, 127, 'a byte'],
  short: [-32768, 32767, 'a short'],
  integer: [-2147483648, 2147483647, 'an integer'],
  long: [-(2 ** 63), 2 ** 63, 'a long'],
  unsigned_long: [0, 2 ** 64, 'an unsigned long'],
};

/** Exact range check of an integer string for `long`/`unsigned_long` (doubles cannot tell 2^63 - 1 from 2^63). */
function inIntegerRange(v: string, type: string): boolean {
  if (type !== 'long' && type !== 'unsigned_long') return true;
  const m = /^\s*([+-]?\d+)(?:\.\d*)?\s*$/.exec(v);
  if (!m) return true; // not a plain integer text: the double range check decides
  const b = BigInt(m[1]);
  return type === 'long' ? b >= -(2n ** 63n) && b < 2n ** 63n : b >= 0n && b < 2n ** 64n;
}

/**
 * A numeric field's value as ES indexes it: integer types truncated (with `coerce`, the default)
 * and range-checked, `float`/`half_float` finite, `half_float` and `scaled_float` rounded.
 * @throws MalformedValue when the type refuses it
 */
function parseNumeric(v: unknown, fm: FieldMapping): number {
  if (fm.coerce === false && typeof v !== 'number') throw new MalformedValue();
  const n = parseNumber(v, fm.type === 'scaled_float' || fm.coerce === false ? { ...fm, type: 'double' } : fm);
  if (n === null) throw new MalformedValue();
  const range = INTEGER_RANGE[fm.type];
  if (range) {
    if (fm.coerce === false && !Number.isInteger(n)) throw new MalformedValue({ type: 'illegal_argument_exception', reason: `Value [${String(v)}] has a decimal part` });
    // Above 2^53 a JSON number is already a double: Long.MAX_VALUE reads as 2^63, so the bound is inclusive.
    if (n < range[0] || n > range[1] || (typeof v === 'string' && !inIntegerRange(v, fm.type))) {
      throw new MalformedValue({ type: 'illegal_argument_exception', reason: `Value [${String(v)}] is out of range for ${range[2]}` });
    }
    return n;
  }
  switch (fm.type) {
    case 'half_float': {
      const h = toHalfFloat(n);
      if (!Number.isFinite(h)) throw new MalformedValue({ type: 'illegal_argument_exception', reason: `[half_float] supports only finite values, but got [${h}]` });
      return h;
    }
    case 'float':
      if (!Number.isFinite(Math.fround(n))) throw new MalformedValue({ type: 'illegal_argument_exception', reason: `[float] supports only finite values, but got [${Math.fround(n)}]` });
      return n;
    case 'scaled_float': {
      const sf = fm.scaling_factor ?? 1;
      return Math.round(n * sf) / sf;
    }
    default:
      return n;
  }
}

/** ES `binary`: a base64 string (standard or URL-safe alphabet, padding optional). */
function isBase64(v: unknown): boolean {
  return typeof v === 'string' && /^[A-Za-z0-9+/_-]*={0,2}$/.test(v.replace(/\s/g, ''));
}

/** Parses a numeric value (number or numeric string), truncating for integer types; null if invalid. */
export function parseNumber(v: unknown, fm: FieldMapping): number | null {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && v.trim() !== '') n = Number(v);
  else return null;
  if (!Number.isFinite(n)) return null;
  return INTEGER_TYPES.has(fm.type) ? Math.trunc(n) : n;
}

/** Parses a boolean as ES: `true`/`false` or their strings; null if invalid. */
export function parseBoolean(v: unknown): boolean | null {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  return null;
}

/** Parses a `geo_point` (`{lat, lon}`, `[lon, lat]`, `"lat,lon"`); null if invalid. */
export function parseGeoPoint(v: unknown): { lat: number; lon: number } | null {
  let lat: number;
  let lon: number;
  if (Array.isArray(v)) [lon, lat] = v.map(Number);
  else if (typeof v === 'string') [lat, lon] = v.split(',').map((x) => Number(x.trim()));
  else if (v !== null && typeof v === 'object') ({ lat, lon } = v as { lat: number; lon: number });
  else return null;
  lat = Number(lat);
  lon = Number(lon);
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  return { lat, lon };
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

function indexLeaf(doc: ParsedDoc, id: string, path: string, fm: FieldMapping, v: unknown): void {
  if (v === null || v === undefined) {
    if (fm.null_value === undefined || fm.null_value === null) return;
    v = fm.null_value; // ES indexes `null_value` in place of an explicit null
  }
  const t = fm.type;
  if (t === 'geo_point') {
    const p = parseGeoPoint(v);
    if (!p) return malformed(doc, id, path, fm, v);
    doc.exists.add(path);
    return;
  }
  if (typeof v === 'object') {
    // Types kept in `_source` only (integer_range, dense_vector, ...) take objects and arrays.
    if (INDEXED_TYPES.has(t)) malformed(doc, id, path, fm, v);
    return;
  }
  if (t === 'text' || t === 'match_only_text') {
    let tv = doc.text.get(path);
    if (!tv) doc.text.set(path, (tv = { terms: [], positions: [], nextPos: 0 }));
    else tv.nextPos += POSITION_INCREMENT_GAP;
    const values = tv;
    forEachTerm(String(v), (term) => {
      values.terms.push(term);
      values.positions.push(values.nextPos++);
    });
    doc.exists.add(path);
  } else if (t === 'keyword' || t === 'wildcard') {
    const s = String(v);
    if (fm.ignore_above !== undefined && s.length > fm.ignore_above) return ignored(doc, path);
    push(doc.terms, path, s);
    doc.exists.add(path);
  } else if (NUMERIC_TYPES.has(t)) {
    let n: number;
    try {
      n = parseNumeric(v, fm);
    } catch (e) {
      if (!(e instanceof MalformedValue)) throw e;
      return malformed(doc, id, path, fm, v, e.cause_);
    }
    push(doc.numbers, path, n);
    doc.exists.add(path);
  } else if (t === 'date') {
    const n = parseDate(v, fm.format);
    if (n === null) return malformed(doc, id, path, fm, v, dateCause(v, fm.format ?? 'strict_date_optional_time||epoch_millis'));
    push(doc.numbers, path, n);
    doc.exists.add(path);
  } else if (t === 'date_nanos') {
    let n: number;
    try {
      n = parseDateNanos(v, fm.format ?? DEFAULT_DATE_NANOS_FORMAT);
    } catch (e) {
      if (!(e instanceof MalformedValue)) throw e;
      return malformed(doc, id, path, fm, v, e.cause_ ?? dateCause(v, fm.format ?? DEFAULT_DATE_NANOS_FORMAT));
    }
    push(doc.numbers, path, n);
    doc.exists.add(path);
  } else if (t === 'boolean') {
    const b = parseBoolean(v);
    if (b === null) return malformed(doc, id, path, fm, v);
    push(doc.terms, path, String(b));
    push(doc.numbers, path, b ? 1 : 0);
    doc.exists.add(path);
  } else if (t === 'ip') {
    const hex = typeof v === 'string' ? encodeIp(v) : null;
    if (hex === null) return malformed(doc, id, path, fm, v, { type: 'illegal_argument_exception', reason: `'${String(v)}' is not an IP string literal.` });
    push(doc.terms, path, hex);
    doc.exists.add(path);
  } else if (t === 'constant_keyword') {
    const s = String(v);
    if (fm.value !== undefined && String(fm.value) !== s) {
      throw parseError(id, path, fm, v, {
        type: 'illegal_argument_exception',
        reason: `[constant_keyword] field [${path}] only accepts values that are equal to the value defined in the mappings [${String(fm.value)}], but got [${s}]`,
      });
    }
  } else if (t === 'binary') {
    if (!isBase64(v)) return malformed(doc, id, path, fm, v);
    doc.exists.add(path);
  }
}

/** ES's cause of a date that does not parse (`DateFieldMapper` → `DateFormatter.parse`). */
function dateCause(v: unknown, format: string): { type: string; reason: string } {
  return { type: 'illegal_argument_exception', reason: `failed to parse date field [${String(v)}] with format [${format}]` };
}

/** A value the field refuses: skipped with `ignore_malformed`, else the document fails (ES `DocumentParser`). */
function malformed(doc: ParsedDoc, id: string, path: string, fm: FieldMapping, v: unknown, cause?: { type: string; reason: string }): void {
  if (fm.ignore_malformed !== true) throw parseError(id, path, fm, v, cause);
  ignored(doc, path);
}

/** Records `path` in the document's `_ignored` metadata field (a keyword: `exists`, `term`). */
function ignored(doc: ParsedDoc, path: string): void {
  const names = doc.terms.get(IGNORED_FIELD);
  if (!names) doc.terms.set(IGNORED_FIELD, [path]);
  else if (!names.includes(path)) names.push(path);
  doc.exists.add(IGNORED_FIELD);
}

/**
 * ES `flattened` (and OpenSearch `flat_object`): every leaf value of the object is a keyword term of
 * the field itself and of its keyed path (`field.a.b`).
 */
function indexFlattened(doc: ParsedDoc, path: string, fm: FieldMapping, raw: unknown, keyPrefix: string): void {
  if (raw === null || raw === undefined) return;
  if (Array.isArray(raw)) {
    for (const x of raw) indexFlattened(doc, path, fm, x, keyPrefix);
    return;
  }
  if (typeof raw === 'object') {
    for (const [k, x] of Object.entries(raw as Record<string, unknown>)) indexFlattened(doc, path, fm, x, keyPrefix === '' ? k : `${keyPrefix}.${k}`);
    return;
  }
  const s = String(raw);
  if (fm.ignore_above !== undefined && s.length > fm.ignore_above) return;
  push(doc.terms, path, s);
  doc.exists.add(path);
  if (keyPrefix !== '') {
    const keyed = `${path}.${keyPrefix}`;
    push(doc.terms, keyed, s);
    doc.exists.add(keyed);
  }
}

function walk(doc: ParsedDoc, id: string, obj: Record<string, unknown>, props: Record<string, FieldMapping>, prefix: string, root: Mapping): void {
  for (const [key, raw] of Object.entries(obj)) {
    const dot = key.indexOf('.');
    if (dot > 0) {
      // `{"a.b": v}` is `{"a": {"b": v}}`.
      walk(doc, id, { [key.slice(0, dot)]: { [key.slice(dot + 1)]: raw } }, props, prefix, root);
      continue;
    }
    const fm = ownValue(props, key); // never an inherited Object.prototype member
    if (fm?.type === 'alias' && raw !== undefined) throw aliasWrite(prefix + key);
    if (!fm || raw === undefined || (raw === null && (fm.null_value === undefined || fm.null_value === null))) continue;
    const path = prefix + key;
    if (fm.type === 'flattened' || fm.type === 'flat_object') {
      indexFlattened(doc, path, fm, raw, '');
      continue;
    }
    if (isObjectMapping(fm)) {
      if (fm.enabled === false || raw === null) continue;
      const objs = Array.isArray(raw) ? raw.flat(Infinity) : [raw];
      for (const o of objs) {
        if (o === null) continue;
        if (typeof o !== 'object') {
          throw new EsError(400, 'document_parsing_exception', `[1:2] object mapping for [${path}] tried to parse field [${key}] as object, but found a concrete value`);
        }
        walk(doc, id, o as Record<string, unknown>, fm.properties ?? {}, path + '.', root);
      }
      continue;
    }
    if (fm.index === false && fm.doc_values === false) {
      doc.exists.add(path); // neither searchable nor sortable; `exists` still finds it (ES `_field_names`)
      continue;
    }
    // geo_point arrays of numbers are one point ([lon, lat]); other arrays are several values.
    const values = Array.isArray(raw) && !(fm.type === 'geo_point' && typeof raw[0] === 'number') ? raw.flat(Infinity) : [raw];
    for (const v of values) {
      indexLeaf(doc, id, path, fm, v);
      if (fm.fields) for (const [sub, sfm] of Object.entries(fm.fields)) indexLeaf(doc, id, `${path}.${sub}`, sfm, v);
    }
    if (fm.copy_to !== undefined) copyTo(doc, id, fm.copy_to, values, root);
  }
}

/**
 * ES `copy_to`: the field's values are also indexed as values of each target field (with the
 * target's type and multi-fields). Targets must be mapped (ES would map a missing one dynamically).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/copy-to.html
 */
function copyTo(doc: ParsedDoc, id: string, targets: string | string[], values: unknown[], root: Mapping): void {
  const fields = flatFields(root);
  for (const target of Array.isArray(targets) ? targets : [targets]) {
    const tfm = fields.get(target);
    if (!tfm) continue;
    if (tfm.type === 'alias') {
      const reason = `Cannot copy to a field alias [${target}].`;
      throw new EsError(400, 'document_parsing_exception', `[1:2] failed to parse: ${reason}`, { causedBy: { type: 'illegal_argument_exception', reason } });
    }
    for (const v of values) {
      indexLeaf(doc, id, target, tfm, v);
      if (tfm.fields) for (const [sub, sfm] of Object.entries(tfm.fields)) indexLeaf(doc, id, `${target}.${sub}`, sfm, v);
    }
  }
}

/**
 * Parses `source` of document `id` against `mapping` (which must already contain every field the
 * engine should index; unmapped fields are kept in `_source` only).
 * @throws EsError 400 `document_parsing_exception` for a value its field type cannot take.
 */
export function parseDocument(id: string, source: Record<string, unknown>, mapping: Mapping): ParsedDoc {
  const doc: ParsedDoc = { text: new Map(), terms: new Map(), numbers: new Map(), exists: new Set() };
  walk(doc, id, source, mapping.properties ?? {}, '', mapping);
  return doc;
}
