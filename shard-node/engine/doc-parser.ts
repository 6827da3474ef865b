/**
 * Turns a JSON `_source` into the per-field values a segment indexes, coercing each value per the
 * mapping as ES's `DocumentParser` does (numeric strings for numeric fields, ISO/epoch dates,
 * `geo_point` forms: field-value-parse.ts), and rejecting values ES rejects with `document_parsing_exception`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/coerce.html
 */
import { EsError } from '../../protocol/errors.ts';
import type { FieldMapping, Mapping } from '../../protocol/mapping.ts';
import { flatFields, isObjectMapping, KEYWORD_LIKE_TYPES, NUMERIC_TYPES } from '../../protocol/mapping.ts';
import { ownValue } from '../../shared/own-keys.ts';
import { DEFAULT_DATE_NANOS_FORMAT } from '../../shared/date-format.ts';
import { isBase64, MalformedValue, parseBoolean, parseDate, parseDateNanos, parseGeoPoint, parseNumeric } from './field-value-parse.ts';
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
  'text',
  'match_only_text',
  'keyword',
  'wildcard',
  'constant_keyword',
  'date',
  'date_nanos',
  'boolean',
  'ip',
  'binary',
  ...NUMERIC_TYPES,
]);

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

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

/**
 * One value of a `text` field: its analyzed terms at the next positions, a value after the first
 * starting `position_increment_gap` further (ES's gap between array values).
 */
function indexText(doc: ParsedDoc, path: string, text: string): void {
  let tv = doc.text.get(path);
  if (!tv) doc.text.set(path, (tv = { terms: [], positions: [], nextPos: 0 }));
  else tv.nextPos += POSITION_INCREMENT_GAP;
  const values = tv;
  forEachTerm(text, (term) => {
    values.terms.push(term);
    values.positions.push(values.nextPos++);
  });
  doc.exists.add(path);
}

/** Indexes one leaf value of `path` per its type (values coerced by field-value-parse.ts). */
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
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return; // JSON holds no other scalar
  if (t === 'text' || t === 'match_only_text') {
    indexText(doc, path, String(v));
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
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') return; // JSON holds no other scalar
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
          throw new EsError(
            400,
            'document_parsing_exception',
            `[1:2] object mapping for [${path}] tried to parse field [${key}] as object, but found a concrete value`,
          );
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
