/**
 * The snapshot and restore REST API (ES `RestPutRepositoryAction`, `RestGetRepositoriesAction`,
 * `RestDeleteRepositoryAction`, `RestVerifyRepositoryAction`, `RestCreateSnapshotAction`,
 * `RestGetSnapshotsAction`, `RestSnapshotsStatusAction`, `RestDeleteSnapshotAction`,
 * `RestRestoreSnapshotAction`, `RestSnapshotAction` for `_cat/snapshots`). Handlers translate
 * requests to {@link Repositories} and {@link SnapshotService}; the shapes are snapshot-responses.ts.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/snapshot-restore-apis.html
 * @see docs/snapshots.md
 */
import type { Context, Hono } from 'hono';
import { EsError } from '../../../protocol/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { SnapshotInfo } from '../../../shared/snapshots/repository-layout.ts';
import type { NewIndexSpec } from '../../cluster/new-index.ts';
import { parseBooleanParam } from '../../rest/params.ts';
import { parseRepositoryBody, Repositories, validateRepositoryName } from '../../snapshots/repositories.ts';
import { verifyRepository } from '../../snapshots/repository-verify.ts';
import { objectBody, parseCreateBody, parseRestoreBody } from '../../snapshots/snapshot-requests.ts';
import { listingOptions, listSnapshots, type ListedSnapshot } from '../../snapshots/snapshot-listing.ts';
import { catSnapshotsTable, snapshotJson, snapshotStatusJson } from '../../snapshots/snapshot-responses.ts';
import { SnapshotRestore } from '../../snapshots/snapshot-restore.ts';
import { SnapshotService } from '../../snapshots/snapshot-service.ts';
import { createIndex, type WriteDeps } from '../../write/documents.ts';
import { sendCat } from './cat-routes.ts';
import { checkParams, readJsonBody, sendJson } from '../http.ts';

/** What the snapshot routes need: the write path's (a restore creates indices as `PUT /{index}` does), `path.repo` and a logger. */
export interface SnapshotRouteDeps extends Pick<WriteDeps, 'view' | 'client' | 'timeoutMs' | 'maxShardsPerNode'> {
  /** FOLIO_PATH_REPO's roots (ES `path.repo`). */
  pathRepo: readonly string[];
  log: Logger;
}

/** The services the handlers call. */
interface Services {
  repositories: Repositories;
  snapshots: SnapshotService;
  restores: SnapshotRestore;
  deps: SnapshotRouteDeps;
  maxBody: number;
}

const CAT_PARAMS = ['format', 'h', 's', 'v', 'help', 'bytes', 'time', 'master_timeout', 'ignore_unavailable', 'local'];
const GET_SNAPSHOT_PARAMS = [
  'master_timeout',
  'ignore_unavailable',
  'verbose',
  'index_details',
  'include_repository',
  'sort',
  'size',
  'order',
  'offset',
  'after',
  'from_sort_value',
  'slm_policy_filter',
  'index_names',
];

/** A boolean query parameter (ES `paramAsBoolean`), `dflt` when absent. */
function boolParam(c: Context, name: string, dflt: boolean): boolean {
  const v = c.req.query(name);
  return v === undefined ? dflt : parseBooleanParam(v);
}

/**
 * Runs a long operation: with `wait`, its result; without, null once `start` has called its
 * `onAccepted` (checks passed), the rest running on (a later failure is logged).
 */
async function runOrAccept<T>(wait: boolean, log: Logger, what: string, start: (onAccepted: () => void) => Promise<T>): Promise<T | null> {
  if (wait) return start(() => {});
  return new Promise<T | null>((resolve, reject) => {
    let accepted = false;
    start(() => {
      accepted = true;
      resolve(null);
    }).catch((err: unknown) => {
      if (accepted) log.error({ err }, `${what} failed after it was accepted`);
      else reject(err instanceof Error ? err : new Error(String(err)));
    });
  });
}

