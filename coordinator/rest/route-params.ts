/**
 * The URL parameters each non-search endpoint accepts, copied from the parameters the matching ES
 * `Rest*Action` reads (so ES's `did you mean` candidates match). Folio implements some of them and
 * accepts the rest without effect (`timeout`, `master_timeout`, `wait_for_active_shards`,
 * `pipeline`, `preference`, `realtime`, …); `docs/compatibility.md` says which.
 * The always-accepted `pretty`, `human`, `error_trace`, `filter_path` and `format` are added by
 * `checkParams` in coordinator/http/http.ts.
 * @see https://github.com/elastic/elasticsearch/tree/main/server/src/main/java/org/elasticsearch/rest/action
 */

/** `IndicesOptions.fromRequest`: the multi-index options. */
const INDICES_OPTIONS = ['expand_wildcards', 'ignore_unavailable', 'allow_no_indices', 'ignore_throttled'] as const;

/** `AbstractCatAction.RESPONSE_PARAMS` plus `help`, which every cat action reads. */
const CAT_COMMON = ['format', 'h', 'v', 'ts', 'pri', 'bytes', 'size', 'time', 's', 'help'] as const;

/** Accepted parameters per endpoint, keyed by the ES handler they mirror. */
export const ROUTE_PARAMS = {
  /** `RestMainAction`: `GET /`. */
  main: [],
  /** `RestCreateIndexAction`: `PUT /{index}`. */
  createIndex: ['wait_for_active_shards', 'timeout', 'master_timeout'],
  /** `RestGetIndicesAction`: `GET|HEAD /{index}`. */
  getIndex: ['local', 'master_timeout', 'include_defaults', 'flat_settings', 'features', ...INDICES_OPTIONS],
  /** `RestDeleteIndexAction`: `DELETE /{index}`. */
  deleteIndex: ['timeout', 'master_timeout', ...INDICES_OPTIONS],
  /** `RestGetSettingsAction`: `GET /{index}/_settings`. */
  getSettings: ['include_defaults', 'local', 'master_timeout', 'flat_settings', ...INDICES_OPTIONS],
  /** `RestUpdateSettingsAction`: `PUT /{index}/_settings`. */
  putSettings: ['timeout', 'master_timeout', 'preserve_existing', 'reopen', 'flat_settings', ...INDICES_OPTIONS],
  /** `RestCloseIndexAction`: `POST /{index}/_close`. */
  closeIndex: ['timeout', 'master_timeout', 'wait_for_active_shards', ...INDICES_OPTIONS],
  /** `RestOpenIndexAction`: `POST /{index}/_open`. */
  openIndex: ['timeout', 'master_timeout', 'wait_for_active_shards', ...INDICES_OPTIONS],
  /** `RestGetMappingAction`: `GET /{index}/_mapping`. */
  getMapping: ['local', 'master_timeout', ...INDICES_OPTIONS],
  /** `RestGetFieldMappingAction`: `GET /_mapping/field/{fields}`, `/{index}/_mapping/field/{fields}`. */
  getFieldMapping: ['include_defaults', 'local', ...INDICES_OPTIONS],
  /** `RestPutMappingAction`: `PUT /{index}/_mapping`. */
  putMapping: ['timeout', 'master_timeout', 'write_index_only', ...INDICES_OPTIONS],
  /** `RestRefreshAction`: `POST|GET /_refresh`, `/{index}/_refresh`. */
  refresh: [...INDICES_OPTIONS],
  /** `RestClearIndicesCacheAction`: `POST /_cache/clear`, `/{index}/_cache/clear`. */
  clearCache: ['query', 'request', 'fielddata', 'fields', 'index', ...INDICES_OPTIONS],
  /** `RestBulkAction`: `POST|PUT /_bulk`, `/{index}/_bulk`. */
  bulk: [
    'wait_for_active_shards',
    'routing',
    'timeout',
    'pipeline',
    '_source',
    '_source_includes',
    '_source_excludes',
    'refresh',
    'require_alias',
    'require_data_stream',
    'list_executed_pipelines',
    'include_source_on_error',
  ],
  /** `RestIndexAction` (and its create variants): `PUT|POST /{index}/_doc/{id}`, `POST /{index}/_doc`, `_create`. */
  index: [
    'routing',
    'pipeline',
    'timeout',
    'refresh',
    'version',
    'version_type',
    'if_seq_no',
    'if_primary_term',
    'op_type',
    'require_alias',
    'require_data_stream',
    'wait_for_active_shards',
    'list_executed_pipelines',
    'include_source_on_error',
  ],
  /** `RestUpdateAction`: `POST /{index}/_update/{id}`. */
  update: [
    'wait_for_active_shards',
    'routing',
    'timeout',
    'refresh',
    '_source',
    '_source_includes',
    '_source_excludes',
    'retry_on_conflict',
    'if_seq_no',
    'if_primary_term',
    'require_alias',
    'include_source_on_error',
    'version',
    'version_type',
  ],
  /** `RestDeleteAction`: `DELETE /{index}/_doc/{id}`. */
  delete: ['routing', 'timeout', 'refresh', 'version', 'version_type', 'if_seq_no', 'if_primary_term', 'wait_for_active_shards'],
  /** `RestGetAction`: `GET|HEAD /{index}/_doc/{id}`. */
  get: [
    'refresh',
    'routing',
    'preference',
    'realtime',
    'stored_fields',
    '_source',
    '_source_includes',
    '_source_excludes',
    'version',
    'version_type',
    'force_synthetic_source',
  ],
  /** `RestGetSourceAction`: `GET|HEAD /{index}/_source/{id}`. */
  getSource: ['refresh', 'routing', 'preference', 'realtime', '_source', '_source_includes', '_source_excludes', 'version', 'version_type'],
  /** `RestMultiGetAction`: `GET|POST /_mget`, `/{index}/_mget`. */
  mget: ['refresh', 'routing', 'preference', 'realtime', 'stored_fields', '_source', '_source_includes', '_source_excludes', 'force_synthetic_source'],
  /** `RestCountAction` (`_count`). */
  count: [
    'q',
    'df',
    'default_operator',
    'analyzer',
    'analyze_wildcard',
    'lenient',
    'routing',
    'preference',
    'min_score',
    'terminate_after',
    ...INDICES_OPTIONS,
  ],
  /** `RestClusterHealthAction`: `GET /_cluster/health`, `/_cluster/health/{index}`. */
  clusterHealth: [
    'level',
    'local',
    'master_timeout',
    'timeout',
    'wait_for_status',
    'wait_for_no_relocating_shards',
    'wait_for_no_initializing_shards',
    'wait_for_active_shards',
    'wait_for_nodes',
    'wait_for_events',
    ...INDICES_OPTIONS,
  ],
  /** `RestClusterGetSettingsAction`: `GET /_cluster/settings`. */
  clusterGetSettings: ['flat_settings', 'include_defaults', 'local', 'master_timeout'],
  /** `RestClusterUpdateSettingsAction`: `PUT /_cluster/settings`. */
  clusterPutSettings: ['flat_settings', 'master_timeout', 'timeout'],
  /** `RestIndicesAction`: `GET /_cat/indices`, `/_cat/indices/{index}`. */
  catIndices: [...CAT_COMMON, 'local', 'health', 'master_timeout', 'include_unloaded_segments', ...INDICES_OPTIONS],
  /** `RestIndicesStatsAction`: `GET /_stats[/{metric}]`, `/{index}/_stats[/{metric}]`. */
  indicesStats: [
    'level',
    'forbid_closed_indices',
    'types',
    'completion_fields',
    'fielddata_fields',
    'fields',
    'groups',
    'include_segment_file_sizes',
    'include_unloaded_segments',
    ...INDICES_OPTIONS,
  ],
  /** `RestCatRecoveryAction`: `GET /_cat/recovery`, `/_cat/recovery/{index}`. */
  catRecovery: [...CAT_COMMON, 'active_only', 'detailed', 'time', ...INDICES_OPTIONS],
  /** `RestRecoveryAction`: `GET /_recovery`, `/{index}/_recovery`. */
  recovery: ['active_only', 'detailed', ...INDICES_OPTIONS],
  /** `RestShardsAction`: `GET /_cat/shards`, `/_cat/shards/{index}`. */
  catShards: [...CAT_COMMON, 'local', 'master_timeout'],
  /** `RestIndicesAliasesAction`, `RestIndexPutAliasAction`, `RestIndexDeleteAliasesAction`: `POST /_aliases`, `PUT|DELETE /{index}/_alias/{name}`. */
  changeAliases: ['timeout', 'master_timeout'],
  /** `RestGetAliasesAction`: `GET|HEAD /_alias[/{name}]`, `/{index}/_alias[/{name}]`. */
  getAliases: ['local', 'master_timeout', ...INDICES_OPTIONS],
  /** `RestAliasAction`: `GET /_cat/aliases[/{alias}]`. */
  catAliases: [...CAT_COMMON, 'local', 'master_timeout', 'expand_wildcards'],
} satisfies Record<string, readonly string[]>;
