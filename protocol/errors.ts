/**
 * Elasticsearch-shaped errors: one HTTP-aware exception type, mapped to the ES error envelope once.
 *
 * Envelope: `{"error":{"root_cause":[…],"type":…,"reason":…,…metadata},"status":N}`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/ElasticsearchException.java (generateFailureXContent)
 */

/** A cause inside the envelope: `{type, reason, ...metadata}`, optionally with its own `caused_by`. */
export interface ErrorCause {
  type: string;
  reason: string | null;
  caused_by?: ErrorCause;
  [meta: string]: unknown;
}

/** The body Elasticsearch sends for a failed request. */
export interface ErrorBody {
  error: ErrorCause & { root_cause: ErrorCause[] };
  status: number;
}

/**
 * An error that knows its HTTP status and its ES `type`/`reason`. Thrown anywhere on the request
 * path; the HTTP layer turns it into an {@link ErrorBody} with {@link EsError.toBody}.
 */
export class EsError extends Error {
  readonly status: number;
  readonly type: string;
  readonly metadata: Record<string, unknown>;
  readonly causedBy: ErrorCause | undefined;
  /** Explicit root causes; when absent the error is its own root cause (as ES's `guessRootCauses`). */
  readonly rootCauses: ErrorCause[] | undefined;

  constructor(
    status: number,
    type: string,
    reason: string,
    opts: { metadata?: Record<string, unknown>; causedBy?: ErrorCause; rootCauses?: ErrorCause[] } = {},
  ) {
    super(reason);
    this.name = 'EsError';
    this.status = status;
    this.type = type;
    this.metadata = opts.metadata ?? {};
    this.causedBy = opts.causedBy;
    this.rootCauses = opts.rootCauses;
  }

  /** This error as a cause object (`{type, reason, ...metadata}`), used for nesting and root causes. */
  toCause(): ErrorCause {
    const cause: ErrorCause = { type: this.type, reason: this.message, ...this.metadata };
    if (this.causedBy) cause.caused_by = this.causedBy;
    return cause;
  }

  /** The full ES error envelope for this error. */
  toBody(): ErrorBody {
    const self = this.toCause();
    const { caused_by: _ignored, ...rootSelf } = self;
    return {
      error: { root_cause: this.rootCauses ?? [rootSelf], ...self },
      status: this.status,
    };
  }
}

/** 400 `illegal_argument_exception`, ES's most common rejection. */
export function illegalArgument(reason: string, causedBy?: ErrorCause): EsError {
  return new EsError(400, 'illegal_argument_exception', reason, { causedBy });
}

/**
 * 400 `parsing_exception` with the `line`/`col` ES reports for bad request bodies.
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/x-content/src/main/java/org/elasticsearch/xcontent/XContentParseException.java
 */
export function parsingException(reason: string, line = 1, col = 1): EsError {
  return new EsError(400, 'parsing_exception', reason, { metadata: { line, col } });
}

/**
 * 400 `x_content_parse_exception`: what ES answers for a syntactically malformed JSON body.
 * Reason text follows ES: `[1:10] Unexpected character …`.
 */
export function xContentParseException(reason: string): EsError {
  return new EsError(400, 'x_content_parse_exception', reason);
}

/**
 * 404 `index_not_found_exception` `no such index [name]` with ES's resource metadata.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/IndexNotFoundException.java
 */
export function indexNotFound(index: string): EsError {
  return new EsError(404, 'index_not_found_exception', `no such index [${index}]`, {
    metadata: { 'resource.type': 'index_or_alias', 'resource.id': index, index_uuid: '_na_', index },
  });
}

/** 400 `resource_already_exists_exception` `index [name/uuid] already exists`. */
export function indexAlreadyExists(index: string, uuid: string): EsError {
  return new EsError(400, 'resource_already_exists_exception', `index [${index}/${uuid}] already exists`, {
    metadata: { index_uuid: uuid, index },
  });
}

/** 400 `action_request_validation_exception`: `Validation Failed: 1: msg;2: msg;`. */
export function validationFailed(messages: string[]): EsError {
  const reason = 'Validation Failed: ' + messages.map((m, i) => `${i + 1}: ${m};`).join('');
  return new EsError(400, 'action_request_validation_exception', reason);
}

/**
 * `search_phase_execution_exception` "all shards failed" wrapping per-shard causes, as ES reports a
 * failure that every shard hit (e.g. the result window check). Status is the first shard cause's.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchPhaseExecutionException.java
 */
export function allShardsFailed(
  phase: string,
  failures: { shard: number; index: string; node: string | null; reason: ErrorCause }[],
  status: number,
  message = 'all shards failed',
): EsError {
  // ES groups identical causes per index: one entry (and one root cause) per index + cause.
  const seen = new Set<string>();
  const grouped = failures.filter((f) => {
    const key = f.index + '\u0000' + f.reason.type + '\u0000' + f.reason.reason;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return new EsError(status, 'search_phase_execution_exception', message, {
    metadata: { phase, grouped: true, failed_shards: grouped },
    causedBy: grouped[0]?.reason,
    // Root causes are written without their own `caused_by` (ES `REST_EXCEPTION_SKIP_CAUSE`).
    rootCauses: grouped.map(({ reason: { caused_by: _cause, ...cause }, index }) => ({ ...cause, index_uuid: index, index })),
  });
}

/** 404 `search_context_missing_exception` `No search context found for id [id]`. */
export function searchContextMissing(id: string | number): EsError {
  return new EsError(404, 'search_context_missing_exception', `No search context found for id [${id}]`);
}

/** 413 for a body over `http.max_content_length`, shaped as ES's simple error. */
export function contentTooLong(limitBytes: number): EsError {
  return new EsError(413, 'content_too_long_exception', `request body exceeds [http.max_content_length] of [${limitBytes}] bytes`);
}

/**
 * Any thrown value as an EsError: EsErrors pass through; anything else becomes a 500
 * `exception` (callers log it). Used once, in each service's error handler.
 */
export function toEsError(err: unknown): EsError {
  if (err instanceof EsError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new EsError(500, 'exception', message);
}

/**
 * 400 `invalid_index_name_exception` `Invalid index name [name], {why}` naming the index (ES
 * `InvalidIndexNameException(String, String)`), e.g. `already exists as alias`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/InvalidIndexNameException.java
 */
export function invalidIndexName(name: string, why: string): EsError {
  return new EsError(400, 'invalid_index_name_exception', `Invalid index name [${name}], ${why}`, { metadata: { index_uuid: '_na_', index: name } });
}

/**
 * 400 `invalid_alias_name_exception` `Invalid alias name [name]: {why}` (ES
 * `InvalidAliasNameException(String, String)`), e.g. `an index or data stream exists with the same name as the alias`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/InvalidAliasNameException.java
 */
export function invalidAliasName(name: string, why: string): EsError {
  return new EsError(400, 'invalid_alias_name_exception', `Invalid alias name [${name}]: ${why}`);
}

/** ES's description when an alias would take an index's name (`AliasValidator.validateAlias`). */
export const ALIAS_NAMES_INDEX = 'an index or data stream exists with the same name as the alias';
