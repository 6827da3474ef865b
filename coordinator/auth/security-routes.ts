/**
 * The security APIs clients call: `GET /_security/_authenticate` (who am I; what the official
 * clients and Kibana use to check credentials) and `POST|PUT /_security/api_key` (create an API
 * key owned by the caller). With authentication off they answer ES's error for a cluster whose
 * security is disabled (500 `exception`). Folio has no authorization: every authenticated
 * principal may do everything, so users report the `superuser` role and `role_descriptors` that
 * would restrict a key are refused rather than silently ignored.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/security-api-authenticate.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/security-api-create-api-key.html
 */
import type { Context, Hono } from 'hono';
import { EsError, illegalArgument, validationFailed } from '../../protocol/errors.ts';
import { isObject, parseTimeValue } from '../rest/params.ts';
import { checkParams, readJsonBody, sendJson } from '../http/http.ts';
import { principalOf, type AuthSetup } from './auth-middleware.ts';
import type { Principal } from './authenticator.ts';

/** The 500 ES answers to `_security` APIs when security is disabled (`SecurityActionFilter`). */
export const SECURITY_DISABLED_REASON =
  'Security must be explicitly enabled when using a [basic] license. Enable security by setting [xpack.security.enabled] to [true] in the elasticsearch.yml file and restart the node.';

/** ES's realm names: the default file realm, and the pseudo-realm of API keys. */
const FILE_REALM = { name: 'default_file', type: 'file' };
const API_KEY_REALM = { name: '_es_api_key', type: '_es_api_key' };

/**
 * The `_authenticate` response of a principal, in ES's field order.
 * @example authenticateResponse({username: 'alice', realm: 'file'}).authentication_type // 'realm'
 */
export function authenticateResponse(p: Principal): Record<string, unknown> {
  const realm = p.realm === 'file' ? FILE_REALM : API_KEY_REALM;
  return {
    username: p.username,
    roles: p.realm === 'file' ? ['superuser'] : [],
    full_name: null,
    email: null,
    metadata: {},
    enabled: true,
    authentication_realm: realm,
    lookup_realm: realm,
    authentication_type: p.realm === 'file' ? 'realm' : 'api_key',
    ...(p.apiKey ? { api_key: { id: p.apiKey.id, name: p.apiKey.name } } : {}),
  };
}

/** Answers ES's security-disabled error without logging it as a server failure. */
function securityDisabled(c: Context): Response {
  const cause = { type: 'exception', reason: SECURITY_DISABLED_REASON };
  return sendJson(c, 500, { error: { root_cause: [cause], ...cause }, status: 500 });
}

/**
 * Validates a create API key body: `name` (required, at most 1024 characters, no leading `_`),
 * `expiration` (an ES time value), `metadata` (an object, accepted and not stored); non-empty
 * `role_descriptors` are refused (no authorization to restrict). Returns the name and the
 * expiration in epoch ms.
 * @throws EsError 400 with ES's validation messages
 */
export function parseCreateApiKeyBody(body: unknown, now: number): { name: string; expiration?: number } {
  if (body !== undefined && !isObject(body)) throw new EsError(400, 'parse_exception', 'request body is required');
  const b = body ?? {};
  for (const field of Object.keys(b)) {
    if (!['name', 'expiration', 'role_descriptors', 'metadata'].includes(field)) {
      throw new EsError(400, 'x_content_parse_exception', `[1:2] [api_key_request] unknown field [${field}]`);
    }
  }
  const problems: string[] = [];
  const name = typeof b.name === 'string' ? b.name : '';
  if (name === '') problems.push('api key name is required');
  else if (name.length > 1024) problems.push('api key name may not be more than [1024] characters long');
  else if (name.startsWith('_')) problems.push('api key name may not begin with an underscore');
  if (problems.length > 0) throw validationFailed(problems);
  if (b.metadata !== undefined && !isObject(b.metadata)) throw illegalArgument('[metadata] must be an object');
  if (b.role_descriptors !== undefined && (!isObject(b.role_descriptors) || Object.keys(b.role_descriptors).length > 0)) {
    throw illegalArgument(
      "Folio has no authorization: an API key cannot be restricted with [role_descriptors]; omit them (the key gets its owner's full access)",
    );
  }
  let expiration: number | undefined;
  if (b.expiration !== undefined && b.expiration !== null) {
    if (typeof b.expiration !== 'string') throw illegalArgument('[expiration] must be a time value such as [30d]');
    const ms = parseTimeValue(b.expiration, 'expiration');
    if (ms <= 0) throw illegalArgument(`negative or zero expiration [${b.expiration}] is not allowed`);
    expiration = now + ms;
  }
  return { name, expiration };
}

/**
 * Registers `GET /_security/_authenticate` and `POST|PUT /_security/api_key`. Register before the
 * index routes, whose `/:index/…` patterns would match these paths.
 */
export function registerSecurityRoutes(app: Hono, auth: AuthSetup, maxBodyBytes: number): void {
  app.get('/_security/_authenticate', (c) => {
    checkParams(c, []);
    const principal = principalOf(c);
    if (!auth.authenticator || !principal) return securityDisabled(c);
    return sendJson(c, 200, authenticateResponse(principal));
  });

  const createApiKey = async (c: Context): Promise<Response> => {
    checkParams(c, ['refresh']);
    const authenticator = auth.authenticator;
    const principal = principalOf(c);
    if (!authenticator || !principal) return securityDisabled(c);
    const { name, expiration } = parseCreateApiKeyBody(await readJsonBody(c, maxBodyBytes), Date.now());
    if (principal.realm === 'api_key') {
      throw illegalArgument('creating derived api keys requires an explicit role descriptor that is empty (has no privileges)');
    }
    if (!authenticator.apiKeysEnabled) {
      throw new EsError(400, 'feature_not_enabled_exception', 'api keys are not enabled', { metadata: { feature: 'api_keys' } });
    }
    return sendJson(c, 200, await authenticator.createApiKey(name, principal.username, expiration));
  };
  app.post('/_security/api_key', createApiKey);
  app.put('/_security/api_key', createApiKey);
}