/** Registers the snapshot routes (before the index routes, whose `/:index/...` would match `/_snapshot/...`). */
export function registerSnapshotRoutes(app: Hono, deps: SnapshotRouteDeps, maxBody: number): void {
  const repositories = new Repositories(() => deps.view.stateStore, deps.pathRepo);
  const createIndexLikePut = (name: string, spec: NewIndexSpec) => createIndex(deps, name, spec);
  const snapshotDeps = { view: deps.view, client: deps.client, repositories, createIndex: createIndexLikePut, log: deps.log };
  const snapshots = new SnapshotService(snapshotDeps);
  const services: Services = { repositories, snapshots, restores: new SnapshotRestore(snapshotDeps, snapshots), deps, maxBody };
  registerRepositoryRoutes(app, services);
  registerStatusRoutes(app, services);
  registerSnapshotLifecycleRoutes(app, services);
  registerCatSnapshotsRoutes(app, services);
}

/** `PUT|POST|GET|DELETE /_snapshot/{repo}`, `GET /_snapshot`, `POST /_snapshot/{repo}/_verify` and `_cleanup`. */
function registerRepositoryRoutes(app: Hono, { repositories, snapshots, deps, maxBody }: Services): void {
  const putRepository = async (c: Context) => {
    checkParams(c, ['master_timeout', 'timeout', 'verify']);
    const name = c.req.param('repo')!;
    validateRepositoryName(name);
    const repo = parseRepositoryBody(name, await readJsonBody(c, maxBody));
    const dir = await repositories.put(name, repo);
    // As in ES, a repository that fails its verification stays registered; the request answers the failure.
    if (boolParam(c, 'verify', true)) await verifyRepository(name, dir, deps.client, deps.timeoutMs);
    return sendJson(c, 200, { acknowledged: true });
  };
  app.put('/_snapshot/:repo', putRepository);
  app.post('/_snapshot/:repo', putRepository);
  const getRepositories = async (c: Context) => {
    checkParams(c, ['master_timeout', 'local']);
    return sendJson(c, 200, Object.fromEntries(await repositories.resolve(c.req.param('repo'))));
  };
  app.get('/_snapshot', getRepositories);
  app.get('/_snapshot/:repo', getRepositories);
  app.delete('/_snapshot/:repo', async (c) => {
    checkParams(c, ['master_timeout', 'timeout']);
    await repositories.delete(c.req.param('repo'));
    return sendJson(c, 200, { acknowledged: true });
  });
  app.post('/_snapshot/:repo/_verify', async (c) => {
    checkParams(c, ['master_timeout', 'timeout']);
    const name = c.req.param('repo');
    const { location } = await snapshots.repository(name);
    return sendJson(c, 200, { nodes: await verifyRepository(name, location, deps.client, deps.timeoutMs) });
  });
  // Nothing to clean: a snapshot delete removes every blob no snapshot references, and a failed snapshot's leftovers with it.
  app.post('/_snapshot/:repo/_cleanup', async (c) => {
    checkParams(c, ['master_timeout', 'timeout']);
    await snapshots.repository(c.req.param('repo'));
    return sendJson(c, 200, { results: { deleted_bytes: 0, deleted_blobs: 0 } });
  });
}

/** `GET /_snapshot/{repo}/_status` (the running snapshots: none once a request returns) and `GET /_snapshot/{repo}/{snap}/_status`. */
function registerStatusRoutes(app: Hono, { snapshots }: Services): void {
  app.get('/_snapshot/:repo/_status', async (c) => {
    checkParams(c, ['master_timeout', 'ignore_unavailable']);
    await snapshots.repository(c.req.param('repo'));
    return sendJson(c, 200, { snapshots: [] });
  });
  app.get('/_snapshot/:repo/:snap/_status', async (c) => {
    checkParams(c, ['master_timeout', 'ignore_unavailable']);
    const repo = c.req.param('repo');
    const { location } = await snapshots.repository(repo);
    const ignore = boolParam(c, 'ignore_unavailable', false);
    const out: unknown[] = [];
    for (const snap of c.req.param('snap').split(',')) {
      let info: SnapshotInfo;
      try {
        info = await snapshots.info(repo, location, snap);
      } catch (err) {
        if (ignore && err instanceof EsError && err.status === 404) continue;
        throw err;
      }
      out.push(snapshotStatusJson(repo, info, await snapshots.shardSnapshots(location, info)));
    }
    return sendJson(c, 200, { snapshots: out });
  });
}

