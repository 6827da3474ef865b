/**
 * Validation of an index mapping as ES's `MapperService` parses it (`PUT /{index}` `mappings`,
 * `PUT /{index}/_mapping`): known field types and their parameters, field names, the root's
 * metadata fields and `dynamic`, and the checks of a mapping update against the current mapping
 * (type changes, object/leaf changes, parameters that cannot be updated). Errors carry ES's texts:
 * a parse failure is `mapper_parsing_exception` "Failed to parse mapping: …" caused by the reason.
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/MapperService.java
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/ObjectMapper.java
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/FieldMapper.java
 */
import type { ErrorCause } from '../../protocol/errors.ts';
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { fieldAliases, flatFields, type FieldMapping, type Mapping } from '../../protocol/mapping.ts';
import { dateFormatter } from '../../shared/date-format.ts';
import { InvalidDateFormat } from '../../shared/date-pattern.ts';
import { ownValue, setOwn } from '../../shared/own-keys.ts';

type Obj = Record<string, unknown>;

/** Parameters every field mapper takes (ES `FieldMapper.Builder.parse`: multi-fields, `copy_to`) and `meta`. */
const COMMON = ['meta', 'fields', 'copy_to'];
const NUMERIC = [...COMMON, 'coerce', 'doc_values', 'ignore_malformed', 'index', 'null_value', 'store', 'boost', 'script', 'on_script_error', 'time_series_dimension', 'time_series_metric'];
const DATE = [...COMMON, 'format', 'locale', 'ignore_malformed', 'index', 'doc_values', 'store', 'null_value', 'boost', 'script', 'on_script_error'];

/** Parameters of the field types Folio indexes (ES 8 mappers' `getParameters()`). */
const FIELD_PARAMS: Record<string, ReadonlySet<string>> = {
  text: new Set([...COMMON, 'analyzer', 'search_analyzer', 'search_quote_analyzer', 'index', 'index_options', 'index_phrases', 'index_prefixes', 'norms', 'position_increment_gap', 'store', 'similarity', 'term_vector', 'fielddata', 'fielddata_frequency_filter', 'eager_global_ordinals', 'boost']),
  match_only_text: new Set([...COMMON, 'analyzer', 'search_analyzer', 'search_quote_analyzer']),
  keyword: new Set([...COMMON, 'index', 'doc_values', 'store', 'ignore_above', 'null_value', 'normalizer', 'split_queries_on_whitespace', 'eager_global_ordinals', 'index_options', 'norms', 'similarity', 'boost', 'script', 'on_script_error', 'time_series_dimension']),
  long: new Set(NUMERIC),
  integer: new Set(NUMERIC),
  short: new Set(NUMERIC),
  byte: new Set(NUMERIC),
  double: new Set(NUMERIC),
  float: new Set(NUMERIC),
  half_float: new Set(NUMERIC),
  unsigned_long: new Set(NUMERIC),
  scaled_float: new Set([...NUMERIC, 'scaling_factor']),
  date: new Set(DATE),
  date_nanos: new Set(DATE),
  boolean: new Set([...COMMON, 'doc_values', 'index', 'null_value', 'store', 'boost', 'script', 'on_script_error', 'ignore_malformed']),
  ip: new Set([...COMMON, 'doc_values', 'ignore_malformed', 'index', 'null_value', 'store', 'boost', 'script', 'on_script_error', 'time_series_dimension']),
  binary: new Set([...COMMON, 'doc_values', 'store']),
  geo_point: new Set([...COMMON, 'ignore_malformed', 'ignore_z_value', 'index', 'null_value', 'doc_values', 'store', 'script', 'on_script_error']),
  flattened: new Set([...COMMON, 'depth_limit', 'doc_values', 'eager_global_ordinals', 'ignore_above', 'index', 'index_options', 'null_value', 'similarity', 'split_queries_on_whitespace', 'time_series_dimensions']),
  flat_object: new Set([...COMMON]),
  constant_keyword: new Set([...COMMON, 'value']),
  wildcard: new Set([...COMMON, 'ignore_above', 'null_value']),
};

/**
 * ES 8 field types Folio accepts in a mapping but does not index (their values stay in `_source`);
 * listed in docs/compatibility.md. Their parameters are not checked.
 */
