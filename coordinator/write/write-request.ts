/**
 * The parameters of one document write beyond its document: optimistic concurrency (`if_seq_no`,
 * `if_primary_term`, `version`, `version_type`), the ingest `pipeline`, `retry_on_conflict`, and
 * which `_source` an update answers with. Read from the URL of the single-document APIs or from a
 * `_bulk` action line, then validated as ES's `IndexRequest`, `DeleteRequest` and `UpdateRequest`
 * `validate()` do (every message, in ES's order) before anything is routed.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/index/IndexRequest.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/DocWriteRequest.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/update/UpdateRequest.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/optimistic-concurrency-control.html
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { javaString } from '../rest/mapping-parse.ts';
import { isObject, numberFormatCause, parseIntParam, similarNames, xContentBoolean, xContentError } from '../rest/params.ts';
import type { SourceFilter } from '../../protocol/search.ts';
import type { WriteConditions } from '../../protocol/write.ts';
import { parseSourceFilter } from '../rest/source-filter-parse.ts';

/** ES `VersionType` names a request may give (`external_gt` is `external`). */
export type VersionType = 'internal' | 'external' | 'external_gte';

/** ES `Versions.MATCH_ANY`: no version given. */
const MATCH_ANY = -3;
/** ES `Versions.MATCH_DELETED`: what a create expects (the document must not exist). */
const MATCH_DELETED = -4;

/** The longest `_id` ES accepts, in UTF-8 bytes (`DocWriteRequest.validateDocIdLength`). */
export const MAX_ID_BYTES = 512;

/** The write parameters of one document write (absent: ES's defaults). */
export interface WriteParams {
  version?: number;
  versionType?: VersionType;
  /** Absent also when given as ES's "unassigned" value (-2). */
  ifSeqNo?: number;
  /** Absent also when given as ES's "unassigned" value (0). */
  ifPrimaryTerm?: number;
  /** The ingest pipeline to run (`_none`: none). Folio has no ingest pipelines: any other name is unknown. */
  pipeline?: string;
  retryOnConflict?: number;
  /** An update's `_source` for the reply's `get` (ES `FetchSourceContext`); absent: no `get`. */
  fetchSource?: SourceFilter;
}

/**
 * ES `VersionType.fromString`.
 * @throws EsError 400 `illegal_argument_exception` `No version type match [x]`
 */
export function parseVersionType(v: string): VersionType {
  if (v === 'internal' || v === 'external' || v === 'external_gte') return v;
  if (v === 'external_gt') return 'external';
  throw illegalArgument(`No version type match [${v}]`);
}

/**
 * A Java long written as text (`RestRequest.paramAsLong`).
 * @throws EsError 400 `illegal_argument_exception` `Failed to parse long parameter [name] with value [v]`
 */
export function parseLongParam(name: string, v: string): number {
  if (!/^[+-]?\d{1,19}$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw illegalArgument(`Failed to parse long parameter [${name}] with value [${v}]`, numberFormatCause(v));
  }
  return Number(v);
}

/**
 * The write parameters a single-document API reads from its URL (`RestIndexAction`,
 * `RestDeleteAction`, `RestUpdateAction`): `version`, `version_type`, `if_seq_no`,
 * `if_primary_term`, `pipeline`, `retry_on_conflict`.
 * @throws EsError 400 for a value that does not parse
 */
export function writeParamsFromQuery(query: (name: string) => string | undefined): WriteParams {
  const p: WriteParams = {};
  const long = (name: string): number | undefined => {
    const v = query(name);
    return v === undefined ? undefined : parseLongParam(name, v);
  };
  const versionType = query('version_type');
  if (versionType !== undefined) p.versionType = parseVersionType(versionType);
  const version = long('version');
  if (version !== undefined) p.version = version;
  const ifSeqNo = long('if_seq_no');
  if (ifSeqNo !== undefined && checkSeqNo(ifSeqNo) !== UNASSIGNED_SEQ_NO) p.ifSeqNo = ifSeqNo;
  const ifPrimaryTerm = long('if_primary_term');
  if (ifPrimaryTerm !== undefined && checkPrimaryTerm(ifPrimaryTerm) !== UNASSIGNED_PRIMARY_TERM) p.ifPrimaryTerm = ifPrimaryTerm;
  const pipeline = query('pipeline');
  if (pipeline !== undefined) p.pipeline = pipeline;
  const retries = query('retry_on_conflict');
  if (retries !== undefined) p.retryOnConflict = parseIntParam('retry_on_conflict', retries);
  return p;
}

