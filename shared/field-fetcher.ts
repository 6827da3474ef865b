/**
 * The `fields` of a hit or a GET, read from its `_source` and printed by the mapping: ES's fetch
 * sub-phases for `fields` (`FetchFieldsPhase` / `FieldFetcher`), `docvalue_fields`
 * (`FetchDocValuesPhase`, doc values emulated from the source: sorted, keywords without repeats)
 * and `stored_fields` (`StoredFieldsPhase`, fields mapped with `store: true`). A request is
 * compiled once against the mapping ({@link compileFieldFetch}: patterns resolved, formats and
 * field types checked), then applied to each document's parsed `_source`.
 *
 * Values come from the field's own source path, or its parent's for a multi-field (`name.keyword`
 * reads `name`), with `{"a.b": v}` and `{"a": {"b": v}}` read alike and arrays flattened.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-fields.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/subphase/FieldFetcher.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/fetch/subphase/FetchDocValuesContext.java
 */
import { illegalArgument } from '../protocol/errors.ts';
import type { FieldAndFormat } from '../protocol/search.ts';
import { docValueFns, fetchValueFn, storedValueFn, typeOf, type DocValue, type FetchMapping } from './field-values.ts';
import { fieldAliases, type FieldMapping, type Mapping } from '../protocol/mapping.ts';
import { compareCodePoints } from '../protocol/sort.ts';
import { isWildcardPattern, wildcardMatch } from './wildcard.ts';

/** A mapped leaf field (or multi-field) the fetch phase can read. */
export interface FetchableField {
  name: string;
  fm: FetchMapping;
  /** Where its values are in `_source`: its own path, or its parent's for a multi-field. */
  sourcePath: string;
}

const leafCache = new WeakMap<Mapping, Map<string, FetchableField>>();

/** Every leaf field and multi-field of a mapping by full name (objects are walked, not listed); cached per mapping object. */
export function fetchableFields(mapping: Mapping): ReadonlyMap<string, FetchableField> {
  let out = leafCache.get(mapping);
  if (out) return out;
  out = new Map();
  const walk = (props: Record<string, FieldMapping>, prefix: string): void => {
    for (const [key, fm] of Object.entries(props)) {
      const name = prefix + key;
      const t = typeOf(fm);
      if (t === 'object' || t === 'nested' || (fm.type === undefined && fm.properties)) {
        walk(fm.properties ?? {}, name + '.');
        continue;
      }
      if (t === 'alias') continue; // aliases: see fetchableFieldsWithAliases
      out.set(name, { name, fm, sourcePath: name });
      for (const [sub, sfm] of Object.entries(fm.fields ?? {})) out.set(`${name}.${sub}`, { name: `${name}.${sub}`, fm: sfm, sourcePath: name });
    }
  };
  walk(mapping.properties ?? {}, '');
  leafCache.set(mapping, out);
  return out;
}

const aliasedCache = new WeakMap<Mapping, ReadonlyMap<string, FetchableField>>();

/**
 * {@link fetchableFields} and the mapping's field aliases, each read from its target's source path
 * with its target's type but named as the alias (ES `FieldFetcher` and `FetchDocValuesPhase` match
 * alias names too and put the values under them). The same map when there is no alias; cached.
 */
export function fetchableFieldsWithAliases(mapping: Mapping): ReadonlyMap<string, FetchableField> {
  let out = aliasedCache.get(mapping);
  if (out) return out;
  const fields = fetchableFields(mapping);
  const aliases = fieldAliases(mapping);
  if (aliases.size === 0) out = fields;
  else {
    const m = new Map(fields);
    for (const [alias, path] of aliases) {
      const target = fields.get(path);
      if (target) m.set(alias, { name: alias, fm: target.fm, sourcePath: target.sourcePath });
    }
    out = m;
  }
  aliasedCache.set(mapping, out);
  return out;
}

/** True when a value is a plain object. */
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** True for a JSON string, number or boolean (what a `_source` holds besides null, objects and arrays). */
const isJsonScalar = (v: unknown): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * The raw values at `path` in a `_source` (ES `XContentMapValues.extractRawValues`): dotted keys
 * and nested objects alike, arrays flattened; a `null` kept as null. With `pairs`, a 2–3 number
 * array is one value (a `geo_point` as `[lon, lat]`).
 */
export function sourceValues(source: Record<string, unknown>, path: string, pairs = false): unknown[] {
  const out: unknown[] = [];
  const parts = path.split('.');
  const leaf = (v: unknown): void => {
    if (Array.isArray(v)) {
      if (pairs && v.length >= 2 && v.length <= 3 && v.every((x) => typeof x === 'number')) out.push(v);
      else for (const x of v) leaf(x);
    } else out.push(v ?? null);
  };
  const visit = (node: unknown, i: number): void => {
    if (i === parts.length) return leaf(node);
    if (Array.isArray(node)) {
      for (const el of node) visit(el, i);
      return;
    }
    if (!isObject(node)) return;
    let key = '';
    for (let j = i; j < parts.length; j++) {
      key = j === i ? parts[i] : `${key}.${parts[j]}`;
      if (Object.hasOwn(node, key)) visit(node[key], j + 1);
    }
  };
  visit(source, 0);
  return out;
}