const STORED_ONLY_TYPES: ReadonlySet<string> = new Set([
  'geo_shape', 'point', 'shape', 'completion', 'search_as_you_type', 'token_count', 'rank_feature', 'rank_features',
  'dense_vector', 'sparse_vector', 'histogram', 'integer_range', 'long_range', 'float_range', 'double_range', 'date_range',
  'ip_range', 'percolator', 'join', 'version', 'aggregate_metric_double', 'semantic_text', 'counted_keyword', 'passthrough',
]);

const OBJECT_PARAMS: ReadonlySet<string> = new Set(['type', 'properties', 'dynamic', 'enabled', 'subobjects']);
const NESTED_PARAMS: ReadonlySet<string> = new Set([...OBJECT_PARAMS, 'include_in_parent', 'include_in_root']);

/** Root-level keys of a mapping besides `properties` and `dynamic` (RootObjectMapper and the metadata mappers). */
const ROOT_PARAMS: ReadonlySet<string> = new Set([
  'properties', 'dynamic', 'enabled', 'subobjects', 'date_detection', 'numeric_detection', 'dynamic_date_formats', 'dynamic_templates',
  'runtime', '_meta', '_source', '_routing', '_field_names', '_data_stream_timestamp',
]);

/** Metadata fields that take no configuration (ES `MetadataFieldMapper.FixedTypeParser`). */
const FIXED_METADATA: ReadonlySet<string> = new Set(['_id', '_index', '_seq_no', '_version', '_ignored', '_nested_path', '_doc_count', '_tier', '_feature']);

/** Names of every metadata field (they cannot be declared again in `properties`). */
const METADATA_FIELDS: ReadonlySet<string> = new Set([...FIXED_METADATA, '_source', '_routing', '_field_names', '_data_stream_timestamp']);

/** The root parameters each configurable metadata field takes. */
const METADATA_PARAMS: Record<string, ReadonlySet<string>> = {
  _source: new Set(['enabled', 'includes', 'excludes', 'mode']),
  _routing: new Set(['required']),
  _field_names: new Set(['enabled']),
  _data_stream_timestamp: new Set(['enabled']),
};

/** Java's `String.valueOf` of a parsed JSON value, as ES prints it in error texts (`{a=1}`, `[x, y]`). */
export function javaString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return '[' + v.map(javaString).join(', ') + ']';
  if (typeof v === 'object') return '{' + Object.entries(v as Obj).map(([k, x]) => `${k}=${javaString(x)}`).join(', ') + '}';
  return String(v);
}

/** The simple name of the Java class XContent parses a JSON value into (`String`, `Integer`, ...). */
function javaClassName(v: unknown): string {
  if (typeof v === 'string') return 'String';
  if (typeof v === 'boolean') return 'Boolean';
  if (Array.isArray(v)) return 'ArrayList';
  if (typeof v === 'number') return Number.isInteger(v) ? 'Integer' : 'Double';
  return 'Object';
}

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A mapping parse failure before the "Failed to parse mapping" wrap: ES type and reason, with an optional cause. */
class MappingProblem extends Error {
  readonly type: string;
  readonly cause_: ErrorCause | undefined;
  constructor(type: string, reason: string, cause?: ErrorCause) {
    super(reason);
    this.type = type;
    this.cause_ = cause;
  }
  toCause(): ErrorCause {
    return this.cause_ ? { type: this.type, reason: this.message, caused_by: this.cause_ } : { type: this.type, reason: this.message };
  }
}

const mapperParsing = (reason: string): MappingProblem => new MappingProblem('mapper_parsing_exception', reason);
const illegal = (reason: string, cause?: ErrorCause): MappingProblem => new MappingProblem('illegal_argument_exception', reason, cause);

/** ES `Booleans.parseBoolean`: only `true`/`false` (booleans or their strings). */
function parseBool(v: unknown): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw illegal(`Failed to parse value [${javaString(v)}] as only [true] or [false] are allowed.`);
}

/** ES `XContentMapValues.nodeBooleanValue(node, name)`: the failure names the setting. */
function parseNamedBool(v: unknown, name: string): boolean {
  try {
    return parseBool(v);
  } catch (e) {
    throw illegal(`Could not convert [${name}] to boolean`, (e as MappingProblem).toCause());
  }
}

/** ES `XContentMapValues.nodeIntegerValue`: a number (truncated) or an integer string. */
function parseInt32(v: unknown): number {
  if (typeof v === 'number') return Math.trunc(v);
  const s = javaString(v);
  if (!/^[+-]?\d+$/.test(s) || Math.abs(Number(s)) > 2_147_483_648) throw new MappingProblem('number_format_exception', `For input string: "${s}"`);
  return Number(s);
}

