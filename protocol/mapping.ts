/**
 * Index mappings as Elasticsearch writes them (`{"properties": {...}}`), shared by the coordinator
 * (dynamic mapping, `GET /{index}/_mapping`, sort validation) and the shard nodes (indexing).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-types.html
 */

/**
 * The field types Folio indexes. Integer types and float types share the numeric doc values. A
 * mapping may also hold other ES types that Folio keeps in `_source` only (coordinator/rest/mapping-parse.ts).
 */
export type FieldType =
  | 'text'
  | 'match_only_text'
  | 'keyword'
  | 'constant_keyword'
  | 'wildcard'
  | 'long'
  | 'integer'
  | 'short'
  | 'byte'
  | 'double'
  | 'float'
  | 'half_float'
  | 'scaled_float'
  | 'unsigned_long'
  | 'boolean'
  | 'date'
  | 'date_nanos'
  | 'ip'
  | 'binary'
  | 'flattened'
  | 'flat_object'
  | 'geo_point'
  | 'object'
  | 'nested'
  | 'alias';

/** One field's mapping, as in ES (`type`, multi-`fields`, nested `properties` for objects). */
export interface FieldMapping {
  type: FieldType;
  /** Multi-fields, e.g. `{keyword: {type: 'keyword', ignore_above: 256}}` for dynamic strings. */
  fields?: Record<string, FieldMapping>;
  /** Sub-fields of an `object`. */
  properties?: Record<string, FieldMapping>;
  /** keyword: strings longer than this (in characters) are not indexed. */
  ignore_above?: number;
  /** text: allow sorting (Folio supports it like ES, on the analyzed terms' minimum). */
  fielddata?: boolean;
  /** date: accepted formats, ES default `strict_date_optional_time||epoch_millis`. */
  format?: string;
  /** false: keep in `_source` only. */
  index?: boolean;
  doc_values?: boolean;
  /** scaled_float: values are indexed as `round(value * scaling_factor) / scaling_factor`. */
  scaling_factor?: number;
  /** Indexed in place of an explicit `null` (keyword, numeric, date, boolean, ip). */
  null_value?: unknown;
  /** A value the type cannot parse is skipped (kept in `_source`) instead of failing the document. */
  ignore_malformed?: boolean;
  /** false: numeric strings and fractions for integer types are refused. */
  coerce?: boolean;
  /** ES `copy_to`: target fields that also index this field's values. */
  copy_to?: string | string[];
  /** constant_keyword: the value of every document (set by the mapping or the first document). */
  value?: string | number;
  /** object/nested: `dynamic` of the fields below (inherits the parent's when absent). */
  dynamic?: boolean | 'strict' | 'runtime';
  /** object: false keeps the object in `_source` only. */
  enabled?: boolean;
  /** alias: the full path of the field it stands for (ES `FieldAliasMapper`). */
  path?: string;
}

/** The `_source` metadata field's configuration (ES `SourceFieldMapper`): stored or not, and which paths. */
export interface SourceMapping {
  /** false: documents keep no `_source` (GET `_source` answers 404, hits have none). */
  enabled?: boolean;
  /** Paths (with `*` wildcards) kept in the stored `_source`; empty or absent: all. */
  includes?: string[];
  /** Paths (with `*` wildcards) dropped from the stored `_source`. */
  excludes?: string[];
}

/** The top-level `mappings` object of an index. */
export interface Mapping {
  /** ES `_source` metadata field (absent: the whole source is stored). */
  _source?: SourceMapping;
  dynamic?: boolean | 'strict' | 'runtime';
  /** false: strings are never mapped as dates dynamically (ES default true). */
  date_detection?: boolean;
  /** The formats that make a new string field a `date` (ES default: ISO and `yyyy/MM/dd HH:mm:ss`). */
  dynamic_date_formats?: string[];
  /** true: numeric strings map as `long`/`float` (ES default false). */
  numeric_detection?: boolean;
  properties: Record<string, FieldMapping>;
}

/** Numeric field types (doc values are doubles in Folio). */
export const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set<FieldType>([
  'long',
  'integer',
  'short',
  'byte',
  'double',
  'float',
  'half_float',
  'scaled_float',
  'unsigned_long',
]);

/** Object-like types: containers of `properties` (`nested` is indexed like `object`; docs/compatibility.md). */
export function isObjectMapping(fm: FieldMapping): boolean {
  return fm.type === 'object' || fm.type === 'nested' || (fm.properties !== undefined && !fm.type);
}

/** Types whose values are indexed as exact terms (keyword doc values: term, terms, prefix, range, sort). */
export const KEYWORD_LIKE_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['keyword', 'wildcard', 'constant_keyword']);

