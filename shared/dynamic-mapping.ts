/**
 * Elasticsearch dynamic mapping: which new fields a document introduces, and how mapping updates
 * merge. Used by the coordinator (index-level mapping) and by shard engines (on every write).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/dynamic-field-mapping.html
 */
import { EsError, illegalArgument } from '../protocol/errors.ts';
import type { FieldMapping, Mapping } from '../protocol/mapping.ts';
import { isObjectMapping } from '../protocol/mapping.ts';
import { ownValue, setOwn } from './own-keys.ts';
import { parseDate } from './date-format.ts';

// ES `dynamic_date_formats` default: ["strict_date_optional_time", "yyyy/MM/dd HH:mm:ss Z||yyyy/MM/dd Z"].
const STRICT_DATE_OPTIONAL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const SLASH_DATE = /^(\d{4})\/(\d{2})\/(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?(?: ?(?:Z|[+-]\d{2}:?\d{2}))?$/;

/** The `format` ES gives a field it detected from a `yyyy/MM/dd` date. */
const SLASH_DATE_FORMAT = 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis';

/**
 * True when `s` matches ES's default date detection formats (`2015-01-01`, `2015-01-01T12:10:30Z`,
 * `2015/01/01 12:10:30`), with month 1-12, day 1-31, hour < 24, minute/second < 60.
 */
export function isDynamicDate(s: string): boolean {
  const m = STRICT_DATE_OPTIONAL_TIME.exec(s) ?? SLASH_DATE.exec(s);
  if (!m) return false;
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
  if (m[4] !== undefined && Number(m[4]) > 23) return false;
  if (m[5] !== undefined && Number(m[5]) > 59) return false;
  if (m[6] !== undefined && Number(m[6]) > 59) return false;
  return true;
}

/** The root settings of dynamic field detection (ES `date_detection`, `dynamic_date_formats`, `numeric_detection`). */
interface Detection {
  date: boolean;
  /** Custom `dynamic_date_formats`; undefined: ES's defaults ({@link isDynamicDate}). */
  dateFormats: string[] | undefined;
  numeric: boolean;
}

function detectionOf(mapping: Mapping): Detection {
  const formats = mapping.dynamic_date_formats;
  return {
    date: mapping.date_detection !== false && String(mapping.date_detection) !== 'false',
    dateFormats: Array.isArray(formats) ? formats.map(String) : undefined,
    numeric: mapping.numeric_detection === true || String(mapping.numeric_detection) === 'true',
  };
}

/** The `date` mapping of a string that `dynamic_date_formats` detects, or null. */
function detectDate(s: string, d: Detection): FieldMapping | null {
  if (!d.date) return null;
  if (!d.dateFormats) {
    if (!isDynamicDate(s)) return null;
    // ES's second default dynamic date format (RootObjectMapper DYNAMIC_DATE_TIME_FORMATTERS) is kept on the field.
    return STRICT_DATE_OPTIONAL_TIME.test(s) ? { type: 'date' } : { type: 'date', format: SLASH_DATE_FORMAT };
  }
  for (const format of d.dateFormats) {
    try {
      if (parseDate(s, format) !== null) return { type: 'date', format };
    } catch {
      // an invalid format detects nothing
    }
  }
  return null;
}

/** The mapping ES creates dynamically for a JSON value, or null for null/empty arrays. */
function inferField(value: unknown, d: Detection): FieldMapping | null {
  if (Array.isArray(value)) {
    for (const v of value) {
      const fm = inferField(v, d);
      if (fm) return fm;
    }
    return null;
  }
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string': {
      const date = detectDate(value, d);
      if (date) return date;
      // numeric_detection: Long.parseLong, then Double.parseDouble.
      if (d.numeric && /^[+-]?\d+$/.test(value.trim())) return { type: 'long' };
      if (d.numeric && value.trim() !== '' && Number.isFinite(Number(value))) return { type: 'float' };
      return { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } };
    }
    case 'number':
      return Number.isInteger(value) ? { type: 'long' } : { type: 'float' };
    case 'boolean':
      return { type: 'boolean' };
    case 'object':
      return { type: 'object', properties: {} };
    case 'undefined':
    case 'bigint':
    case 'function':
    case 'symbol':
      return null; // not JSON values: no mapping
    default:
      return null; // unreachable: every typeof result is listed (tsc does not narrow `typeof value` itself)
  }
}

/**
 * Expands dotted keys (`{"a.b": 1}`) into the object path ES treats them as.
 * @throws EsError 400 `document_parsing_exception` for a name ES refuses (empty, only dots)
 */
