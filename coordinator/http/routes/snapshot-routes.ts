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
import { EsError, illegalArgument } from '../../../protocol/errors.ts';
import { rpc } from '../../../protocol/rpc.ts';
import type { Logger } from '../../../shared/logger.ts';
import { INDICES_OPTIONS, indicesOptionsFrom, type IndicesOptions } from '../../cluster/indices-options.ts';
import { parseBooleanParam } from '../../rest/params.ts';
import { parseRepositoryBody, validateRepositoryName, type Repositories } from '../../snapshots/repositories.ts';
import { catSnapshotsTable, snapshotJson, snapshotStatusJson } from '../../snapshots/snapshot-responses.ts';
import type { CreateSnapshotBody, RestoreBody, SnapshotService } from '../../snapshots/snapshot-service.ts';
import type { ShardClient } from '../../transport/shard-client.ts';
import { renderCatTable } from '../cat-table.ts';
import { checkParams, readJsonBody, sendJson } from '../http.ts';
import type { SnapshotInfo } from '../../../shared/snapshots/repository-layout.ts';

/** What the snapshot routes need. */
export interface SnapshotRouteDeps {
  repositories: Repositories;
  snapshots: SnapshotService;
  client: ShardClient;
  timeoutMs: number;
  log: Logger;
}

/** ES `CreateSnapshotRequest`'s default indices options (`strictExpandHidden`): open, closed and hidden indices; a missing name fails. */
const SNAPSHOT_INDICES: IndicesOptions = { ...INDICES_OPTIONS.getAliases, allowNoIndices: true };

const CAT_PARAMS = ['format', 'h', 's', 'v', 'help', 'bytes', 'time', 'master_timeout', 'ignore_unavailable', 'local'];

/** A boolean query parameter (ES `paramAsBoolean`), `dflt` when absent. */
function boolParam(c: Context, name: string, dflt: boolean): boolean {
  const v = c.req.query(name);
  return v === undefined ? dflt : parseBooleanParam(v);
}