/** ES `XContentMapValues.nodeDoubleValue`. */
function parseDouble(v: unknown): number {
  if (typeof v === 'number') return v;
  const n = Number(javaString(v));
  if (typeof v !== 'string' || v.trim() === '' || Number.isNaN(n)) throw new MappingProblem('number_format_exception', `For input string: "${javaString(v)}"`);
  return n;
}

const BOOL_PARAMS = new Set([
  'index', 'doc_values', 'store', 'coerce', 'ignore_malformed', 'fielddata', 'norms', 'eager_global_ordinals', 'index_phrases',
  'split_queries_on_whitespace', 'ignore_z_value', 'time_series_dimension',
]);
const INT_PARAMS = new Set(['ignore_above', 'position_increment_gap', 'depth_limit']);

/** Checks one leaf field's parameters and returns it cleaned (booleans and numbers as ES reads them). */
function parseLeaf(name: string, fullPath: string, type: string, node: Obj): FieldMapping {
  const allowed = FIELD_PARAMS[type];
  const out: Obj = { type };
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type') continue;
    if (!allowed) {
      setOwn<unknown>(out, k, v); // a stored-only type: kept as given
      continue;
    }
    if (!allowed.has(k)) throw mapperParsing(`unknown parameter [${k}] on mapper [${name}] of type [${type}]`);
    if (v === null && k !== 'null_value' && k !== 'meta') {
      throw mapperParsing(`[${k}] on mapper [${name}] of type [${type}] must not have a [null] value`);
    }
    if (k === 'fields') {
      setOwn<unknown>(out, k, parseMultiFields(name, fullPath, v));
      continue;
    }
    if (BOOL_PARAMS.has(k)) setOwn<unknown>(out, k, parseBool(v));
    else if (INT_PARAMS.has(k)) {
      const n = parseInt32(v);
      if (k === 'ignore_above' && n < 0) throw illegal(`[ignore_above] must be positive, got [${n}]`);
      if (k === 'position_increment_gap' && n < 0) throw mapperParsing('[position_increment_gap] must be positive, got [' + n + ']');
      setOwn<unknown>(out, k, n);
    } else if (k === 'scaling_factor') {
      const n = parseDouble(v);
      if (!Number.isFinite(n) || n <= 0) throw illegal(`[scaling_factor] must be a positive number, got [${n}]`);
      setOwn<unknown>(out, k, n);
    } else if (k === 'format') {
      const f = javaString(v);
      try {
        dateFormatter(f);
      } catch (e) {
        if (!(e instanceof InvalidDateFormat)) throw e;
        throw illegal(`Invalid format: [${f}]: ${e.message}`);
      }
      setOwn<unknown>(out, k, f);
    } else if (k === 'meta') {
      if (v !== null && !isObject(v)) throw mapperParsing(`[meta] must be an object, got ${javaClassName(v)}[${javaString(v)}] for field [${name}]`);
      setOwn<unknown>(out, k, v);
    } else setOwn<unknown>(out, k, v);
  }
  if (type === 'scaled_float' && out.scaling_factor === undefined) throw illegal('Field [scaling_factor] is required');
  if (type === 'constant_keyword' && out.value !== undefined && out.value !== null && typeof out.value === 'object') {
    throw mapperParsing(`Property [value] on field [${name}] must be a number or a string, but got [${javaString(out.value)}]`);
  }
  return out as unknown as FieldMapping;
}

function parseMultiFields(name: string, fullPath: string, v: unknown): Record<string, FieldMapping> {
  if (!isObject(v)) throw mapperParsing(`Expected map for property [fields] on field [${name}] but got a ${javaString(v)}`);
  const out: Record<string, FieldMapping> = {};
  for (const [sub, node] of Object.entries(v)) {
    validateFieldName(sub);
    if (!isObject(node)) throw mapperParsing(`Expected map for property [fields] on field [${sub}] but got a class java.lang.String`);
    const type = node.type;
    if (type === undefined || type === null) throw mapperParsing(`No type specified for field [${sub}]`);
    const t = String(type);
    if (t === 'object' || t === 'nested' || t === 'alias') throw mapperParsing(`Type [${t}] cannot be used in multi field`);
    if (FIELD_PARAMS[t] === undefined && !STORED_ONLY_TYPES.has(t)) throw mapperParsing(`No handler for type [${t}] declared on field [${sub}]`);
    setOwn(out, sub, parseLeaf(sub, `${fullPath}.${sub}`, t, node));
  }
  return out;
}