/** The names a pattern matches (ES `getMatchingFieldNames`): every mapped field for `*` patterns, the name itself when mapped. */
function matching(fields: ReadonlyMap<string, FetchableField>, pattern: string): FetchableField[] {
  if (!isWildcardPattern(pattern)) {
    const f = fields.get(pattern);
    return f ? [f] : [];
  }
  return [...fields.values()].filter((f) => wildcardMatch(pattern, f.name));
}

/** One field's reader: source values → printed values (none: `[]`). */
interface FieldReader {
  name: string;
  read: (source: Record<string, unknown>) => unknown[];
  /** A `fields` reader: reads the source as the mapping's `_source` shows it (docvalue and stored readers read all of it). */
  shown?: boolean;
}

/**
 * Fields API reader of one field (null values take the mapping's `null_value`). A `token_count`
 * field shows its values' token counts (ES reads them from its doc values: none without them).
 */
function fetchReader(f: FetchableField, format: string | undefined, analyze?: (text: string) => string[]): FieldReader {
  const print = typeOf(f.fm) === 'token_count' ? tokenCountFn(f, analyze) : fetchValueFn(f.name, f.fm, format);
  const pairs = typeOf(f.fm) === 'geo_point';
  const nullValue = f.fm.null_value;
  return {
    name: f.name,
    read: (source) => {
      const out: unknown[] = [];
      for (const raw of sourceValues(source, f.sourcePath, pairs)) {
        const v = raw === null ? nullValue : raw;
        if (v === null || v === undefined) continue;
        const p = print(v);
        if (p !== undefined) out.push(p);
      }
      return out;
    },
  };
}

/** `token_count` values: the number of tokens of each value (nothing without doc values or an analyzer). */
function tokenCountFn(f: FetchableField, analyze: ((text: string) => string[]) | undefined): (v: unknown) => unknown {
  if (f.fm.doc_values === false || !analyze) return () => undefined;
  return (v) => (isJsonScalar(v) ? analyze(String(v)).length : undefined);
}

