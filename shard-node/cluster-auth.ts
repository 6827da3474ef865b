/**
 * Hono middleware guarding the shard node's internal API with the cluster secret
 * (shared/cluster-secret.ts). A request without the header, or with a wrong value, gets 401 and an
 * ES `security_exception` body, and reaches no handler. The health checks of compose and
 * Kubernetes (`/_internal/v1/health`, `/livez`, `/readyz`) stay open.
 */
import type { MiddlewareHandler } from 'hono';
import { CLUSTER_SECRET_HEADER, secretMatches } from '../shared/cluster-secret.ts';
import { EsError } from '../protocol/errors.ts';

/** Paths answered without the secret: the probes carry no data and cannot send headers in compose. */
export const OPEN_INTERNAL_PATHS: ReadonlySet<string> = new Set(['/_internal/v1/health', '/livez', '/readyz']);

/**
 * Middleware that requires `secret` in the `x-folio-cluster-secret` header. With `secret`
 * undefined (FOLIO_INSECURE=true) it lets everything through.
 * @throws EsError 401 `security_exception` (ES's type for failed authentication) for a missing or wrong secret
 */
export function clusterSecretAuth(secret: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (secret !== undefined && !OPEN_INTERNAL_PATHS.has(c.req.path)) checkClusterSecret(secret, c.req.header(CLUSTER_SECRET_HEADER), c.req.method, c.req.path);
    await next();
  };
}

/**
 * The check of {@link clusterSecretAuth} for one request to a path that needs the secret: `given`
 * is its `x-folio-cluster-secret` header (undefined when missing).
 * @throws EsError 401 `security_exception` when `given` is missing or is not `secret`
 */
export function checkClusterSecret(secret: string, given: string | undefined, method: string, path: string): void {
  if (secretMatches(given, secret)) return;
  const why = given === undefined ? 'missing cluster secret' : 'invalid cluster secret';
  throw new EsError(
    401,
    'security_exception',
    `${why} for the internal API [${method} ${path}]: set the ${CLUSTER_SECRET_HEADER} header to FOLIO_CLUSTER_SECRET`,
  );
}