/** Create, get and delete snapshots, and restore one. */
function registerSnapshotLifecycleRoutes(app: Hono, { repositories, snapshots, restores, deps, maxBody }: Services): void {
  const createSnapshot = async (c: Context) => {
    checkParams(c, ['master_timeout', 'wait_for_completion']);
    const repo = c.req.param('repo')!;
    const snap = c.req.param('snap')!;
    const { body, options } = parseCreateBody(objectBody(await readJsonBody(c, maxBody)));
    const wait = boolParam(c, 'wait_for_completion', false);
    const info = await runOrAccept(wait, deps.log, 'snapshot', (accepted) => snapshots.create(repo, snap, body, options, accepted));
    return sendJson(c, 200, info ? { snapshot: snapshotJson(repo, info) } : { accepted: true });
  };
  app.put('/_snapshot/:repo/:snap', createSnapshot);
  app.post('/_snapshot/:repo/:snap', createSnapshot);
  app.get('/_snapshot/:repo/:snap', async (c) => {
    checkParams(c, GET_SNAPSHOT_PARAMS);
    const verbose = boolParam(c, 'verbose', true);
    const ignore = boolParam(c, 'ignore_unavailable', false);
    const options = listingOptions((k) => c.req.query(k));
    const all: ListedSnapshot[] = [];
    for (const repository of (await repositories.resolve(c.req.param('repo'))).keys()) {
      for (const info of await snapshots.list(repository, c.req.param('snap'), ignore)) all.push({ repository, info });
    }
    const { page, total, remaining } = listSnapshots(all, options);
    return sendJson(c, 200, { snapshots: page.map((s) => snapshotJson(s.repository, s.info, verbose)), total, remaining });
  });
  app.delete('/_snapshot/:repo/:snap', async (c) => {
    checkParams(c, ['master_timeout', 'wait_for_completion']);
    await snapshots.delete(c.req.param('repo'), c.req.param('snap'));
    return sendJson(c, 200, { acknowledged: true });
  });
  app.post('/_snapshot/:repo/:snap/_restore', async (c) => {
    checkParams(c, ['master_timeout', 'wait_for_completion']);
    const body = parseRestoreBody(objectBody(await readJsonBody(c, maxBody)));
    const wait = boolParam(c, 'wait_for_completion', false);
    const info = await runOrAccept(wait, deps.log, 'restore', (accepted) => restores.restore(c.req.param('repo'), c.req.param('snap'), body, accepted));
    return sendJson(c, 200, info ? { snapshot: info } : { accepted: true });
  });
}

/** `GET /_cat/snapshots[/{repo}]`: the finished snapshots of the repositories named (all by default). */
function registerCatSnapshotsRoutes(app: Hono, { repositories, snapshots }: Services): void {
  const catSnapshots = async (c: Context) => {
    checkParams(c, CAT_PARAMS);
    const rows: { repository: string; info: SnapshotInfo }[] = [];
    for (const repository of (await repositories.resolve(c.req.param('repo') ?? '_all')).keys()) {
      for (const info of await snapshots.list(repository, '_all', true)) if ('state' in info) rows.push({ repository, info });
    }
    return sendCat(c, catSnapshotsTable(rows));
  };
  app.get('/_cat/snapshots', catSnapshots);
  app.get('/_cat/snapshots/:repo', catSnapshots);
}