function entriesOf(obj: Record<string, unknown>): [string[], unknown][] {
  return Object.entries(obj).map(([k, v]) => {
    if (!k.includes('.')) {
      if (k === '') throw fieldNameError('field name cannot be an empty string');
      return [[k], v];
    }
    const parts = k.split('.');
    if (parts.every((p) => p === '')) throw fieldNameError('field name cannot contain only dots');
    if (parts.some((p) => p === '')) {
      throw new EsError(400, 'document_parsing_exception', `[1:2] field name starting or ending with a [.] makes object resolution ambiguous: [${k}]`);
    }
    return [parts, v];
  });
}

/** ES `DocumentParser` wraps a field-name failure as "failed to parse: …" caused by the reason. */
function fieldNameError(reason: string): EsError {
  return new EsError(400, 'document_parsing_exception', `[1:2] failed to parse: ${reason}`, {
    causedBy: { type: 'illegal_argument_exception', reason },
  });
}

function strictError(field: string, parent: string): EsError {
  return new EsError(
    400,
    'strict_dynamic_mapping_exception',
    `[1:2] mapping set to strict, dynamic introduction of [${field}] within [${parent}] is not allowed`,
  );
}

/** Objects (or arrays of objects) inside a value, for recursion. */
function objectsIn(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap(objectsIn);
  if (value !== null && typeof value === 'object') return [value as Record<string, unknown>];
  return [];
}

/**
 * Walks `obj` against `props` and records new fields into `out` (a properties record); returns
 * true when something was added.
 */
function walk(
  props: Record<string, FieldMapping>,
  obj: Record<string, unknown>,
  out: Record<string, FieldMapping>,
  dynamic: Mapping['dynamic'],
  parentPath: string,
  detect: Detection,
): boolean {
  let added = false;
  for (const [keys, value] of entriesOf(obj)) {
    // `a.b.c: v` is `{a: {b: {c: v}}}`.
    let v: unknown = value;
    for (let i = keys.length - 1; i > 0; i--) v = { [keys[i]]: v };
    const name = keys[0];
    const existing = ownValue(props, name); // `constructor` is a field, not Object.prototype's
    const path = parentPath === '' ? name : `${parentPath}.${name}`;
    if (existing) {
      if (isObjectMapping(existing)) {
        if (existing.enabled === false) continue; // kept in `_source` only
        const sub: Record<string, FieldMapping> = {};
        let subAdded = false;
        for (const o of objectsIn(v)) {
          const merged = { ...(existing.properties ?? {}), ...sub };
          if (walk(merged, o, sub, existing.dynamic ?? dynamic, path, detect)) subAdded = true;
        }
        if (subAdded) {
          setOwn(out, name, { type: existing.type ?? 'object', properties: sub });
          added = true;
        }
      } else if (existing.type === 'constant_keyword' && existing.value === undefined) {
        // The first document's value becomes the field's value (ES ConstantKeywordFieldMapper).
        const first = (Array.isArray(v) ? v : [v]).find((x) => typeof x === 'string' || typeof x === 'number');
        if (first !== undefined && ownValue(out, name) === undefined) {
          setOwn(out, name, { ...existing, value: String(first) });
          added = true;
        }
      }
      continue;
    }
    const already = ownValue(out, name);
    const fm = already ?? inferField(v, detect);
    if (!fm) continue;
    if (dynamic === false || dynamic === 'runtime') continue;
    if (dynamic === 'strict') throw strictError(name, parentPath === '' ? '_doc' : parentPath);
    if (fm.type === 'object') {
      const sub = fm.properties ?? {};
      for (const o of objectsIn(v)) walk(sub, o, sub, dynamic, path, detect);
      fm.properties = sub;
    }
    setOwn(out, name, fm);
    added = true;
  }
  return added;
}

/**
 * The dynamic mapping update a document causes: only the NEW fields, as a `Mapping`, or null when
 * the document introduces none. Follows ES's defaults: strings → `text` + `keyword` sub-field
 * (`ignore_above: 256`) unless date-detected → `date` (`date_detection`, `dynamic_date_formats`), or
 * numeric with `numeric_detection` → `long`/`float`; integers → `long`; other numbers → `float`;
 * booleans → `boolean`; objects → `object`; arrays → type of the first non-null element; null → nothing.
 * @throws EsError 400 `strict_dynamic_mapping_exception` when `mapping.dynamic` is `'strict'`.
 * @example inferMappingUpdate({properties:{}}, {n: 1}) // {properties: {n: {type: 'long'}}}
 */
