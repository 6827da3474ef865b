/**
 * Validation of an index mapping as ES's `MapperService` parses it (`PUT /{index}` `mappings`,
 * `PUT /{index}/_mapping`): known field types and their parameters, field names, the root's
 * metadata fields and `dynamic` (the parameter tables are mapping-params.ts; the checks of a
 * mapping update are mapping-update-check.ts, the aliases of a whole mapping field-alias-check.ts, its
 * printing mapping-response.ts). Errors carry ES's texts:
 * a parse failure is `mapper_parsing_exception` "Failed to parse mapping: …" caused by the reason.
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/MapperService.java
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/ObjectMapper.java
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/FieldMapper.java
 */
import type { ErrorCause } from '../../protocol/errors.ts';
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { type FieldMapping, type Mapping } from '../../protocol/mapping.ts';
import { dateFormatter } from '../../shared/date-format.ts';
import { InvalidDateFormat } from '../../shared/date-pattern.ts';
import { ownValue, setOwn } from '../../shared/own-keys.ts';
import {
  FIELD_PARAMS,
  FIXED_METADATA,
  METADATA_FIELDS,
  METADATA_PARAMS,
  NESTED_PARAMS,
  OBJECT_PARAMS,
  ROOT_PARAMS,
  STORED_ONLY_TYPES,
} from './mapping-params.ts';

type Obj = Record<string, unknown>;

/** Java's `String.valueOf` of a parsed JSON value, as ES prints it in error texts (`{a=1}`, `[x, y]`). */
export function javaString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return '[' + v.map(javaString).join(', ') + ']';
  if (typeof v === 'object')
    return (
      '{' +
      Object.entries(v as Obj)
        .map(([k, x]) => `${k}=${javaString(x)}`)
        .join(', ') +
      '}'
    );
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return typeof v; // not a parsed JSON value (a function or a symbol): its kind
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
  'index',
  'doc_values',
  'store',
  'coerce',
  'ignore_malformed',
  'fielddata',
  'norms',
  'eager_global_ordinals',
  'index_phrases',
  'split_queries_on_whitespace',
  'ignore_z_value',
  'time_series_dimension',
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
    const t = javaString(type);
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
    const field = isObjectType
      ? parseObject(leafName, fullPath, type, node)
      : type === 'alias'
        ? parseAlias(leafName, node)
        : parseLeaf(leafName, fullPath, type, node);
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
 * path itself is checked against the whole mapping later (`checkFieldAliases`, field-alias-check.ts).
 */
function parseAlias(name: string, node: Obj): FieldMapping {
  const path = node.path;
  if (path === undefined || path === null) throw mapperParsing(`The [path] property must be specified for field [${name}].`);
  const unsupported = Object.entries(node)
    .filter(([k]) => k !== 'type' && k !== 'path')
    .map(([k, v]) => ` [${k} : ${javaString(v)}]`);
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
