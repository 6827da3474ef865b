/**
 * The parameters ES 8's mappers take, by field type, for the root object and for the metadata
 * fields, and the field types Folio keeps in `_source` only: the tables mapping-parse.ts checks a
 * mapping's keys against.
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/FieldMapper.java
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/RootObjectMapper.java
 */

/** Parameters every field mapper takes (ES `FieldMapper.Builder.parse`: multi-fields, `copy_to`) and `meta`. */
const COMMON = ['meta', 'fields', 'copy_to'];
const NUMERIC = [
  ...COMMON,
  'coerce',
  'doc_values',
  'ignore_malformed',
  'index',
  'null_value',
  'store',
  'boost',
  'script',
  'on_script_error',
  'time_series_dimension',
  'time_series_metric',
];
const DATE = [...COMMON, 'format', 'locale', 'ignore_malformed', 'index', 'doc_values', 'store', 'null_value', 'boost', 'script', 'on_script_error'];

/** Parameters of the field types Folio indexes (ES 8 mappers' `getParameters()`). */
export const FIELD_PARAMS: Record<string, ReadonlySet<string>> = {
  text: new Set([
    ...COMMON,
    'analyzer',
    'search_analyzer',
    'search_quote_analyzer',
    'index',
    'index_options',
    'index_phrases',
    'index_prefixes',
    'norms',
    'position_increment_gap',
    'store',
    'similarity',
    'term_vector',
    'fielddata',
    'fielddata_frequency_filter',
    'eager_global_ordinals',
    'boost',
  ]),
  match_only_text: new Set([...COMMON, 'analyzer', 'search_analyzer', 'search_quote_analyzer']),
  keyword: new Set([
    ...COMMON,
    'index',
    'doc_values',
    'store',
    'ignore_above',
    'null_value',
    'normalizer',
    'split_queries_on_whitespace',
    'eager_global_ordinals',
    'index_options',
    'norms',
    'similarity',
    'boost',
    'script',
    'on_script_error',
    'time_series_dimension',
  ]),
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
  flattened: new Set([
    ...COMMON,
    'depth_limit',
    'doc_values',
    'eager_global_ordinals',
    'ignore_above',
    'index',
    'index_options',
    'null_value',
    'similarity',
    'split_queries_on_whitespace',
    'time_series_dimensions',
  ]),
  flat_object: new Set([...COMMON]),
  constant_keyword: new Set([...COMMON, 'value']),
  wildcard: new Set([...COMMON, 'ignore_above', 'null_value']),
};

/**
 * ES 8 field types Folio accepts in a mapping but does not index (their values stay in `_source`);
 * listed in docs/compatibility.md. Their parameters are not checked.
 */
export const STORED_ONLY_TYPES: ReadonlySet<string> = new Set([
  'geo_shape',
  'point',
  'shape',
  'completion',
  'search_as_you_type',
  'token_count',
  'rank_feature',
  'rank_features',
  'dense_vector',
  'sparse_vector',
  'histogram',
  'integer_range',
  'long_range',
  'float_range',
  'double_range',
  'date_range',
  'ip_range',
  'percolator',
  'join',
  'version',
  'aggregate_metric_double',
  'semantic_text',
  'counted_keyword',
  'passthrough',
]);

/** Parameters of an `object` field (ES `ObjectMapper.TypeParser`). */
export const OBJECT_PARAMS: ReadonlySet<string> = new Set(['type', 'properties', 'dynamic', 'enabled', 'subobjects']);
/** Parameters of a `nested` field (ES `NestedObjectMapper.TypeParser`): an object's, and where its fields are also indexed. */
export const NESTED_PARAMS: ReadonlySet<string> = new Set([...OBJECT_PARAMS, 'include_in_parent', 'include_in_root']);

/** Root-level keys of a mapping besides `properties` and `dynamic` (RootObjectMapper and the metadata mappers). */
export const ROOT_PARAMS: ReadonlySet<string> = new Set([
  'properties',
  'dynamic',
  'enabled',
  'subobjects',
  'date_detection',
  'numeric_detection',
  'dynamic_date_formats',
  'dynamic_templates',
  'runtime',
  '_meta',
  '_source',
  '_routing',
  '_field_names',
  '_data_stream_timestamp',
]);

/** Metadata fields that take no configuration (ES `MetadataFieldMapper.FixedTypeParser`). */
export const FIXED_METADATA: ReadonlySet<string> = new Set([
  '_id',
  '_index',
  '_seq_no',
  '_version',
  '_ignored',
  '_nested_path',
  '_doc_count',
  '_tier',
  '_feature',
]);

/** Names of every metadata field (they cannot be declared again in `properties`). */
export const METADATA_FIELDS: ReadonlySet<string> = new Set([...FIXED_METADATA, '_source', '_routing', '_field_names', '_data_stream_timestamp']);

/** The root parameters each configurable metadata field takes. */
export const METADATA_PARAMS: Record<string, ReadonlySet<string>> = {
  _source: new Set(['enabled', 'includes', 'excludes', 'mode']),
  _routing: new Set(['required']),
  _field_names: new Set(['enabled']),
  _data_stream_timestamp: new Set(['enabled']),
};
