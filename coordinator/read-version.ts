/**
 * The `version` and `version_type` of a read (`GET /{index}/_doc/{id}`, `_source`, `_mget` items):
 * the document is returned only when its version is the one given, else 409
 * `version_conflict_engine_exception` (ES `VersionType.isVersionConflictForReads`: for reads,
 * `internal`, `external` and `external_gte` all ask for equality). A missing document is not a
 * conflict: it answers `found: false`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-get.html#docs-get-api-query-params
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/VersionType.java
 */
import { EsError, illegalArgument, validationFailed } from '../shared/errors.ts';
import { numberFormatCause } from '../shared/params.ts';

/** A read's expected version. */
export interface ReadVersion {
  version: number;
  type: 'internal' | 'external' | 'external_gte';
}

/** ES `Versions.MATCH_ANY`: no version given. */
const MATCH_ANY = -3;

/**
 * Parses the `version` / `version_type` parameters of a read; undefined when no version is given.
 * @throws EsError 400: `Failed to parse long parameter [version] with value [x]`, `No version type
 *   match [x]`, or `Validation Failed: 1: illegal version value [v] for version type [EXTERNAL];`
 */
export function parseReadVersion(version: string | number | undefined, versionType: string | undefined): ReadVersion | undefined {
  let v = MATCH_ANY;
  if (version !== undefined) {
    const text = String(version);
    if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
      throw illegalArgument(`Failed to parse long parameter [version] with value [${text}]`, numberFormatCause(text));
    }
    v = Number(text);
  }
  let type: ReadVersion['type'] = 'internal';
  if (versionType !== undefined) {
    if (versionType !== 'internal' && versionType !== 'external' && versionType !== 'external_gte') throw illegalArgument(`No version type match [${versionType}]`);
    type = versionType;
  }
  // VersionType.validateVersionForReads: internal also takes MATCH_ANY; the external types need a version ≥ 0.
  const valid = type === 'internal' ? v >= 0 || v === MATCH_ANY : v >= 0;
  if (!valid) throw validationFailed([`illegal version value [${v}] for version type [${type.toUpperCase()}]`]);
  return v === MATCH_ANY ? undefined : { version: v, type };
}

/**
 * ES's conflict for a read of a document whose version is `current`, or null when it matches.
 * @returns 409 `version_conflict_engine_exception` `[id]: version conflict, current version [c] is different than the one provided [v]`
 */
export function readVersionConflict(expected: ReadVersion | undefined, current: number, id: string, index: string, shard: number, uuid: string): EsError | null {
  if (expected === undefined || expected.version === current) return null;
  return new EsError(409, 'version_conflict_engine_exception', `[${id}]: version conflict, current version [${current}] is different than the one provided [${expected.version}]`, {
    metadata: { index_uuid: uuid, shard: String(shard), index },
  });
}