/** ES `ObjectMapper.validateFieldName`. */
function validateFieldName(name: string): void {
  if (name === '') throw illegal('field name cannot be an empty string');
  if (name.trim() === '') throw illegal('field name cannot contain only whitespaces');
}

/** Parses `properties` into `out` (dotted names become objects, as ES's `subobjects: true`). */
function parseProperties(props: unknown, out: Record<string, FieldMapping>, prefix: string): void {
  if (!isObject(props)) {
    if (Array.isArray(props) && props.length === 0) return; // ES accepts an empty list (PHP clients)
    throw new MappingProblem('mapper_parsing_exception', 'properties must be a map type');
  }
  for (const [name, node] of Object.entries(props)) {
    validateFieldName(name);
    if (Array.isArray(node) && node.length === 0) continue;
    if (!isObject(node)) throw mapperParsing(`Expected map for property [fields] on field [${name}] but got a class java.lang.String`);
    let type: string;
    if (node.type !== undefined && node.type !== null) type = javaString(node.type);
    else if (node.properties !== undefined && node.properties !== null) type = 'object';
    else if (Object.keys(node).length === 1 && node.enabled !== undefined) type = 'object';
    else throw mapperParsing(`No type specified for field [${name}]`);
    const isObjectType = type === 'object' || type === 'nested';
    if (!isObjectType && type !== 'alias' && FIELD_PARAMS[type] === undefined && !STORED_ONLY_TYPES.has(type)) {
      throw mapperParsing(`No handler for type [${type}] declared on field [${name}]`);
    }
    // `a.b.c` declares `c` inside objects `a` and `a.b` (ES splits on dots, dropping trailing empties).
    const parts = name.split('.');
    while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
    if (parts.length === 0) throw illegal('field name cannot contain only dots');
    for (const p of parts) validateFieldName(p);
    const leafName = parts[parts.length - 1];
    const fullPath = prefix + parts.join('.');
    if (prefix === '' && parts.length === 1 && METADATA_FIELDS.has(leafName)) {
      // ES finds this when it builds the mapping lookup, after parsing: the error is not wrapped.
      throw new EsError(400, 'mapper_parsing_exception', `Field [${leafName}] is defined more than once`);
    }
    const field = isObjectType ? parseObject(leafName, fullPath, type, node) : type === 'alias' ? parseAlias(leafName, node) : parseLeaf(leafName, fullPath, type, node);
    // Walk (or create) the intermediate objects.
    let target = out;
    for (let i = 0; i < parts.length - 1; i++) {
      let o = ownValue(target, parts[i]);
      if (!o) setOwn(target, parts[i], (o = { type: 'object', properties: {} }));
      else if (o.type !== 'object' && o.type !== 'nested' && !(o.properties && !o.type)) {
        throw illegal(`can't merge a non object mapping [${prefix + parts.slice(0, i + 1).join('.')}] with an object mapping`);
      }
      o.properties ??= {};
      target = o.properties;
    }
    const existing = ownValue(target, leafName);
    setOwn(target, leafName, existing ? mergeFieldDefinitions(existing, field, fullPath) : field);
  }
}

/** Two definitions of one path in one mapping (`a.b` and `a: {properties: {b}}`): ES merges them. */
function mergeFieldDefinitions(a: FieldMapping, b: FieldMapping, path: string): FieldMapping {
  const aObj = a.type === 'object' || a.type === 'nested';
  const bObj = b.type === 'object' || b.type === 'nested';
  if (aObj && bObj) {
    const props = { ...(a.properties ?? {}) };
    for (const [k, v] of Object.entries(b.properties ?? {})) {
      const e = ownValue(props, k);
      setOwn(props, k, e ? mergeFieldDefinitions(e, v, `${path}.${k}`) : v);
    }
    return { ...a, ...b, properties: props };
  }
  if (aObj) throw illegal(`can't merge a non object mapping [${path}] with an object mapping`);
  if (bObj) throw illegal(`mapper [${path}] cannot be changed from type [${a.type}] to [${b.type}]`);
  return b;
}