export function inferMappingUpdate(mapping: Mapping, source: object): Mapping | null {
  const out: Record<string, FieldMapping> = {};
  const added = walk(mapping.properties ?? {}, source as Record<string, unknown>, out, mapping.dynamic, '', detectionOf(mapping));
  return added ? { properties: out } : null;
}

function mergeProps(a: Record<string, FieldMapping>, b: Record<string, FieldMapping>, prefix: string): Record<string, FieldMapping> {
  const out: Record<string, FieldMapping> = { ...a };
  for (const [name, fb] of Object.entries(b)) {
    const fa = ownValue(a, name);
    const path = prefix + name;
    if (!fa) {
      setOwn(out, name, fb);
      continue;
    }
    const objA = isObjectMapping(fa);
    const objB = isObjectMapping(fb);
    // ES ObjectMapper.merge / FieldMapper.merge texts.
    if (objA && !objB) throw illegalArgument(`can't merge a non object mapping [${path}] with an object mapping`);
    const ta = fa.type ?? 'object';
    const tb = fb.type ?? 'object';
    if (ta !== tb) throw illegalArgument(`mapper [${path}] cannot be changed from type [${ta}] to [${tb}]`);
    // Parameters of `b` (a mapping update) replace those of `a`; sub-fields and properties merge.
    const merged: FieldMapping = { ...fa, ...fb };
    if (fa.properties || fb.properties) merged.properties = mergeProps(fa.properties ?? {}, fb.properties ?? {}, path + '.');
    if (fa.fields || fb.fields) merged.fields = mergeProps(fa.fields ?? {}, fb.fields ?? {}, path + '.');
    setOwn(out, name, merged);
  }
  return out;
}

/**
 * Adds the fields of `b` that `a` lacks (recursively through objects and multi-fields); for fields
 * in both, `b`'s parameters replace `a`'s (a dynamic update only holds new fields; a `PUT _mapping`
 * was checked by coordinator/rest/mapping-parse.ts `checkMappingUpdate`). Root settings of `b` (`dynamic`,
 * `_source`, ...) replace `a`'s. Neither input is modified.
 * @throws EsError 400 `illegal_argument_exception` `mapper [f] cannot be changed from type [x] to [y]`,
 *   `can't merge a non object mapping [f] with an object mapping`.
 */
export function mergeMappings(a: Mapping, b: Mapping): Mapping {
  const { properties: _p, ...rootB } = b;
  return { ...a, ...rootB, properties: mergeProps(a.properties ?? {}, b.properties ?? {}, '') };
}

/** ES's default `index.mapping.nested_objects.limit`. */
export const DEFAULT_NESTED_OBJECTS_LIMIT = 10_000;

/** The nested objects of `source` under the `nested` fields of `props` (each level counted, as ES's nested documents). */
function countNested(props: Record<string, FieldMapping>, obj: Record<string, unknown>): number {
  let n = 0;
  for (const [keys, value] of entriesOf(obj)) {
    let v: unknown = value;
    for (let i = keys.length - 1; i > 0; i--) v = { [keys[i]]: v };
    const fm = ownValue(props, keys[0]);
    if (!fm || !isObjectMapping(fm)) continue;
    for (const o of objectsIn(v)) {
      if (fm.type === 'nested') n++;
      n += countNested(fm.properties ?? {}, o);
    }
  }
  return n;
}

/**
 * ES's `index.mapping.nested_objects.limit`: a document with more nested objects (over all its
 * `nested` fields and levels) than `limit` is refused.
 * @throws EsError 400 `document_parsing_exception` with ES's text
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-settings-limit.html
 */
export function checkNestedObjectsLimit(mapping: Mapping, source: object, limit: number): void {
  let nested = nestedCache.get(mapping);
  if (nested === undefined) nestedCache.set(mapping, (nested = hasNested(mapping.properties ?? {})));
  if (!nested) return;
  if (countNested(mapping.properties ?? {}, source as Record<string, unknown>) > limit) {
    throw new EsError(
      400,
      'document_parsing_exception',
      `[1:2] The number of nested documents has exceeded the allowed limit of [${limit}]. This limit can be set by changing the [index.mapping.nested_objects.limit] index level setting.`,
    );
  }
}

/** Whether a mapping has a `nested` field, once per mapping object (mappings are replaced, not mutated). */
const nestedCache = new WeakMap<Mapping, boolean>();

function hasNested(props: Record<string, FieldMapping>): boolean {
  for (const fm of Object.values(props)) if (fm.type === 'nested' || (fm.properties && hasNested(fm.properties))) return true;
  return false;
}
