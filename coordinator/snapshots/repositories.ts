/**
 * Snapshot repositories, kept in the cluster state (key `folio/repositories/<name>`,
 * shared/cluster-state/keys.ts), as ES keeps `RepositoriesMetadata` in the cluster state's
 * metadata: registered by `PUT /_snapshot/{repo}`, read by every coordinator. Only the `fs` type
 * exists (a shared filesystem): its `location` must lie under `path.repo` (FOLIO_PATH_REPO), and a
 * new repository is verified by writing and removing a test file there (ES's `verify=true`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/put-snapshot-repo-api.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/repositories/RepositoriesService.java
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { noMasterBlock } from '../../shared/cluster-state/no-master-block.ts';
import { REPOSITORIES_PREFIX } from '../../shared/cluster-state/keys.ts';
import { ensureDirectory } from '../../shared/snapshots/repository-files.ts';
import { DEFAULT_MAX_SNAPSHOT_BYTES_PER_SEC, parseBytesPerSec } from '../../shared/snapshots/rate-limiter.ts';
import { resolveRepositoryLocation } from '../../shared/snapshots/repository-location.ts';
import { isStateStoreError } from '../../shared/state-store/errors.ts';
import type { StateStore } from '../../shared/state-store/types.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';

/** A registered repository as ES prints it (`GET /_snapshot/{repo}`): settings values are strings. */
export interface RepositoryMetadata {
  type: string;
  settings: Record<string, string>;
}

/** ES `RepositoryMissingException`: 404 `[name] missing`. */
export function repositoryMissing(name: string): EsError {
  return new EsError(404, 'repository_missing_exception', `[${name}] missing`);
}

/** A settings scalar as ES keeps it: its text. */
function scalarText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** Flattens a settings object to ES's flat string values (`{"a":{"b":1}}` → `{"a.b":"1"}`). */
function flatSettings(value: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (value === null || value === undefined) return out;
  if (typeof value !== 'object' || Array.isArray(value)) {
    out[prefix] = Array.isArray(value) ? value.map((v) => scalarText(v)).join(',') : scalarText(value);
    return out;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) flatSettings(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/**
 * The repository of a `PUT /_snapshot/{name}` body, checked as ES's `PutRepositoryRequest.validate`
 * and `RepositoriesService` check it.
 * @throws EsError 400 `action_request_validation_exception` without `type`; 500 `repository_exception` for an unknown type
 */
export function parseRepositoryBody(name: string, body: unknown): RepositoryMetadata {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new EsError(400, 'action_request_validation_exception', 'Validation Failed: 1: type is missing;');
  }
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) {
    if (k !== 'type' && k !== 'settings') throw illegalArgument(`Unsupported field [${k}]`);
  }
  if (typeof b.type !== 'string' || b.type === '') throw new EsError(400, 'action_request_validation_exception', 'Validation Failed: 1: type is missing;');
  if (b.type !== 'fs') throw new EsError(500, 'repository_exception', `[${name}] repository type [${b.type}] does not exist`);
  if (b.settings !== undefined && (typeof b.settings !== 'object' || b.settings === null || Array.isArray(b.settings)))
    throw illegalArgument('malformed settings section, should include an inner object');
  return { type: b.type, settings: flatSettings(b.settings ?? {}) };
}

/**
 * ES's repository name checks (`RepositoriesService.validateRepositoryName`; the characters are
 * `Strings.INVALID_FILENAME_CHARS` as its `HashSet` prints them).
 * @throws EsError 500 `repository_exception` `[name] <why>`
 */