/**
 * ES `FieldAliasMapper.TypeParser`: `path` (a string) is required and nothing else is taken; the
 * path itself is checked against the whole mapping later ({@link checkFieldAliases}).
 */
function parseAlias(name: string, node: Obj): FieldMapping {
  const path = node.path;
  if (path === undefined || path === null) throw mapperParsing(`The [path] property must be specified for field [${name}].`);
  const unsupported = Object.entries(node).filter(([k]) => k !== 'type' && k !== 'path').map(([k, v]) => ` [${k} : ${javaString(v)}]`);
  if (unsupported.length > 0) throw mapperParsing(`Mapping definition for [${name}] has unsupported parameters: ${unsupported.join('')}`);
  return { type: 'alias', path: javaString(path) };
}

function parseDynamic(v: unknown): Mapping['dynamic'] {
  const s = javaString(v);
  if (s.toLowerCase() === 'strict') return 'strict';
  if (s.toLowerCase() === 'runtime') return 'runtime';
  return parseNamedBool(v, 'dynamic.dynamic');
}

function parseObject(name: string, fullPath: string, type: string, node: Obj): FieldMapping {
  const allowed = type === 'nested' ? NESTED_PARAMS : OBJECT_PARAMS;
  const out: FieldMapping = { type: type as FieldMapping['type'], properties: {} };
  const unsupported: string[] = [];
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type' || k === 'properties') continue;
    if (!allowed.has(k)) {
      unsupported.push(` [${k} : ${javaString(v)}]`);
      continue;
    }
    if (k === 'dynamic') out.dynamic = parseDynamic(v);
    else if (k === 'enabled') out.enabled = parseNamedBool(v, 'enabled.enabled');
    else if (k === 'include_in_parent' || k === 'include_in_root') setOwn<unknown>(out as unknown as Obj, k, parseBool(v));
    else setOwn<unknown>(out as unknown as Obj, k, v);
  }
  if (unsupported.length > 0) throw mapperParsing(`Mapping definition for [${name}] has unsupported parameters: ${unsupported.join('')}`);
  if (node.properties !== undefined && node.properties !== null) parseProperties(node.properties, out.properties!, fullPath + '.');
  return out;
}

/** Checks the root's metadata field (`_source`, `_routing`, ...) configuration. */
function parseMetadataField(name: string, v: unknown): unknown {
  if (FIXED_METADATA.has(name)) throw mapperParsing(`${name} is not configurable`);
  if (!isObject(v)) throw mapperParsing(`[${name}] config must be an object`);
  const allowed = METADATA_PARAMS[name];
  for (const [k, x] of Object.entries(v)) {
    if (!allowed?.has(k)) throw mapperParsing(`unknown parameter [${k}] on metadata field [${name}]`);
    if ((k === 'enabled' || k === 'required') && x !== null) parseBool(x);
    if ((k === 'includes' || k === 'excludes') && x !== null && !Array.isArray(x)) {
      throw mapperParsing(`[${k}] on metadata field [${name}] must be an array`);
    }
  }
  return v;
}

/** Wraps a problem the way `MapperService.parseMapping` does; ES's root cause is the innermost ES exception. */
function wrap(p: MappingProblem): EsError {
  const cause = p.toCause();
  const esCause = p.type === 'mapper_parsing_exception' ? [{ type: p.type, reason: p.message }] : undefined;
  return new EsError(400, 'mapper_parsing_exception', `Failed to parse mapping: ${p.message}`, { causedBy: cause, rootCauses: esCause });
}

/**
 * Parses and validates the `mappings` of a create-index request or the body of a put-mapping
 * request into a {@link Mapping}: known types (see docs/compatibility.md for the ones kept in
 * `_source` only), known parameters with valid values, field names, `dynamic`, metadata fields.
 * Dotted field names are expanded into objects.
 * @throws EsError 400 `mapper_parsing_exception` "Failed to parse mapping: …" (caused by ES's reason)
 * @example parseMapping({properties: {n: {type: 'foo'}}}) // throws "…: No handler for type [foo] declared on field [n]"
 */
