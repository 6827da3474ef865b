/**
 * Where an `fs` repository lives: its `location` setting resolved against `path.repo`, the roots a
 * node lets repositories use (ES `Environment.resolveRepoFile`, checked by `FsRepository`): an
 * absolute location must lie under one of them, a relative one resolves against the first. Folio
 * reads `path.repo` from `FOLIO_PATH_REPO` (a comma-separated list, as ES's setting is a list).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/snapshots-filesystem-repository.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/repositories/fs/FsRepository.java
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { EsError } from '../../protocol/errors.ts';

/** The roots of `FOLIO_PATH_REPO` (comma-separated; empty entries dropped), resolved to absolute paths. */
export function parsePathRepo(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => resolve(p));
}

/** Whether `path` is `root` or inside it. */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

/**
 * The absolute directory of repository `name` whose `location` setting is `location`, by `pathRepo`.
 * @throws EsError 500 `repository_exception` `[name] missing location`, or ES's
 *   `location [x] doesn't match any of the locations specified by path.repo` (with
 *   ` because this setting is empty` when `pathRepo` is empty)
 */
export function resolveRepositoryLocation(name: string, location: unknown, pathRepo: readonly string[]): string {
  if (typeof location !== 'string' || location === '') throw new EsError(500, 'repository_exception', `[${name}] missing location`);
  if (pathRepo.length > 0) {
    const path = isAbsolute(location) ? resolve(location) : resolve(pathRepo[0], location);
    if (pathRepo.some((root) => within(root, path))) return path;
  }
  const why = pathRepo.length > 0 ? '' : ' because this setting is empty';
  throw new EsError(500, 'repository_exception', `[${name}] location [${location}] doesn't match any of the locations specified by path.repo${why}`);
}