/**
 * The write parameters of a `_bulk` action line (`BulkRequestParser`): numbers or numeric strings,
 * as XContent reads a long.
 * @throws EsError 400 `illegal_argument_exception` for a value that is not a long, or an unknown version type
 */
export function writeParamsFromActionLine(meta: Record<string, unknown>, lineNo: number): WriteParams {
  const p: WriteParams = {};
  const long = (name: string): number | undefined => {
    const v = meta[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
    if (typeof v === 'string') return parseLongParam(name, v);
    throw illegalArgument(`Action/metadata line [${lineNo}]: [${name}] must be a number, found [${JSON.stringify(v)}]`);
  };
  if (meta.version_type !== undefined && meta.version_type !== null) p.versionType = parseVersionType(javaString(meta.version_type));
  const version = long('version');
  if (version !== undefined) p.version = version;
  const ifSeqNo = long('if_seq_no');
  if (ifSeqNo !== undefined && checkSeqNo(ifSeqNo) !== UNASSIGNED_SEQ_NO) p.ifSeqNo = ifSeqNo;
  const ifPrimaryTerm = long('if_primary_term');
  if (ifPrimaryTerm !== undefined && checkPrimaryTerm(ifPrimaryTerm) !== UNASSIGNED_PRIMARY_TERM) p.ifPrimaryTerm = ifPrimaryTerm;
  if (meta.pipeline !== undefined && meta.pipeline !== null) p.pipeline = javaString(meta.pipeline);
  const retries = long('retry_on_conflict');
  if (retries !== undefined) p.retryOnConflict = retries;
  return p;
}

/** ES `SequenceNumbers.UNASSIGNED_SEQ_NO`: an `if_seq_no` of -2 is no condition. */
const UNASSIGNED_SEQ_NO = -2;
/** ES `SequenceNumbers.UNASSIGNED_PRIMARY_TERM`: an `if_primary_term` of 0 is none. */
const UNASSIGNED_PRIMARY_TERM = 0;

/** ES `IndexRequest.setIfSeqNo`. @throws EsError 400 `sequence numbers must be non negative. got [n].` */
function checkSeqNo(n: number): number {
  if (n < 0 && n !== UNASSIGNED_SEQ_NO) throw illegalArgument(`sequence numbers must be non negative. got [${n}].`);
  return n;
}

/** ES `IndexRequest.setIfPrimaryTerm`. @throws EsError 400 `primary term must be non negative. got [n]` */
function checkPrimaryTerm(n: number): number {
  if (n < 0) throw illegalArgument(`primary term must be non negative. got [${n}]`);
  return n;
}

/** ES `VersionType.name()`, as validation messages print it. */
function typeName(t: VersionType): string {
  return t.toUpperCase();
}

/**
 * ES `DocWriteRequest.validateSeqNoBasedCASParams`: a version valid for its type, no internal
 * version (ES 8 refuses it: `if_seq_no` replaced it), no version with `if_seq_no`, and
 * `if_seq_no` with `if_primary_term`.
 */
function casMessages(p: WriteParams, version: number): string[] {
  const out: string[] = [];
  const type = p.versionType ?? 'internal';
  const valid = type === 'internal' ? version > 0 || version === MATCH_ANY || version === MATCH_DELETED : version >= 0;
  if (!valid) out.push(`illegal version value [${version}] for version type [${typeName(type)}]`);
  if (type === 'internal' && version !== MATCH_ANY && version !== MATCH_DELETED) {
    out.push('internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead');
  }
  const seqNoSet = p.ifSeqNo !== undefined;
  const termSet = p.ifPrimaryTerm !== undefined;
  if (seqNoSet && (type !== 'internal' || version !== MATCH_ANY)) out.push('compare and write operations can not use versioning');
  if (!termSet && seqNoSet) out.push('ifSeqNo is set, but primary term is [0]');
  if (termSet && !seqNoSet) out.push(`ifSeqNo is unassigned, but primary term is [${p.ifPrimaryTerm}]`);
  return out;
}

/** `DocWriteRequest.validateDocIdLength`. */
function idLengthMessages(id: string | undefined): string[] {
  if (id === undefined) return [];
  const bytes = Buffer.byteLength(id);
  return bytes > MAX_ID_BYTES ? [`id [${id}] is too long, must be no longer than ${MAX_ID_BYTES} bytes but was: ${bytes}`] : [];
}

/** What {@link validationMessages} checks of one write. */
export interface WriteToValidate {
  action: 'index' | 'create' | 'update' | 'delete';
  index: string | undefined;
  id: string | undefined;
  params: WriteParams;
  /** An update's body keys that matter here. */
  update?: { hasDoc: boolean; hasUpsert: boolean; docAsUpsert: boolean };
}

/**
 * The messages of ES's `validate()` for one write, in ES's order (empty: valid). A bulk fails as
 * a whole with all its items' messages (`BulkRequest.validate`), a single-document API with its own.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/bulk/BulkRequest.java
 */
export function validationMessages(w: WriteToValidate): string[] {
  const p = w.params;
  const out: string[] = [];
  if (w.index === undefined) out.push('index is missing');
  const version = p.version ?? MATCH_ANY;
  switch (w.action) {
    case 'index':
    case 'create': {
      const resolved = w.action === 'create' && version === MATCH_ANY ? MATCH_DELETED : version;
      if (w.action === 'create') {
        if ((p.versionType ?? 'internal') !== 'internal') return [...out, 'create operations only support internal versioning. use index instead'];
        if (resolved !== MATCH_DELETED) return [...out, 'create operations do not support explicit versions. use index instead'];
        if (p.ifSeqNo !== undefined || p.ifPrimaryTerm !== undefined) return [...out, 'create operations do not support compare and set. use index instead'];
      }
      if (w.id === undefined && ((p.versionType ?? 'internal') !== 'internal' || (resolved !== MATCH_DELETED && resolved !== MATCH_ANY))) {
        out.push('an id must be provided if version type or value are set');
      }
      out.push(...casMessages(p, resolved), ...idLengthMessages(w.id));
      if (p.pipeline === '') out.push('pipeline cannot be an empty string');
      return out;
    }
    case 'delete':
      if (w.id === undefined || w.id === '') out.push('id is missing');
      return [...out, ...casMessages(p, version), ...idLengthMessages(w.id)];
    case 'update': {
      if (w.id === undefined || w.id === '') out.push('id is missing');
      out.push(...casMessages(p, version), ...idLengthMessages(w.id));
      const u = w.update ?? { hasDoc: false, hasUpsert: false, docAsUpsert: false };
      if (p.ifSeqNo !== undefined) {
        if ((p.retryOnConflict ?? 0) > 0) out.push('compare and write operations can not be retried');
        if (u.docAsUpsert) out.push('compare and write operations can not be used with upsert');
        if (u.hasUpsert) out.push("upsert requests don't support `if_seq_no` and `if_primary_term`");
      }
      if (!u.hasDoc) out.push('script or doc is missing');
      if (!u.hasDoc && u.docAsUpsert) out.push('doc must be specified if doc_as_upsert is enabled');
      return out;
    }
  }
}

/**
 * The conditions the primary checks for a valid write (internal versions never reach it: ES 8
 * refuses them in validation).
 */
export function writeConditionsOf(p: WriteParams): WriteConditions {
  if (p.ifSeqNo !== undefined) return { ifSeqNo: p.ifSeqNo, ifPrimaryTerm: p.ifPrimaryTerm ?? 0 };
  if (p.version !== undefined && p.versionType !== undefined && p.versionType !== 'internal') return { version: p.version, versionType: p.versionType };
  return {};
}

/** The pipeline name that means "no pipeline" (ES `IngestService.NOOP_PIPELINE_NAME`). */
const NOOP_PIPELINE = '_none';

/**
 * ES's ingest check of an `index`/`create` write: Folio has no ingest pipelines, so a named one
 * (other than `_none`) does not exist, and the write fails alone (in a bulk, its item).
 * @returns the error, or undefined when the write names no pipeline.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/ingest.html
 */
export function missingPipeline(p: WriteParams): EsError | undefined {
  if (p.pipeline === undefined || p.pipeline === '' || p.pipeline === NOOP_PIPELINE) return undefined;
  return illegalArgument(`pipeline with id [${p.pipeline}] does not exist`);
}

/** An `_update` body as ES's `UpdateRequest` parser reads it. */
export interface UpdateBody {
  doc?: Record<string, unknown>;
  upsert?: Record<string, unknown>;
  docAsUpsert: boolean;
  /** ES `detect_noop`, default true. */
  detectNoop: boolean;
  /** The body's `_source` (for the reply's `get`). */
  fetchSource?: SourceFilter;
  /** A `script` was given (Folio runs none). */
  script: boolean;
}

/**
 * ES `SuggestingErrorOnUnknown.suggest`, an object parser's did-you-mean: the candidates more than
 * 0.5 similar (Lucene Levenshtein), unlike a URL parameter's 0.7 (coordinator/rest/params.ts `didYouMean`).
 */
function suggestField(unknown: string, candidates: readonly string[]): string {
  const keys = similarNames(unknown, candidates, 0.5);
  if (keys.length === 0) return '';
  return keys.length === 1 ? ` did you mean [${keys[0]}]?` : ` did you mean any of [${keys.join(', ')}]?`;
}

/** The fields of ES's `UpdateRequest` parser. */
const UPDATE_FIELDS = ['script', 'scripted_upsert', 'upsert', 'doc', 'doc_as_upsert', 'detect_noop', '_source'];

/**
 * Parses an `_update` body (or a bulk `update` item's line) as ES's `UpdateRequest.fromXContent`.
 * @throws EsError 400 `x_content_parse_exception` `[UpdateRequest] unknown field [x] did you mean [y]?`,
 *   or `[UpdateRequest] failed to parse field [x]` for a value of the wrong type.
 */
export function parseUpdateBody(body: Record<string, unknown>): UpdateBody {
  const out: UpdateBody = { docAsUpsert: false, detectNoop: true, script: false };
  const object = (k: string, v: unknown): Record<string, unknown> => {
    if (!isObject(v)) throw xContentError(`[UpdateRequest] failed to parse field [${k}]`);
    return v;
  };
  const bool = (k: string, v: unknown): boolean => {
    try {
      return xContentBoolean(v);
    } catch {
      throw xContentError(`[UpdateRequest] failed to parse field [${k}]`);
    }
  };
  for (const [k, v] of Object.entries(body)) {
    switch (k) {
      case 'doc':
        out.doc = object(k, v);
        break;
      case 'upsert':
        out.upsert = object(k, v);
        break;
      case 'doc_as_upsert':
        out.docAsUpsert = bool(k, v);
        break;
      case 'detect_noop':
        out.detectNoop = bool(k, v);
        break;
      case 'scripted_upsert':
        bool(k, v);
        break;
      case 'script':
        out.script = true;
        break;
      case '_source':
        out.fetchSource = parseSourceFilter(v);
        break;
      default:
        throw xContentError(`[UpdateRequest] unknown field [${k}]${suggestField(k, UPDATE_FIELDS)}`);
    }
  }
  return out;
}

/**
 * ES `FetchSourceContext.parseFromRestRequest` for an update's reply: `_source` (`true`, `false` or
 * fields), `_source_includes`, `_source_excludes`; undefined when none is given (no `get`).
 */
export function fetchSourceFromQuery(query: (name: string) => string | undefined): SourceFilter | undefined {
  const source = query('_source');
  const includes = query('_source_includes');
  const excludes = query('_source_excludes');
  if (source === undefined && includes === undefined && excludes === undefined) return undefined;
  const list = (s?: string): string[] =>
    (s ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  if (source === 'false') return false;
  const inc = source !== undefined && source !== 'true' && source !== '' ? list(source) : list(includes);
  const exc = list(excludes);
  return inc.length === 0 && exc.length === 0 ? true : { includes: inc, excludes: exc };
}