export function parseMapping(raw: unknown): Mapping {
  if (raw === null || raw === undefined) return { properties: {} };
  if (!isObject(raw)) throw new EsError(400, 'mapper_parsing_exception', 'Failed to parse mapping: mappings must be an object');
  try {
    const out: Mapping = { properties: {} };
    const unsupported: string[] = [];
    for (const [k, v] of Object.entries(raw)) {
      if (k === 'properties') continue;
      if (k === 'dynamic') out.dynamic = parseDynamic(v);
      else if (METADATA_FIELDS.has(k)) setOwn<unknown>(out as unknown as Obj, k, parseMetadataField(k, v));
      else if (ROOT_PARAMS.has(k)) {
        if ((k === 'date_detection' || k === 'numeric_detection' || k === 'enabled') && v !== null) parseNamedBool(v, k);
        if (k === 'dynamic_date_formats') {
          const formats = Array.isArray(v) ? v : [v];
          for (const f of formats) {
            try {
              dateFormatter(javaString(f));
            } catch (e) {
              if (!(e instanceof InvalidDateFormat)) throw e;
              throw illegal(`Invalid format: [${javaString(f)}]: ${e.message}`);
            }
          }
          setOwn<unknown>(out as unknown as Obj, k, formats.map(javaString));
          continue;
        }
        setOwn<unknown>(out as unknown as Obj, k, v);
      } else unsupported.push(` [${k} : ${javaString(v)}]`);
    }
    if (unsupported.length > 0) throw mapperParsing(`Root mapping definition has unsupported parameters: ${unsupported.join('')}`);
    if (raw.properties !== undefined && raw.properties !== null) parseProperties(raw.properties, out.properties, '');
    return out;
  } catch (e) {
    if (e instanceof MappingProblem) throw wrap(e);
    throw e;
  }
}

/**
 * ES's refusal of a typed mapping (`{"_doc": {"properties": …}}`) in a create-index request
 * (RestCreateIndexAction.prepareMappings).
 * @throws EsError 400 illegal_argument_exception
 */
export function refuseTypedCreateMapping(mappings: unknown): void {
  if (isObject(mappings) && Object.keys(mappings).length === 1 && Object.hasOwn(mappings, '_doc')) {
    throw illegalArgument('The mapping definition cannot be nested under a type [_doc] unless include_type_name is set to true.');
  }
}

/** Parameters that a mapping update may change (ES `Parameter.updateable`); others must stay as they are. */
const UPDATEABLE = new Set([
  'type', 'fields', 'properties', 'meta', 'copy_to', 'ignore_above', 'ignore_malformed', 'coerce', 'fielddata', 'search_analyzer',
  'search_quote_analyzer', 'eager_global_ordinals', 'dynamic', 'boost', 'norms', 'time_series_dimension',
  'depth_limit', 'split_queries_on_whitespace', 'fielddata_frequency_filter', 'include_in_parent', 'include_in_root', 'value',
]);

/** Defaults of non-updateable parameters, to compare a parameter a mapping update leaves out. */
function defaultOf(fm: FieldMapping, param: string): unknown {
  switch (param) {
    case 'index':
      return true;
    case 'doc_values':
      return fm.type !== 'binary' && fm.type !== 'text' && fm.type !== 'match_only_text';
    case 'store':
      return false;
    case 'format':
      return fm.type === 'date_nanos' ? 'strict_date_optional_time_nanos||epoch_millis' : 'strict_date_optional_time||epoch_millis';
    case 'analyzer':
      return 'default';
    case 'enabled':
      return true;
    default:
      return null;
  }
}