/** Doc-values reader of one field: values as indexed, sorted (keywords as a set). */
function docValueReader(f: FetchableField, format: string | undefined, index: string, analyze?: (text: string) => string[]): FieldReader {
  const t = typeOf(f.fm);
  if (t === 'text') {
    if (!f.fm.fielddata) {
      throw illegalArgument(
        `Fielddata is disabled on [${f.name}] in [${index}]. Text fields are not optimised for operations that require per-document ` +
          'field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. ' +
          `Alternatively, set fielddata=true on [${f.name}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
      );
    }
    if (format !== undefined) throw illegalArgument(`Field [${f.name}] of type [text] doesn't support formats.`);
    return {
      name: f.name,
      read: (source) => {
        if (!analyze) return [];
        const terms = new Set<string>();
        for (const v of sourceValues(source, f.sourcePath)) if (isJsonScalar(v)) for (const term of analyze(String(v))) terms.add(term);
        return [...terms].sort(compareCodePoints);
      },
    };
  }
  if (f.fm.doc_values === false) {
    throw illegalArgument(`Can't load fielddata on [${f.name}] because fielddata is unsupported on fields of type [${t}]. Use doc values instead.`);
  }
  if (t === 'token_count') {
    const count = tokenCountFn(f, analyze);
    const dec = format !== undefined ? docValueFns(f.name, { type: 'integer' }, format) : null;
    return {
      name: f.name,
      read: (source) => {
        const counts = sourceValues(source, f.sourcePath)
          .map(count)
          .filter((n): n is number => typeof n === 'number')
          .sort((a, b) => a - b);
        return dec ? counts.map((n) => dec.print({ key: n, value: n })) : counts;
      },
    };
  }
  const fns = docValueFns(f.name, f.fm, format);
  const pairs = t === 'geo_point';
  const nullValue = f.fm.null_value;
  return {
    name: f.name,
    read: (source) => {
      const values: DocValue[] = [];
      for (const raw of sourceValues(source, f.sourcePath, pairs)) {
        const v = raw === null ? nullValue : raw;
        if (v === null || v === undefined) continue;
        const d = fns.read(v);
        if (d !== null) values.push(d);
      }
      values.sort((a, b) =>
        typeof a.key === 'string' ? compareCodePoints(a.key, b.key as string) : a.key - (b.key as number) || (a.nanos ?? 0) - (b.nanos ?? 0),
      );
      const kept = fns.unique ? values.filter((d, i) => i === 0 || d.key !== values[i - 1].key) : values;
      return kept.map(fns.print);
    },
  };
}

/** Stored-field reader: a `store: true` field's values in source order, as ES shows stored values. */
function storedReader(f: FetchableField): FieldReader {
  const print = storedValueFn(f.name, f.fm);
  return {
    name: f.name,
    read: (source) => {
      const out: unknown[] = [];
      for (const v of sourceValues(source, f.sourcePath)) {
        if (v === null) continue;
        const p = print(v);
        if (p !== undefined) out.push(p);
      }
      return out;
    },
  };
}

/** What a request asks the fetch phase to put under `fields`. */
export interface FieldFetchRequest {
  fields?: readonly FieldAndFormat[];
  docvalueFields?: readonly FieldAndFormat[];
  /** `stored_fields` names and patterns (`_source`, `_id`, `_routing` and other metadata are not fields here). */
  storedFields?: readonly string[];
}

/** A compiled {@link FieldFetchRequest}: {@link FieldFetch.fields} gives one document's `fields`. */
export interface FieldFetch {
  /**
   * The document's `fields` (`name → values`), undefined when no field has a value. `shown` is the
   * source as the mapping's `_source` keeps it (shared/source-mapping.ts), what the `fields` option
   * reads; doc values and stored fields read all of `source`.
   */
  fields(source: Record<string, unknown>, shown?: Record<string, unknown>): Record<string, unknown[]> | undefined;
}

/**
 * How many fields `docvalue_fields` names, as `index.max_docvalue_fields_search` counts them:
 * patterns expanded over the mapped fields, a plain name counted once whether mapped or not (as ES 7
 * and OpenSearch count; ES 8 counts mapped names only), repeats once.
 */
export function docvalueFieldCount(mapping: Mapping, requests: readonly FieldAndFormat[]): number {
  const fields = fetchableFieldsWithAliases(mapping);
  const names = new Set<string>();
  for (const r of requests) {
    if (!isWildcardPattern(r.field)) names.add(r.field);
    else for (const f of matching(fields, r.field)) names.add(f.name);
  }
  return names.size;
}

/** ES's error for a `docvalue_fields` request over `index.max_docvalue_fields_search`. */
export function tooManyDocvalueFields(limit: number, count: number): string {
  return (
    `Trying to retrieve too many docvalue_fields. Must be less than or equal to: [${limit}] but was [${count}]. ` +
    'This limit can be set by changing the [index.max_docvalue_fields_search] index level setting.'
  );
}

/**
 * Compiles a request against `mapping`: patterns resolved to fields (for one field named by several
 * entries, the last entry's format wins, at the first entry's place), readers built.
 * @param index the index name (for ES's fielddata error text)
 * @param analyze the text analyzer, for `docvalue_fields` on a text field with `fielddata: true` (terms)
 * @throws EsError 400 `illegal_argument_exception`: a `format` the field type does not take, an
 *   invalid date format, `docvalue_fields` on a text field without fielddata or a field without doc values.
 */
export function compileFieldFetch(mapping: Mapping, req: FieldFetchRequest, index: string, analyze?: (text: string) => string[]): FieldFetch {
  const fields = fetchableFieldsWithAliases(mapping);
  const readers = new Map<string, FieldReader>();
  for (const name of req.storedFields ?? []) {
    for (const f of matching(fields, name)) if (f.fm.store === true) readers.set(`s:${f.name}`, storedReader(f));
  }
  for (const r of req.docvalueFields ?? []) {
    for (const f of matching(fields, r.field)) readers.set(`d:${f.name}`, docValueReader(f, r.format, index, analyze));
  }
  const unmappedPatterns: string[] = [];
  for (const r of req.fields ?? []) {
    for (const f of matching(fields, r.field)) readers.set(`f:${f.name}`, { ...fetchReader(f, r.format, analyze), shown: true });
    if (r.includeUnmapped) unmappedPatterns.push(r.field);
  }
  const list = [...readers.values()];
  return {
    fields: (source, shown = source) => {
      let out: Record<string, unknown[]> | undefined;
      for (const r of list) {
        const values = r.read(r.shown ? shown : source);
        if (values.length === 0) continue;
        out ??= {};
        out[r.name] = values;
      }
      if (unmappedPatterns.length > 0) {
        for (const [name, values] of unmappedValues(shown, fields, unmappedPatterns)) {
          out ??= {};
          out[name] = values;
        }
      }
      return out;
    },
  };
}

/**
 * `include_unmapped`: the `_source` leaves that no mapped field covers, by dotted path, whose path
 * a pattern matches, with their raw values (ES `FieldFetcher` unmapped fetch).
 */
function unmappedValues(source: Record<string, unknown>, fields: ReadonlyMap<string, FetchableField>, patterns: readonly string[]): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const visit = (v: unknown, path: string): void => {
    if (v === null || v === undefined) return;
    if (path !== '' && fields.has(path)) return; // mapped: fetched (or not) as a mapped field
    if (Array.isArray(v)) {
      for (const x of v) visit(x, path);
      return;
    }
    if (isObject(v)) {
      for (const [k, x] of Object.entries(v)) visit(x, path === '' ? k : `${path}.${k}`);
      return;
    }
    if (!patterns.some((p) => wildcardMatch(p, path))) return;
    const list = out.get(path);
    if (list) list.push(v);
    else out.set(path, [v]);
  };
  visit(source, '');
  return out;
}
