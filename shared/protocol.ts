/**
 * The internal shard-node protocol (`/_internal/v1/…`, JSON). Every response echoes `node`, `index`
 * and `shard` so that the coordinator detects a mis-wired node. Shapes mirror ES's transport
 * actions: the query phase returns sort keys only (`QuerySearchResult`), the fetch phase loads
 * `_source` for the final page (`FetchSearchResult`).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchPhaseController.java
 */
export type { ShardEcho } from './protocol/echo.ts';
export { INTERNAL_PREFIX } from './protocol/echo.ts';
export type { AliasMetadata, IndexMetadata, IndexSettingValue, ShardCopy, RefreshRequest, PutIndexRequest, MetadataResponse, NodeIndexEntry, HostedCopy, NodeIndicesResponse, NodeShardStats, NodeStats, ShardCounters } from './protocol/metadata.ts';
export type { ScopedClusterSettings, ClusterSettingsState, ClusterSettingsUpdateRequest, ClusterSettingsResponse } from './protocol/cluster-settings.ts';
export { emptyClusterSettings } from './protocol/cluster-settings.ts';
export { primaryTermOf } from './protocol/metadata.ts';
export type { WriteOp, WriteConditions, RefreshPolicy, ShardBulkRequest, WriteResult, ShardBulkResponse, GroupMember, ReplicationTargets, ReplicasOutcome, FailedReplica, ReplicaOp, ReplicaBulkRequest, ReplicaBulkResponse, GetRequest, GetResponse } from './protocol/write.ts';
export type { TermStatistics, FieldStatistics, ScoringStatistics, ContextRef, DfsRequest, DfsResponse, TrackTotalHits, QueryPhaseRequest, ShardHit, QueryPhaseResponse, SourceFilter, FetchRequest, FetchedDoc, HitFetchOptions, HitExtras, ShardCollapse, ShardGroups, ShardHighlight, FetchResponse, OpenContextRequest, OpenContextResponse, CloseContextsRequest, CloseContextsResponse, LabelPitRequest, ListedPit, ListPitsResponse, AdvanceScrollRequest, AdvanceScrollResponse, SelectionBound, SelectSampleRequest, SelectSampleResponse, SelectRangeRequest, SelectRangeResponse } from './protocol/search.ts';
export { sampleRanks } from './protocol/search.ts';
export type { BucketKey, TermsBucketPartial, TermsPartial, HistogramPartial, MultiPartial, SinglePartial, StatsPartial, CardinalityPartial, PercentilesPartial, CompositePartial, TopHitsPartial, PipelinePartial, AggPartial, QueryAggs, BucketStep, TermsRefineTask, AggsRequest, AggsResponse } from './protocol/aggs.ts';
export type { RecoveryShardRequest, RecoveryStateResponse, RecoveryStartRequest, RecoveryStartResponse, RecoveryChunkRequest, RecoveryCancelRequest, RecoveryApplyRequest, RecoveryApplyResponse, RecoveryFinalizeRequest, RecoveryFinalizeResponse } from './protocol/recovery.ts';
export { RECOVERY_CHUNK_OPS_HEADER, RECOVERY_CHUNK_DONE_HEADER } from './protocol/recovery.ts';