function checkFieldUpdate(a: FieldMapping, b: FieldMapping, path: string): void {
  const aObj = a.type === 'object' || a.type === 'nested' || (!a.type && !!a.properties);
  const bObj = b.type === 'object' || b.type === 'nested' || (!b.type && !!b.properties);
  if (aObj && !bObj) throw illegalArgument(`can't merge a non object mapping [${path}] with an object mapping`);
  if (!aObj && bObj) throw illegalArgument(`mapper [${path}] cannot be changed from type [${a.type}] to [${b.type ?? 'object'}]`);
  if (aObj) {
    const an = a.type === 'nested';
    const bn = b.type === 'nested';
    if (an && !bn) throw illegalArgument(`object mapping [${path}] can't be changed from nested to non-nested`);
    if (!an && bn) throw illegalArgument(`object mapping [${path}] can't be changed from non-nested to nested`);
    if (b.enabled !== undefined && (a.enabled ?? true) !== b.enabled) {
      throw new EsError(400, 'mapper_exception', `the [enabled] parameter can't be updated for the object mapping [${path}]`);
    }
    checkPropertiesUpdate(a.properties ?? {}, b.properties ?? {}, path + '.');
    return;
  }
  // ES `FieldAliasMapper.merge`: an alias takes another alias (its path may change), nothing else.
  if (a.type === 'alias') {
    if (b.type !== 'alias') throw illegalArgument(`Cannot merge a field alias mapping [${path}] with a mapping that is not for a field alias.`);
    return;
  }
  if (a.type !== b.type) throw illegalArgument(`mapper [${path}] cannot be changed from type [${a.type}] to [${b.type}]`);
  const conflicts: string[] = [];
  const params = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const p of params) {
    if (UPDATEABLE.has(p)) continue;
    const av = Object.hasOwn(a, p) ? (a as unknown as Obj)[p] : defaultOf(a, p);
    const bv = Object.hasOwn(b, p) ? (b as unknown as Obj)[p] : defaultOf(b, p);
    if (JSON.stringify(av) !== JSON.stringify(bv)) conflicts.push(`Cannot update parameter [${p}] from [${javaString(av)}] to [${javaString(bv)}]`);
  }
  if (a.type === 'constant_keyword' && a.value !== undefined && b.value !== undefined && a.value !== b.value) {
    conflicts.push(`Cannot update parameter [value] from [${javaString(a.value)}] to [${javaString(b.value)}]`);
  }
  if (conflicts.length > 0) throw illegalArgument(`Mapper for [${path}] conflicts with existing mapper:\n\t${conflicts.join('\n\t')}`);
  if (a.fields && b.fields) checkPropertiesUpdate(a.fields, b.fields, path + '.');
}

function checkPropertiesUpdate(a: Record<string, FieldMapping>, b: Record<string, FieldMapping>, prefix: string): void {
  for (const [name, fb] of Object.entries(b)) {
    const fa = ownValue(a, name);
    if (fa) checkFieldUpdate(fa, fb, prefix + name);
  }
}

/**
 * Checks a (parsed) mapping update against the current mapping as ES's `Mapping.merge` does for
 * `PUT /{index}/_mapping`: a leaf may not become an object or the reverse, a type may not change,
 * and non-updateable parameters (`index`, `doc_values`, `store`, `format`, `analyzer`, ...) must keep
 * their values.
 * @throws EsError 400 `illegal_argument_exception` with ES's texts ("can't merge a non object mapping
 *   [x] with an object mapping", "mapper [x] cannot be changed from type [long] to [keyword]",
 *   "Mapper for [x] conflicts with existing mapper:\n\tCannot update parameter [index] from [true] to [false]")
 */
export function checkMappingUpdate(current: Mapping, update: Mapping): void {
  checkPropertiesUpdate(current.properties ?? {}, update.properties ?? {}, '');
  if (update._source !== undefined) checkSourceUpdate(current._source ?? {}, update._source);
}

/**
 * ES `SourceFieldMapper`'s parameters are not updateable: an update that gives `_source` another
 * `enabled`, `mode`, `includes` or `excludes` than the index has is refused (ES's conflict text).
 */
function checkSourceUpdate(a: NonNullable<Mapping['_source']>, b: NonNullable<Mapping['_source']>): void {
  const defaults: Obj = { enabled: true, mode: null, includes: [], excludes: [] };
  const conflicts: string[] = [];
  for (const p of ['enabled', 'mode', 'includes', 'excludes']) {
    if (!Object.hasOwn(b, p)) continue;
    const read = (m: object): unknown => {
      const v = Object.hasOwn(m, p) ? (m as Obj)[p] : defaults[p];
      return p === 'enabled' ? v !== false && v !== 'false' : v;
    };
    const [av, bv] = [read(a), read(b)];
    if (JSON.stringify(av) !== JSON.stringify(bv)) conflicts.push(`Cannot update parameter [${p}] from [${javaString(av)}] to [${javaString(bv)}]`);
  }
  if (conflicts.length > 0) throw illegalArgument(`Mapper for [_source] conflicts with existing mapper:\n\t${conflicts.join('\n\t')}`);
}

/** The full path of the innermost `nested` object holding `path` (ES `NestedLookup.getNestedParent`), or null. */
function nestedParent(m: Mapping, path: string): string | null {
  let props = m.properties ?? {};
  let parent: string | null = null;
  const parts = path.split('.');
  for (let i = 0; i < parts.length - 1; i++) {
    const fm = ownValue(props, parts[i]);
    if (!fm || !fm.properties) break;
    if (fm.type === 'nested') parent = parts.slice(0, i + 1).join('.');
    props = fm.properties;
  }
  return parent;
}

