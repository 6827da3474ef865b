/**
 * Authenticates one `Authorization` header against the users file (HTTP Basic, ES's file realm)
 * and the API keys file (`ApiKey`, ES's API key service), with ES's outcomes:
 * - no usable credentials → `missing`;
 * - Basic with an unknown user or a wrong password → `user` (the same answer and, through a dummy
 *   scrypt run, the same time: no user enumeration);
 * - ApiKey: unknown id → `unable to find apikey with id X`; invalidated → `api key [X] has been
 *   invalidated`; wrong secret → `invalid credentials for API key [X]`; past its expiration →
 *   `api key is expired` (checked in ES's order; every one after one scrypt run, a dummy one for
 *   an unknown or invalidated id, so that timing does not tell which ids exist);
 * - a malformed header → ES's message for it.
 * Successful verifications are cached (auth-cache.ts) until the TTL or the key's expiration, and
 * concurrent first requests with the same header share one verification. Both files are polled
 * every 5 s (ES's `resource.reload.interval.high`); a change reloads them and empties the cache, so
 * a removed user or key stops working within one poll.
 * @see https://github.com/elastic/elasticsearch/blob/main/x-pack/plugin/security/src/main/java/org/elasticsearch/xpack/security/authc/ApiKeyService.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/current/file-realm.html
 */
import { readFileSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Logger } from '../../shared/logger.ts';
import { AuthCache } from './auth-cache.ts';
import type { AuthFailure } from './auth-errors.ts';
import { appendApiKeyRecord, newApiKey, parseApiKeysFile, type ApiKeyEntry, type CreatedApiKey } from './api-keys-file.ts';
import { parseAuthorization } from './credentials.ts';
import { dummyHash, verifySecret, type ScryptHash } from './password-hash.ts';
import { parseUsersFile, readTextIfExists, type Parsed } from './users-file.ts';

/** Who a request is: a file-realm user, or the owner of an API key (with the key's id and name). */
export interface Principal {
  username: string;
  realm: 'file' | 'api_key';
  apiKey?: { id: string; name: string };
}

/** The result of {@link Authenticator.authenticate}: the principal, or why the request is refused. */
export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; failure: AuthFailure };

/** Counters for `folio_auth_*` metrics. */
export interface AuthStats {
  /** Requests answered from the cache (no scrypt). */
  cacheHits: number;
  /** scrypt verifications run (a request joining a concurrent identical one runs none). */
  verifications: number;
  /** Rejected requests, by failure kind. */
  failures: Record<AuthFailure['kind'], number>;
}

/** Files, cache and polling settings. */
export interface AuthenticatorOptions {
  usersFile?: string;
  apiKeysFile?: string;
  /** How long a successful verification is reused; 0 turns the cache off. */
  cacheTtlMs: number;
  cacheMaxEntries?: number;
  /** File poll interval (default 5000); 0 = never reload. */
  reloadIntervalMs?: number;
  log?: Logger;
  /** Clock, for tests. */
  now?: () => number;
  /** The scrypt check (default {@link verifySecret}); tests count its calls. */
  verify?: (secret: string, hash: ScryptHash) => Promise<boolean>;
}

/** Poll interval of both files, as ES's `resource.reload.interval.high` (5 s). */
export const RELOAD_INTERVAL_MS = 5_000;