/** Fields whose doc values are numbers: numeric types, dates (epoch ms; `date_nanos` epoch ns) and booleans (0/1). */
export function isNumericDocValues(fm: FieldMapping): boolean {
  return NUMERIC_TYPES.has(fm.type) || fm.type === 'date' || fm.type === 'date_nanos' || fm.type === 'boolean';
}

/** Integral numeric types: values are truncated to integers, and sort values print as integers. */
export const INTEGER_TYPES: ReadonlySet<FieldType> = new Set<FieldType>(['long', 'integer', 'short', 'byte', 'unsigned_long']);

/**
 * Flattens a mapping into `dotted.path -> FieldMapping` for every leaf field and multi-field
 * (`name`, `name.keyword`, `location`), skipping `object` containers.
 * @example flattenMapping({properties:{name:{type:'text',fields:{keyword:{type:'keyword'}}}}}) // Map{name, name.keyword}
 */
export function flattenMapping(mapping: Mapping): Map<string, FieldMapping> {
  const out = new Map<string, FieldMapping>();
  const walk = (props: Record<string, FieldMapping>, prefix: string): void => {
    for (const [name, fm] of Object.entries(props)) {
      const path = prefix + name;
      if (isObjectMapping(fm)) {
        walk(fm.properties ?? {}, path + '.');
        continue;
      }
      out.set(path, fm);
      for (const [sub, sfm] of Object.entries(fm.fields ?? {})) out.set(path + '.' + sub, sfm);
    }
  };
  walk(mapping.properties ?? {}, '');
  return out;
}

const flatCache = new WeakMap<Mapping, ReadonlyMap<string, FieldMapping>>();

/**
 * {@link flattenMapping}, computed once per mapping object (mappings are replaced, never mutated,
 * when they change), for the per-request readers (the coordinator's plan, a generation's fields).
 */
export function flatFields(mapping: Mapping): ReadonlyMap<string, FieldMapping> {
  let m = flatCache.get(mapping);
  if (!m) flatCache.set(mapping, (m = flattenMapping(mapping)));
  return m;
}

const aliasCache = new WeakMap<ReadonlyMap<string, FieldMapping>, { aliases: ReadonlyMap<string, string>; concrete: ReadonlyMap<string, FieldMapping> }>();

function aliasSplit(fields: ReadonlyMap<string, FieldMapping>): { aliases: ReadonlyMap<string, string>; concrete: ReadonlyMap<string, FieldMapping> } {
  let e = aliasCache.get(fields);
  if (!e) {
    const aliases = new Map<string, string>();
    for (const [name, fm] of fields) if (fm.type === 'alias' && typeof fm.path === 'string') aliases.set(name, fm.path);
    let concrete = fields;
    if (aliases.size > 0) {
      const m = new Map(fields);
      for (const name of aliases.keys()) m.delete(name);
      concrete = m;
    }
    aliasCache.set(fields, (e = { aliases, concrete }));
  }
  return e;
}

/**
 * The field aliases of a flattened mapping ({@link flatFields}; `{"type": "alias", "path": "x"}`,
 * ES `FieldAliasMapper`): alias full name → the path of the field it stands for; empty for most
 * mappings. Cached per map. Searches, sorts, aggregations and `collapse` on an alias read its path
 * (ES resolves an alias to its target's field type); `fields` and `docvalue_fields` show the
 * values under the alias name.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/field-alias.html
 */
export function aliasesOf(fields: ReadonlyMap<string, FieldMapping>): ReadonlyMap<string, string> {
  return aliasSplit(fields).aliases;
}

/** {@link aliasesOf} of a mapping. */
export function fieldAliases(mapping: Mapping): ReadonlyMap<string, string> {
  return aliasesOf(flatFields(mapping));
}

/** A flattened mapping without its aliases (what `*` field patterns expand to; the same map when there is none). Cached per map. */
export function concreteFields(fields: ReadonlyMap<string, FieldMapping>): ReadonlyMap<string, FieldMapping> {
  return aliasSplit(fields).concrete;
}

const resolvedCache = new WeakMap<ReadonlyMap<string, FieldMapping>, ReadonlyMap<string, FieldMapping>>();

/**
 * A flattened mapping ({@link flatFields}) in which every alias name maps to its target's mapping,
 * as ES's field type lookup answers an alias (for type checks: sortable, aggregatable, formats).
 * The same map when there is no alias; cached per map.
 */
export function withAliasTargets(fields: ReadonlyMap<string, FieldMapping>): ReadonlyMap<string, FieldMapping> {
  let m = resolvedCache.get(fields);
  if (m) return m;
  let out: Map<string, FieldMapping> | null = null;
  for (const [name, fm] of fields) {
    if (fm.type !== 'alias') continue;
    const target = typeof fm.path === 'string' ? fields.get(fm.path) : undefined;
    out ??= new Map(fields);
    if (target) out.set(name, target);
    else out.delete(name);
  }
  resolvedCache.set(fields, (m = out ?? fields));
  return m;
}