/**
 * ES `FieldAliasMapper.validate` over a whole (created or merged) mapping: an alias may not refer
 * to itself, must refer to an existing field (not an object) that is not another alias, and must
 * sit in the same `nested` scope as its target. ES runs it when it builds the mapping lookup, so
 * the errors are not wrapped in "Failed to parse mapping".
 * @throws EsError 400 `mapper_parsing_exception` (`illegal_argument_exception` for the nested scope) with ES's texts
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/FieldAliasMapper.java
 */
export function checkFieldAliases(m: Mapping): void {
  const fields = flatFields(m);
  for (const [name, path] of fieldAliases(m)) {
    const bad = (why: string) => new EsError(400, 'mapper_parsing_exception', `Invalid [path] value [${path}] for field alias [${name}]: ${why}`);
    if (path === name) throw bad('an alias cannot refer to itself.');
    const target = fields.get(path);
    if (!target) throw bad('an alias must refer to an existing field in the mappings.');
    if (target.type === 'alias') throw bad('an alias cannot refer to another alias.');
    const aliasScope = nestedParent(m, name);
    const pathScope = nestedParent(m, path);
    if (aliasScope !== pathScope) {
      throw illegalArgument(
        `Invalid [path] value [${path}] for field alias [${name}]: an alias must have the same nested scope as its target. ` +
          (aliasScope === null ? 'The alias is not nested' : `The alias's nested scope is [${aliasScope}]`) +
          ', but ' +
          (pathScope === null ? 'the target is not nested.' : `the target's nested scope is [${pathScope}].`),
      );
    }
  }
}

function sortedProperties(props: Record<string, FieldMapping>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(props).sort()) setOwn(out, name, fieldResponse(props[name]));
  return out;
}

function fieldResponse(fm: FieldMapping): unknown {
  const { properties, fields, ...rest } = fm;
  const out: Record<string, unknown> = { ...rest };
  if (isObjectType(fm)) {
    // ES writes `"type": "object"` only for an object without properties.
    if (fm.type === 'object' && properties && Object.keys(properties).length > 0) delete out.type;
    if (properties && Object.keys(properties).length > 0) out.properties = sortedProperties(properties);
    return out;
  }
  if (fields && Object.keys(fields).length > 0) out.fields = sortedProperties(fields);
  return out;
}

function isObjectType(fm: FieldMapping): boolean {
  return fm.type === 'object' || fm.type === 'nested' || (!fm.type && fm.properties !== undefined);
}

/**
 * A mapping as `GET /{index}/_mapping` prints it (ES `ObjectMapper.toXContent`): properties sorted
 * by name, `"type": "object"` left out of objects that have properties, and an empty mapping as `{}`.
 */
export function mappingResponse(m: Mapping): Record<string, unknown> {
  const { properties, ...rest } = m;
  const out: Record<string, unknown> = { ...rest };
  if (properties && Object.keys(properties).length > 0) out.properties = sortedProperties(properties);
  return out;
}

/**
 * The body of one index in `GET /{index}/_mapping/field/{fields}` (ES `GetFieldMappingsResponse`):
 * for each mapped leaf field or multi-field whose full path matches one of `patterns` (`*`
 * wildcards), `{full_name, mapping: {leafName: fieldMapping}}`; objects are not listed.
 * @example fieldMappings(m, ['title*']) // {title: {full_name: 'title', mapping: {title: {type: 'text'}}}, ...}
 */
export function fieldMappings(m: Mapping, patterns: readonly string[], matches: (pattern: string, path: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const visit = (props: Record<string, FieldMapping>, prefix: string): void => {
    for (const name of Object.keys(props).sort()) {
      const fm = props[name];
      const path = prefix + name;
      if (isObjectType(fm)) {
        visit(fm.properties ?? {}, path + '.');
        continue;
      }
      if (patterns.some((p) => matches(p, path))) setOwn(out, path, { full_name: path, mapping: { [name]: fieldResponse(fm) } });
      for (const sub of Object.keys(fm.fields ?? {}).sort()) {
        const subPath = `${path}.${sub}`;
        if (patterns.some((p) => matches(p, subPath))) setOwn(out, subPath, { full_name: subPath, mapping: { [sub]: fieldResponse(fm.fields![sub]) } });
      }
    }
  };
  visit(m.properties ?? {}, '');
  return out;
}
