/**
 * Routes of `POST /_reindex` (synchronous by default; `wait_for_completion=false` → `{task}`),
 * `GET /_tasks/{id}` and `POST /_tasks/{id}/_cancel`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-reindex.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/tasks.html
 */
import type { Hono } from 'hono';
import { EsError } from '../../../protocol/errors.ts';
import { responseStatus, type BulkByScrollDeps } from '../../write/bulk-by-scroll.ts';
import { BulkByScrollProgress, REINDEX_FIELDS } from '../../write/bulk-by-scroll-status.ts';
import { parseWaitForCompletion } from '../../rest/bulk-by-scroll-params.ts';
import { checkParams, queryParams, readJsonBody, sendJson } from '../http.ts';
import { parseReindexBody, runReindex, taskNotFound } from '../../write/reindex.ts';
import type { Tasks } from '../../write/tasks.ts';

/** `RestReindexAction` parameters. */
const REINDEX_PARAMS = [
  'refresh',
  'timeout',
  'wait_for_active_shards',
  'wait_for_completion',
  'requests_per_second',
  'scroll',
  'slices',
  'max_docs',
  'require_alias',
];

/** Registers `_reindex` and `_tasks` (before the index routes, whose `/:index` would match them). */
export function registerReindexRoutes(app: Hono, deps: BulkByScrollDeps & { tasks: Tasks }, maxBodyBytes: number): void {
  const { tasks } = deps;
  app.post('/_reindex', async (c) => {
    checkParams(c, REINDEX_PARAMS);
    const params = queryParams(c);
    const spec = parseReindexBody(await readJsonBody(c, maxBodyBytes), params);
    const progress = new BulkByScrollProgress(REINDEX_FIELDS);
    if (parseWaitForCompletion(params.get('wait_for_completion'))) {
      const res = await runReindex(spec, deps, progress);
      return sendJson(c, responseStatus({ timedOut: res.timed_out, failures: res.failures as { status: number }[] }), res);
    }
    const task = tasks.start(
      'indices:data/write/reindex',
      `reindex from [${spec.sourceIndex}] to [${spec.destIndex}]`,
      () => progress.status(),
      () => runReindex(spec, deps, progress),
      () => progress.cancel(),
    );
    return sendJson(c, 200, { task });
  });

  app.get('/_tasks/:id', async (c) => {
    checkParams(c, ['wait_for_completion', 'timeout']);
    const id = c.req.param('id');
    let record = tasks.get(id);
    if (!record) throw taskNotFound(id);
    if (c.req.query('wait_for_completion') === 'true') {
      const until = Date.now() + 30_000;
      while (!record!.completed && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
        record = tasks.get(id);
      }
    }
    return sendJson(c, 200, record);
  });

  // POST /_tasks/{id}/_cancel → ES's ListTasksResponse: {nodes: {node: {name, tasks: {id: task}}}}
  app.post('/_tasks/:id/_cancel', (c) => {
    checkParams(c, ['actions', 'nodes', 'parent_task_id', 'wait_for_completion']);
    const id = c.req.param('id');
    const record = tasks.cancel(id);
    if (!record) throw new EsError(404, 'resource_not_found_exception', `task [${id}] is not found`);
    const { node } = record.task;
    return sendJson(c, 200, { nodes: { [node]: { name: node, tasks: { [id]: record.task } } } });
  });
}
