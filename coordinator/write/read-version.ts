/**
 * The `version` and `version_type` of a read (`GET /{index}/_doc/{id}`, `_source`, `_mget` items):
 * the document is returned only when its version is the one given, else 409
 * `version_conflict_engine_exception` (ES `VersionType.isVersionConflictForReads`: for reads,
 * `internal`, `external` and `external_gte` all ask for equality). A missing document is not a
 * conflict: it answers `found: false`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-get.html#docs-get-api-query-params
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/VersionType.java
 */
import { EsError, validationFailed } from '../../protocol/errors.ts';
import { parseLongParam, parseVersionType, type VersionType } from './write-request.ts';

/** A read's expected version (ES GET `version`, `version_type`): the document must have exactly it. */
export interface ReadVersion {
  version: number;
  versionType: VersionType;
}

/** ES `Versions.MATCH_ANY`: no version given. */
const MATCH_ANY = -3;

/**
 * Parses the `version` / `version_type` of a read (a URL's texts, or an `_mget` item's number or
 * text), validated as ES's `VersionType.validateVersionForReads` (`GetRequest.validate`): internal
 * needs a version > 0, the external types ≥ 0; no version (ES `MATCH_ANY`) is valid for every type
 * and asks for no check (undefined). `external_gt` is `external` (`VersionType.fromString`).
 * @throws EsError 400: `Failed to parse long parameter [version] with value [x]`, `No version type
 *   match [x]`, or `Validation Failed: 1: illegal version value [v] for version type [INTERNAL];`
 */
export function parseReadVersion(version: string | number | undefined, versionType: string | undefined): ReadVersion | undefined {
  const type = versionType === undefined ? 'internal' : parseVersionType(versionType);
  if (version === undefined) return undefined;
  const v = typeof version === 'number' && Number.isSafeInteger(version) ? version : parseLongParam('version', String(version));
  const valid = type === 'internal' ? v > 0 || v === MATCH_ANY : v >= 0 || v === MATCH_ANY;
  if (!valid) throw validationFailed([`illegal version value [${v}] for version type [${type.toUpperCase()}]`]);
  return v === MATCH_ANY ? undefined : { version: v, versionType: type };
}

/** {@link parseReadVersion} of a URL's `version` and `version_type` (`RestGetAction`, `RestGetSourceAction`, `RestMultiGetAction`). */
export function readVersionFromQuery(query: (name: string) => string | undefined): ReadVersion | undefined {
  return parseReadVersion(query('version'), query('version_type'));
}

/**
 * ES's conflict for a read of a document whose version is `current`, or null when it matches (or
 * no version was asked for).
 * @returns 409 `version_conflict_engine_exception` `[id]: version conflict, current version [c] is different than the one provided [v]`,
 *   with the index, its uuid and the shard as metadata
 */
export function readVersionConflict(
  expected: ReadVersion | undefined,
  current: number,
  id: string,
  index: string,
  shard: number,
  uuid: string,
): EsError | null {
  if (expected === undefined || expected.version === current) return null;
  return new EsError(
    409,
    'version_conflict_engine_exception',
    `[${id}]: version conflict, current version [${current}] is different than the one provided [${expected.version}]`,
    {
      metadata: { index_uuid: uuid, shard: String(shard), index },
    },
  );
}