/** Reads and parses a file at start. @throws Error listing every bad line, or the read error */
function loadStrict<T>(path: string, what: string, parse: (text: string) => Parsed<T>): Map<string, T> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${what} [${path}] cannot be read: ${(err as Error).message}`, { cause: err });
  }
  const parsed = parse(text);
  if (parsed.errors.length > 0) throw new Error(`${what} [${path}] is invalid:\n  ${parsed.errors.join('\n  ')}`);
  return parsed.entries;
}

/** See the module comment. Build one per process; {@link Authenticator.close} stops the polling. */
export class Authenticator {
  private users = new Map<string, ScryptHash>();
  private apiKeys = new Map<string, ApiKeyEntry>();
  private readonly cache: AuthCache<Principal>;
  private readonly inflight = new Map<string, Promise<AuthOutcome>>();
  /** Bumped by every reload, so a verification that started before it does not refill the cache. */
  private generation = 0;
  private readonly opts: AuthenticatorOptions;
  private readonly now: () => number;
  private readonly watched: [string, (curr: Stats, prev: Stats) => void][] = [];
  readonly stats: AuthStats = { cacheHits: 0, verifications: 0, failures: { missing: 0, user: 0, api_key: 0, malformed: 0 } };

  /** Reads both files (synchronously, at start) and starts polling them. @throws Error on an unreadable or invalid file */
  constructor(opts: AuthenticatorOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.cache = new AuthCache(opts.cacheMaxEntries);
    if (opts.usersFile) this.users = loadStrict(opts.usersFile, 'FOLIO_USERS_FILE', parseUsersFile);
    if (opts.apiKeysFile) this.apiKeys = loadStrict(opts.apiKeysFile, 'FOLIO_API_KEYS_FILE', parseApiKeysFile);
    void dummyHash(); // computed now, so that the first unknown user or key id does not pay for it (timing)
    const interval = opts.reloadIntervalMs ?? RELOAD_INTERVAL_MS;
    if (interval > 0) {
      for (const path of [opts.usersFile, opts.apiKeysFile]) {
        if (!path) continue;
        const listener = (curr: Stats, prev: Stats): void => {
          if (curr.mtimeMs !== prev.mtimeMs || curr.size !== prev.size || curr.ino !== prev.ino) void this.reload();
        };
        watchFile(path, { interval, persistent: false }, listener);
        this.watched.push([path, listener]);
      }
    }
  }

  /** Numbers of users and API keys currently loaded. */
  counts(): { users: number; apiKeys: number } {
    return { users: this.users.size, apiKeys: this.apiKeys.size };
  }

  /** Whether API keys can be created (`FOLIO_API_KEYS_FILE` is set). */
  get apiKeysEnabled(): boolean {
    return this.opts.apiKeysFile !== undefined;
  }

  /**
   * Re-reads both files: valid lines replace the loaded sets (each bad line is logged and
   * skipped, as ES's file realm does), a missing file counts as empty, and the cache is emptied.
   */
  async reload(): Promise<void> {
    const read = async <T>(path: string | undefined, what: string, parse: (t: string) => Parsed<T>): Promise<Map<string, T> | undefined> => {
      if (!path) return undefined;
      const parsed = parse(await readTextIfExists(path));
      for (const e of parsed.errors) this.opts.log?.error({ file: path }, `${what}: ${e}; line skipped`);
      return parsed.entries;
    };
    try {
      const [users, keys] = await Promise.all([
        read(this.opts.usersFile, 'FOLIO_USERS_FILE', parseUsersFile),
        read(this.opts.apiKeysFile, 'FOLIO_API_KEYS_FILE', parseApiKeysFile),
      ]);
      if (users) this.users = users;
      if (keys) this.apiKeys = keys;
      this.generation++;
      this.cache.clear();
      this.opts.log?.info(this.counts(), 'credentials reloaded');
    } catch (err) {
      this.opts.log?.error({ err }, 'credentials reload failed; the previous users and API keys stay in effect');
    }
  }

  /**
   * Authenticates one header value. `uri` (path and query) goes into ES's failure messages.
   * Never throws for bad input; the outcome says why a request is refused.
   */
  async authenticate(header: string | undefined, uri: string): Promise<AuthOutcome> {
    const outcome = await this.check(header, uri);
    if (!outcome.ok) this.stats.failures[outcome.failure.kind]++;
    return outcome;
  }

  private async check(header: string | undefined, uri: string): Promise<AuthOutcome> {
    const creds = parseAuthorization(header);
    if (creds.kind === 'none') return { ok: false, failure: { kind: 'missing', uri } };
    if (creds.kind === 'malformed') return { ok: false, failure: { kind: 'malformed', reason: creds.reason, cause: creds.cause } };
    const ttl = this.opts.cacheTtlMs;
    const key = ttl > 0 ? this.cache.keyOf(header!) : '';
    if (ttl > 0) {
      const hit = this.cache.get(key, this.now());
      if (hit) {
        this.stats.cacheHits++;
        return { ok: true, principal: hit };
      }
      const pending = this.inflight.get(key);
      if (pending) return withUri(await pending, uri);
    }
    const generation = this.generation;
    const run = creds.kind === 'basic' ? this.verifyUser(creds.username, creds.password, uri) : this.verifyApiKey(creds.id, creds.key);
    if (ttl === 0) return run;
    this.inflight.set(key, run);
    try {
      const outcome = await run;
      if (outcome.ok && generation === this.generation) {
        const keyExpiry = outcome.principal.apiKey ? this.apiKeys.get(outcome.principal.apiKey.id)?.expiration : undefined;
        this.cache.set(key, outcome.principal, Math.min(this.now() + ttl, keyExpiry ?? Infinity));
      }
      return withUri(outcome, uri);
    } finally {
      this.inflight.delete(key);
    }
  }

  /** One scrypt verification, counted. */
  private scrypt(secret: string, hash: ScryptHash): Promise<boolean> {
    this.stats.verifications++;
    return (this.opts.verify ?? verifySecret)(secret, hash);
  }

  private async verifyUser(username: string, password: string, uri: string): Promise<AuthOutcome> {
    const hash = this.users.get(username);
    const matches = await this.scrypt(password, hash ?? (await dummyHash()));
    if (hash && matches) return { ok: true, principal: { username, realm: 'file' } };
    return { ok: false, failure: { kind: 'user', username, uri } };
  }

  private async verifyApiKey(id: string, secret: string): Promise<AuthOutcome> {
    const fail = (detail: string): AuthOutcome => ({ ok: false, failure: { kind: 'api_key', detail } });
    const entry = this.apiKeys.get(id);
    // An unknown or invalidated id costs the same scrypt run as a wrong secret (against a dummy
    // hash): its answer comes no sooner, so timing does not tell which ids exist.
    const usable = entry !== undefined && !entry.invalidated;
    const matches = await this.scrypt(secret, usable ? entry.hash : await dummyHash());
    if (!entry) return fail(`unable to find apikey with id ${id}`);
    if (entry.invalidated) return fail(`api key [${id}] has been invalidated`);
    if (!matches) return fail(`invalid credentials for API key [${id}]`);
    if (entry.expiration !== undefined && entry.expiration <= this.now()) return fail('api key is expired');
    return { ok: true, principal: { username: entry.username, realm: 'api_key', apiKey: { id, name: entry.name } } };
  }

  /**
   * Creates an API key owned by `username` (ES's create API key): appends it to the API keys file
   * and loads it at once, so it works on this coordinator immediately and on others sharing the
   * file after their next poll. @throws Error when no API keys file is configured or the write fails
   */
  async createApiKey(name: string, username: string, expiration?: number): Promise<CreatedApiKey> {
    const path = this.opts.apiKeysFile;
    if (!path) throw new Error('FOLIO_API_KEYS_FILE is not set');
    const { record, created } = await newApiKey(name, username, { expiration, now: this.now() });
    await appendApiKeyRecord(path, record);
    const parsed = parseApiKeysFile(JSON.stringify(record));
    this.apiKeys.set(record.id, parsed.entries.get(record.id)!);
    return created;
  }

  /** Stops polling the files. */
  close(): void {
    for (const [path, listener] of this.watched) unwatchFile(path, listener);
    this.watched.length = 0;
  }
}

/** A shared verification's outcome with this request's own `uri` in a user failure. */
function withUri(outcome: AuthOutcome, uri: string): AuthOutcome {
  if (outcome.ok || outcome.failure.kind !== 'user') return outcome;
  return { ok: false, failure: { ...outcome.failure, uri } };
}
