/**
 * Elasticsearch's 401 for missing or bad credentials: a `security_exception` whose `header` field
 * repeats the `WWW-Authenticate` challenges that the response also carries (one per realm type:
 * Basic for the file realm, `ApiKey` for the API key service; Folio has no token service, so no
 * `Bearer`). Keys are in ES's order: type, reason, metadata, caused_by, header; root causes leave
 * out caused_by.
 * @see https://github.com/elastic/elasticsearch/blob/main/x-pack/plugin/core/src/main/java/org/elasticsearch/xpack/core/security/authc/DefaultAuthenticationFailureHandler.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/ElasticsearchException.java (innerToXContent)
 */
import type { ErrorBody, ErrorCause } from '../../protocol/errors.ts';

/** The challenges ES 8 sends with security on (its default realms + API keys), in its order. */
export const WWW_AUTHENTICATE: readonly string[] = ['Basic realm="security", charset="UTF-8"', 'ApiKey'];

/** Why a request was not authenticated. `uri` is the request's path and query, as ES's `request.uri()`. */
export type AuthFailure =
  | { kind: 'missing'; uri: string }
  | { kind: 'user'; username: string; uri: string }
  | { kind: 'api_key'; detail: string }
  | { kind: 'malformed'; reason: string; cause?: string };

/** The `reason` ES gives for each failure. */
export function failureReason(f: AuthFailure): string {
  switch (f.kind) {
    case 'missing':
      return `missing authentication credentials for REST request [${f.uri}]`;
    case 'user':
      return `unable to authenticate user [${f.username}] for REST request [${f.uri}]`;
    case 'api_key':
      return 'unable to authenticate with provided credentials and anonymous access is not allowed for this request';
    case 'malformed':
      return f.reason;
  }
}

/**
 * The full 401 body for a failure.
 * @example authFailureBody({kind: 'missing', uri: '/'}).error.reason // 'missing authentication credentials for REST request [/]'
 */
export function authFailureBody(f: AuthFailure): ErrorBody {
  const cause: ErrorCause = { type: 'security_exception', reason: failureReason(f) };
  // ES's `es.additional_unsuccessful_credentials` metadata, printed without the `es.` prefix.
  if (f.kind === 'api_key') cause.additional_unsuccessful_credentials = `API key: ${f.detail}`;
  const header = { 'WWW-Authenticate': [...WWW_AUTHENTICATE] };
  const root = { ...cause, header };
  const error =
    f.kind === 'malformed' && f.cause !== undefined ? { ...cause, caused_by: { type: 'illegal_argument_exception', reason: f.cause }, header } : root;
  return { error: { root_cause: [root], ...error }, status: 401 };
}