export function validateRepositoryName(name: string): void {
  const bad = (why: string) => new EsError(500, 'repository_exception', `[${name}] ${why}`);
  if (name === '') throw bad('cannot be empty');
  if (name.includes('#')) throw bad("must not contain '#'");
  if (/[\\/*?"<>| ,]/.test(name)) throw bad('must not contain the following characters [ , ", *, ,, /, <, >, ?, \\, |]');
}

/** The registered repositories in the cluster state; see the module comment. */
export class Repositories {
  private readonly store: () => StateStore;
  private readonly pathRepo: readonly string[];

  /** `pathRepo`: FOLIO_PATH_REPO's roots (ES `path.repo`). */
  constructor(store: () => StateStore, pathRepo: readonly string[]) {
    this.store = store;
    this.pathRepo = pathRepo;
  }

  /**
   * The repository's copy rates in bytes per second (0: unlimited): `max_snapshot_bytes_per_sec`
   * (ES's default 40mb) and `max_restore_bytes_per_sec` (unlimited).
   * @throws EsError 400 `parse_exception` for a value that is not a byte size
   */
  rates(repo: RepositoryMetadata): { snapshot: number; restore: number } {
    return {
      snapshot: parseBytesPerSec('max_snapshot_bytes_per_sec', repo.settings.max_snapshot_bytes_per_sec, DEFAULT_MAX_SNAPSHOT_BYTES_PER_SEC),
      restore: parseBytesPerSec('max_restore_bytes_per_sec', repo.settings.max_restore_bytes_per_sec, 0),
    };
  }

  /** The absolute directory of a repository. @throws EsError 500 `repository_exception` when its location is outside `path.repo` */
  location(name: string, repo: RepositoryMetadata): string {
    return resolveRepositoryLocation(name, repo.settings.location, this.pathRepo);
  }

  /**
   * Registers (or replaces) repository `name` after checking its location resolves under
   * `path.repo`, and creates its directory; verification on the nodes is repository-verify.ts.
   * @returns the repository's directory
   * @throws EsError 500 `repository_exception` `[name] failed to create repository` caused by the location check
   *   or by a directory that cannot be created; 503 when the store cannot be reached
   */
  async put(name: string, repo: RepositoryMetadata): Promise<string> {
    let dir: string;
    try {
      dir = this.location(name, repo);
      this.rates(repo);
    } catch (err) {
      const cause = (err as EsError).toCause();
      throw new EsError(500, 'repository_exception', `[${name}] failed to create repository`, { causedBy: cause, rootCauses: [cause] });
    }
    try {
      await ensureDirectory(dir);
    } catch (err) {
      const cause = { type: 'i_o_exception', reason: (err as Error).message };
      throw new EsError(500, 'repository_exception', `[${name}] failed to create repository`, { causedBy: cause, rootCauses: [cause] });
    }
    await this.guard(() => this.store().txn({ compare: [], ops: [{ op: 'put', key: REPOSITORIES_PREFIX + name, value: JSON.stringify(repo) }] }));
    return dir;
  }

  /** Repository `name`. @throws EsError 404 `repository_missing_exception` */
  async get(name: string): Promise<RepositoryMetadata> {
    const kv = await this.guard(() => this.store().get(REPOSITORIES_PREFIX + name));
    if (!kv) throw repositoryMissing(name);
    return JSON.parse(kv.value) as RepositoryMetadata;
  }

  /** Every repository by name, sorted. */
  async all(): Promise<Map<string, RepositoryMetadata>> {
    const r = await this.guard(() => this.store().range(REPOSITORIES_PREFIX));
    const out = new Map<string, RepositoryMetadata>();
    for (const kv of r.kvs) out.set(kv.key.slice(REPOSITORIES_PREFIX.length), JSON.parse(kv.value) as RepositoryMetadata);
    return out;
  }

  /**
   * The repositories an ES repository expression names (`_all`, `*`, comma lists, wildcards; ES
   * `GetRepositoriesRequest`): a concrete name that is not registered is an error.
   * @throws EsError 404 `repository_missing_exception`
   */
  async resolve(expression: string | undefined): Promise<Map<string, RepositoryMetadata>> {
    const all = await this.all();
    const parts = (expression ?? '_all').split(',').filter((p) => p !== '');
    if (parts.length === 0 || parts.includes('_all') || parts.includes('*')) return all;
    const out = new Map<string, RepositoryMetadata>();
    for (const part of parts) {
      if (part.includes('*')) {
        for (const [n, r] of all) if (wildcardMatch(part, n)) out.set(n, r);
      } else {
        const r = all.get(part);
        if (!r) throw repositoryMissing(part);
        out.set(part, r);
      }
    }
    return out;
  }

  /** Unregisters the repositories `expression` names (the files stay, as in ES). @throws EsError 404 when none matches */
  async delete(expression: string): Promise<void> {
    const names = [...(await this.resolve(expression)).keys()];
    if (names.length === 0) throw repositoryMissing(expression);
    await this.guard(() => this.store().txn({ compare: [], ops: names.map((n) => ({ op: 'delete' as const, key: REPOSITORIES_PREFIX + n })) }));
  }

  private async guard<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (isStateStoreError(err)) throw noMasterBlock(err.message);
      throw err;
    }
  }
}
