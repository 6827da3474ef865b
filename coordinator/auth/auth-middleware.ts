/**
 * Authentication of the whole public API as one app-wide middleware, registered before every
 * route (so routes added later, `/_console` included, are covered without knowing about it).
 * Only an explicit allow-list stays open, for GET and HEAD only: the orchestrator probes `/livez`
 * and `/readyz`, and `/metrics` when FOLIO_METRICS_PUBLIC=true. Everything else, `GET /` and unknown paths included,
 * answers ES's 401 without valid credentials, as ES authenticates before it routes.
 * Authentication is on when FOLIO_USERS_FILE or FOLIO_API_KEYS_FILE is set; otherwise nothing
 * is checked and the `_security` APIs answer ES's "security disabled" error.
 */
import type { Context, Hono } from 'hono';
import type { ServerResponse } from 'node:http';
import { Counter, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../../shared/metrics.ts';
import type { Logger } from '../../shared/logger.ts';
import type { CoordinatorConfig } from '../config.ts';
import { sendJson } from '../http/http.ts';
import { authFailureBody, WWW_AUTHENTICATE } from './auth-errors.ts';
import { Authenticator, type Principal } from './authenticator.ts';

/** Paths served without credentials even when authentication is on: the orchestrator's probes. */
export const PROBE_PATHS: readonly string[] = ['/livez', '/readyz'];

/** What {@link installAuth} leaves for the rest of the app. */
export interface AuthSetup {
  /** Undefined when authentication is off. */
  authenticator: Authenticator | undefined;
  /** Paths served without credentials. */
  openPaths: ReadonlySet<string>;
  /** Adds `folio_auth_*` counters to the app's registry (call once the registry exists). */
  instrument(registry: Registry): void;
}

const principals = new WeakMap<Request, Principal>();

/** The authenticated principal of this request; undefined when authentication is off or the path is open. */
export function principalOf(c: Context): Principal | undefined {
  return principals.get(c.req.raw);
}

/**
 * Whether a request is served without credentials: only a GET or HEAD of exactly an open path. Any
 * other method on `/livez` (which would route to `PUT /{index}` and create an index `livez`) is
 * authenticated like every other request.
 */
export function isOpenRequest(method: string, path: string, openPaths: ReadonlySet<string>): boolean {
  return (method === 'GET' || method === 'HEAD') && openPaths.has(path);
}

/** The open paths for a config: the probes, plus `/metrics` when FOLIO_METRICS_PUBLIC=true. */
export function openPathsOf(config: Pick<CoordinatorConfig, 'metricsPublic'>): Set<string> {
  return new Set([...PROBE_PATHS, ...(config.metricsPublic ? ['/metrics'] : [])]);
}

/**
 * Builds the authenticator from the config (when a users or API keys file is set) and registers
 * the middleware. Call it before any other middleware or route: a route registered earlier would
 * answer before authentication runs. `authenticator` replaces the one built from the config (tests).
 * @throws Error when a configured file cannot be read or holds an invalid line
 * @example const auth = installAuth(app, { config, log }); // first line of the app's wiring
 */
export function installAuth(app: Hono, deps: { config: CoordinatorConfig; log: Logger; authenticator?: Authenticator }): AuthSetup {
  const { config, log } = deps;
  const openPaths = openPathsOf(config);
  const enabled = deps.authenticator !== undefined || config.usersFile !== undefined || config.apiKeysFile !== undefined;
  const authenticator = !enabled
    ? undefined
    : (deps.authenticator ?? new Authenticator({ usersFile: config.usersFile, apiKeysFile: config.apiKeysFile, cacheTtlMs: config.authCacheTtlMs, log }));
  if (authenticator) {
    const { users, apiKeys } = authenticator.counts();
    if (users + apiKeys === 0) log.warn('authentication is on but no user or API key is defined: every request except the probes answers 401');
    app.use('*', async (c: Context, next) => {
      if (isOpenRequest(c.req.method, c.req.path, openPaths)) return next();
      const url = new URL(c.req.url);
      const outcome = await authenticator.authenticate(c.req.header('authorization'), url.pathname + url.search);
      if (outcome.ok) {
        principals.set(c.req.raw, outcome.principal);
        return next();
      }
      log.debug({ path: c.req.path, failure: outcome.failure.kind }, 'authentication failed');
      const res = c.req.method === 'HEAD' ? c.body(null, 401) : sendJson(c, 401, authFailureBody(outcome.failure));
      res.headers.set('X-Elastic-Product', 'Elasticsearch');
      setChallenges(c, res);
      return res;
    });
  }
  return {
    authenticator,
    openPaths,
    instrument(registry: Registry): void {
      if (authenticator) registerAuthMetrics(registry, authenticator);
    },
  };
}

/**
 * Adds the `WWW-Authenticate` challenges. ES sends one header line per challenge; a Fetch
 * `Response` can only join them with `, ` (which RFC 9110 allows), so under @hono/node-server they
 * go on the Node response directly, where an array gives one line each.
 */
function setChallenges(c: Context, res: Response): void {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && typeof outgoing.setHeader === 'function' && !outgoing.headersSent) {
    outgoing.setHeader('WWW-Authenticate', [...WWW_AUTHENTICATE]);
    return;
  }
  for (const v of WWW_AUTHENTICATE) res.headers.append('WWW-Authenticate', v);
}

/** `folio_auth_failures_total` {kind}, `folio_auth_cache_hits_total`, `folio_auth_verifications_total`. */
function registerAuthMetrics(registry: Registry, authenticator: Authenticator): void {
  const stats = authenticator.stats;
  new Counter({
    name: `${METRIC_PREFIX}auth_failures_total`,
    help: 'Requests refused with 401, by kind: missing, user (unknown user or wrong password), api_key, malformed',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [kind, n] of Object.entries(stats.failures)) this.inc({ kind }, n);
    },
  });
  new Counter({
    name: `${METRIC_PREFIX}auth_cache_hits_total`,
    help: 'Authenticated requests answered from the verification cache (no scrypt)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats.cacheHits);
    },
  });
  new Counter({
    name: `${METRIC_PREFIX}auth_verifications_total`,
    help: 'scrypt verifications of credentials: one per request not answered from the cache (an unknown user or API key id is verified against a dummy hash), shared by concurrent identical requests',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stats.verifications);
    },
  });
}
