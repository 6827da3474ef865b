/**
 * Turns a JSON `_source` into the per-field values a segment indexes, coercing each value per the
 * mapping as ES's `DocumentParser` does (numeric strings for numeric fields, ISO/epoch dates,
 * `geo_point` forms), and rejecting values ES rejects with `document_parsing_exception`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/coerce.html
 */
import { EsError } from '../../shared/errors.ts';
import type { FieldMapping, Mapping } from '../../shared/mapping.ts';
import { INTEGER_TYPES, NUMERIC_TYPES } from '../../shared/mapping.ts';
import { ownValue } from '../../shared/own-keys.ts';
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

/** Keyword fields whose terms also serve as sortable string doc values. */
export function isKeywordLike(fm: FieldMapping): boolean {
  return fm.type === 'keyword';
}

function preview(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function parseError(id: string, path: string, fm: FieldMapping, v: unknown): EsError {
  return new EsError(
    400,
    'document_parsing_exception',
    `[1:2] failed to parse field [${path}] of type [${fm.type}] in document with id '${id}'. Preview of field's value: '${preview(v)}'`,
  );
}

const ISO_DATE = /^\d{4}(?:-\d{2}(?:-\d{2}(?:T\d{2}(?::\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/;

/**
 * Parses a date as ES's default `strict_date_optional_time||epoch_millis`: ISO strings (UTC when no
 * zone is given) or epoch milliseconds (number or digit string). Returns epoch ms, or null.
 */
export function parseDate(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (/^-?\d+$/.test(s) && !(s.length === 4 && !s.startsWith('-'))) return Number(s);
  const m = ISO_DATE.exec(s);
  if (!m) {
    const slash = /^(\d{4})\/(\d{2})\/(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/.exec(s);
    if (!slash) return null;
    return Date.UTC(+slash[1], +slash[2] - 1, +slash[3], +(slash[4] ?? 0), +(slash[5] ?? 0), +(slash[6] ?? 0));
  }
  let iso = s.replace(',', '.');
  if (iso.includes('T') && m[1] === undefined) iso += 'Z';
  if (!iso.includes('T') && iso.length === 7) iso += '-01';
  const t = Date.parse(iso.length === 4 ? iso + '-01-01' : iso);
  return Number.isNaN(t) ? null : t;
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
  if (v === null || v === undefined) return;
  const t = fm.type;
  if (t === 'geo_point') {
    const p = parseGeoPoint(v);
    if (!p) throw parseError(id, path, fm, v);
    doc.exists.add(path);
    return;
  }
  if (typeof v === 'object') throw parseError(id, path, fm, v);
  if (t === 'text') {
    let tv = doc.text.get(path);
    if (!tv) doc.text.set(path, (tv = { terms: [], positions: [], nextPos: 0 }));
    else tv.nextPos += POSITION_INCREMENT_GAP;
    const values = tv;
    forEachTerm(String(v), (term) => {
      values.terms.push(term);
      values.positions.push(values.nextPos++);
    });
    doc.exists.add(path);
  } else if (t === 'keyword') {
    const s = String(v);
    if (fm.ignore_above !== undefined && s.length > fm.ignore_above) return;
    push(doc.terms, path, s);
    doc.exists.add(path);
  } else if (NUMERIC_TYPES.has(t)) {
    const n = parseNumber(v, fm);
    if (n === null) throw parseError(id, path, fm, v);
    push(doc.numbers, path, n);
    doc.exists.add(path);
  } else if (t === 'date') {
    const n = parseDate(v);
    if (n === null) throw parseError(id, path, fm, v);
    push(doc.numbers, path, n);
    doc.exists.add(path);
  } else if (t === 'boolean') {
    const b = parseBoolean(v);
    if (b === null) throw parseError(id, path, fm, v);
    push(doc.terms, path, String(b));
    push(doc.numbers, path, b ? 1 : 0);
    doc.exists.add(path);
  }
}

function walk(doc: ParsedDoc, id: string, obj: Record<string, unknown>, props: Record<string, FieldMapping>, prefix: string): void {
  for (const [key, raw] of Object.entries(obj)) {
    const dot = key.indexOf('.');
    if (dot > 0) {
      // `{"a.b": v}` is `{"a": {"b": v}}`.
      walk(doc, id, { [key.slice(0, dot)]: { [key.slice(dot + 1)]: raw } }, props, prefix);
      continue;
    }
    const fm = ownValue(props, key); // never an inherited Object.prototype member
    if (!fm || raw === null || raw === undefined) continue;
    const path = prefix + key;
    if (fm.type === 'object' || (!fm.type && fm.properties)) {
      const objs = Array.isArray(raw) ? raw.flat(Infinity) : [raw];
      for (const o of objs) {
        if (o === null) continue;
        if (typeof o !== 'object') {
          throw new EsError(400, 'document_parsing_exception', `[1:2] object mapping for [${path}] tried to parse field [${key}] as object, but found a concrete value`);
        }
        walk(doc, id, o as Record<string, unknown>, fm.properties ?? {}, path + '.');
      }
      continue;
    }
    if (fm.index === false && fm.doc_values === false) continue;
    // geo_point arrays of numbers are one point ([lon, lat]); other arrays are several values.
    const values = Array.isArray(raw) && !(fm.type === 'geo_point' && typeof raw[0] === 'number') ? raw.flat(Infinity) : [raw];
    for (const v of values) {
      indexLeaf(doc, id, path, fm, v);
      if (fm.fields) for (const [sub, sfm] of Object.entries(fm.fields)) indexLeaf(doc, id, `${path}.${sub}`, sfm, v);
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
  walk(doc, id, source, mapping.properties ?? {}, '');
  return doc;
}