/** A JSON object body, or `{}` when empty. @throws EsError 400 for a body that is not an object */
async function objectBody(c: Context, maxBody: number): Promise<Record<string, unknown>> {
  const body = await readJsonBody(c, maxBody);
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw illegalArgument('request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** A boolean body field (`true`/`false` or their strings). @throws EsError 400 for anything else */
function boolField(body: Record<string, unknown>, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw illegalArgument(`malformed ${name}, expected boolean but got [${JSON.stringify(v)}]`);
}

/** An indices field: a string, or a list of strings. @throws EsError 400 otherwise */
function indicesField(body: Record<string, unknown>): string | string[] | undefined {
  const v = body.indices;
  if (v === undefined || typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  throw illegalArgument('malformed indices section, should be an array of strings');
}

/** The `PUT /_snapshot/{repo}/{snap}` body (ES `CreateSnapshotRequest.source`). */
function parseCreateBody(body: Record<string, unknown>): { body: CreateSnapshotBody; options: IndicesOptions } {
  const out: CreateSnapshotBody = {};
  const indices = indicesField(body);
  if (indices !== undefined) out.indices = indices;
  for (const k of ['ignore_unavailable', 'allow_no_indices', 'include_global_state', 'partial'] as const) {
    const v = boolField(body, k);
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  if (body.metadata !== undefined) {
    if (body.metadata === null || typeof body.metadata !== 'object' || Array.isArray(body.metadata)) throw illegalArgument('malformed metadata, should be an object');
    out.metadata = body.metadata as Record<string, unknown>;
  }
  const params = new URLSearchParams();
  if (out.ignore_unavailable !== undefined) params.set('ignore_unavailable', String(out.ignore_unavailable));
  if (out.allow_no_indices !== undefined) params.set('allow_no_indices', String(out.allow_no_indices));
  if (body.expand_wildcards !== undefined) params.set('expand_wildcards', Array.isArray(body.expand_wildcards) ? body.expand_wildcards.join(',') : String(body.expand_wildcards));
  return { body: out, options: indicesOptionsFrom(params, SNAPSHOT_INDICES) };
}

const RESTORE_FIELDS = new Set([
  'indices',
  'ignore_unavailable',
  'allow_no_indices',
  'expand_wildcards',
  'include_global_state',
  'include_aliases',
  'partial',
  'rename_pattern',
  'rename_replacement',
  'index_settings',
  'ignore_index_settings',
  'feature_states',
]);

/** The `_restore` body (ES `RestoreSnapshotRequest.source`). @throws EsError 400 `Unknown parameter x` for an unknown field */
function parseRestoreBody(body: Record<string, unknown>): RestoreBody {
  for (const k of Object.keys(body)) if (!RESTORE_FIELDS.has(k)) throw illegalArgument(`Unknown parameter ${k}`);
  const out: RestoreBody = {};
  const indices = indicesField(body);
  if (indices !== undefined) out.indices = indices;
  for (const k of ['ignore_unavailable', 'allow_no_indices', 'include_global_state', 'include_aliases', 'partial'] as const) {
    const v = boolField(body, k);
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  for (const k of ['rename_pattern', 'rename_replacement'] as const) {
    const v = body[k];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw illegalArgument(`malformed ${k}`);
    out[k] = v;
  }
  if (body.index_settings !== undefined) {
    if (body.index_settings === null || typeof body.index_settings !== 'object' || Array.isArray(body.index_settings)) throw illegalArgument('malformed index_settings section');
    out.index_settings = body.index_settings as Record<string, unknown>;
  }
  const ignored = body.ignore_index_settings;
  if (ignored !== undefined) {
    if (typeof ignored === 'string' || (Array.isArray(ignored) && ignored.every((x) => typeof x === 'string'))) out.ignore_index_settings = ignored;
    else throw illegalArgument('malformed ignore_index_settings section, should be an array of strings');
  }
  return out;
}

/**
 * Runs a long operation: with `wait`, its result; without, `{"accepted": true}` once `start` has
 * called its `onAccepted` (checks passed), the rest running on (a later failure is logged).
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
      else reject(err as Error);
    });
  });
}

/** Registers the snapshot routes (before the index routes, whose `/:index/...` would match `/_snapshot/...`). */
export function registerSnapshotRoutes(app: Hono, deps: SnapshotRouteDeps, maxBody: number): void {
  const { repositories, snapshots, log } = deps;

  // Repositories.
  const putRepository = async (c: Context) => {
    checkParams(c, ['master_timeout', 'timeout', 'verify']);
    const name = c.req.param('repo')!;
    validateRepositoryName(name);
    const repo = parseRepositoryBody(name, await readJsonBody(c, maxBody));
    await repositories.put(name, repo, boolParam(c, 'verify', true));
    return sendJson(c, 200, { acknowledged: true });
  };
  app.put('/_snapshot/:repo', putRepository);
  app.post('/_snapshot/:repo', putRepository);
  const getRepositories = async (c: Context) => {
    checkParams(c, ['master_timeout', 'local']);
    const found = await repositories.resolve(c.req.param('repo'));
    return sendJson(c, 200, Object.fromEntries(found));
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
    await repositories.verifyDirectory(name, location);
    const nodes: Record<string, { name: string }> = {};
    await Promise.all(
      deps.client.nodes.map(async (_, n) => {
        const h = await deps.client.rpc(n, rpc.health, undefined, { timeoutMs: deps.timeoutMs }).catch(() => null);
        if (h) nodes[h.node] = { name: h.node };
      }),
    );
    return sendJson(c, 200, { nodes });
  });
  app.post('/_snapshot/:repo/_cleanup', async (c) => {
    checkParams(c, ['master_timeout', 'timeout']);
    await snapshots.repository(c.req.param('repo'));
    return sendJson(c, 200, { results: { deleted_bytes: 0, deleted_blobs: 0 } });
  });

  // Snapshot status: `_status` of the running ones, or of named ones.
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

  // Snapshots.
  const createSnapshot = async (c: Context) => {
    checkParams(c, ['master_timeout', 'wait_for_completion']);
    const repo = c.req.param('repo')!;
    const snap = c.req.param('snap')!;
    const { body, options } = parseCreateBody(await objectBody(c, maxBody));
    const wait = boolParam(c, 'wait_for_completion', false);
    const info = await runOrAccept(wait, log, 'snapshot', (accepted) => snapshots.create(repo, snap, body, options, accepted));
    return sendJson(c, 200, info ? { snapshot: snapshotJson(repo, info) } : { accepted: true });
  };
  app.put('/_snapshot/:repo/:snap', createSnapshot);
  app.post('/_snapshot/:repo/:snap', createSnapshot);
  app.get('/_snapshot/:repo/:snap', async (c) => {
    checkParams(c, ['master_timeout', 'ignore_unavailable', 'verbose', 'index_details', 'include_repository', 'sort', 'size', 'order', 'offset', 'after', 'from_sort_value', 'slm_policy_filter', 'index_names']);
    const verbose = boolParam(c, 'verbose', true);
    const ignore = boolParam(c, 'ignore_unavailable', false);
    const out: unknown[] = [];
    for (const repo of (await repositories.resolve(c.req.param('repo'))).keys()) {
      for (const info of await snapshots.list(repo, c.req.param('snap'), ignore)) out.push(snapshotJson(repo, info, verbose));
    }
    return sendJson(c, 200, { snapshots: out, total: out.length, remaining: 0 });
  });
  app.delete('/_snapshot/:repo/:snap', async (c) => {
    checkParams(c, ['master_timeout', 'wait_for_completion']);
    await snapshots.delete(c.req.param('repo'), c.req.param('snap'));
    return sendJson(c, 200, { acknowledged: true });
  });
  app.post('/_snapshot/:repo/:snap/_restore', async (c) => {
    checkParams(c, ['master_timeout', 'wait_for_completion']);
    const body = parseRestoreBody(await objectBody(c, maxBody));
    const wait = boolParam(c, 'wait_for_completion', false);
    const info = await runOrAccept(wait, log, 'restore', (accepted) => snapshots.restore(c.req.param('repo'), c.req.param('snap'), body, accepted));
    return sendJson(c, 200, info ? { snapshot: info } : { accepted: true });
  });

  // `_cat/snapshots`.
  const catSnapshots = async (c: Context) => {
    checkParams(c, CAT_PARAMS);
    const expression = c.req.param('repo') ?? c.req.query('repository') ?? '_all';
    const rows: { repository: string; info: SnapshotInfo }[] = [];
    for (const repository of (await repositories.resolve(expression)).keys()) {
      for (const info of await snapshots.list(repository, '_all', true)) if ('state' in info) rows.push({ repository, info });
    }
    const table = catSnapshotsTable(rows);
    const q = (k: string) => c.req.query(k);
    const out = renderCatTable(table, { format: q('format'), h: q('h'), s: q('s'), v: q('v'), help: q('help'), bytes: q('bytes'), accept: c.req.header('accept') });
    if (out.kind === 'json') return sendJson(c, 200, out.rows);
    return c.body(out.text, 200, { 'content-type': 'text/plain; charset=UTF-8' });
  };
  app.get('/_cat/snapshots', catSnapshots);
  app.get('/_cat/snapshots/:repo', catSnapshots);
}
