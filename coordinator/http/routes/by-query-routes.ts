/**
 * Routes of `POST /{index}/_delete_by_query` and `POST /{index}/_update_by_query`: synchronous by
 * default (ES's `BulkByScrollResponse`, its status the highest of its failures'), or with
 * `wait_for_completion=false` a task (`{"task": "node:n"}`) to follow with `GET /_tasks/{id}` and
 * to cancel with `POST /_tasks/{id}/_cancel`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-delete-by-query.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-update-by-query.html
 */
import type { Context, Hono } from 'hono';
import { responseBody, responseStatus, runBulkByScroll, type BulkByScrollDeps } from '../../write/bulk-by-scroll.ts';
import { BulkByScrollProgress } from '../../write/bulk-by-scroll-status.ts';
import { parseWaitForCompletion } from '../../rest/bulk-by-scroll-params.ts';
import { BY_QUERY_ACTIONS, BY_QUERY_FIELDS, BY_QUERY_PARAMS, deleteHit, parseByQueryRequest, updateHit, type ByQueryKind } from '../../write/by-query.ts';
import { checkParams, queryParams, readJsonBody, sendJson } from '../http.ts';
import type { Tasks } from '../../write/tasks.ts';

/** Registers the by-query routes (before the index routes, whose `/:index/:x` would match them). */
export function registerByQueryRoutes(app: Hono, deps: BulkByScrollDeps & { tasks: Tasks }, maxBodyBytes: number): void {
  const handler = (kind: ByQueryKind) => async (c: Context) => {
    checkParams(c, BY_QUERY_PARAMS[kind]);
    const params = queryParams(c);
    const index = c.req.param('index') as string;
    const spec = parseByQueryRequest(kind, index, params, await readJsonBody(c, maxBodyBytes), c.req.path);
    const wait = parseWaitForCompletion(params.get('wait_for_completion'));
    const progress = new BulkByScrollProgress(BY_QUERY_FIELDS[kind]);
    const toItem = kind === 'delete' ? deleteHit : updateHit;
    if (wait) {
      const result = await runBulkByScroll(spec.run, deps, toItem, progress);
      return sendJson(c, responseStatus(result), responseBody(result, progress));
    }
    const run = async () => responseBody(await runBulkByScroll(spec.run, deps, toItem, progress), progress);
    const description = `${kind}-by-query [${index}]`;
    const task = deps.tasks.start(
      BY_QUERY_ACTIONS[kind],
      description,
      () => progress.status(),
      run,
      () => progress.cancel(),
    );
    return sendJson(c, 200, { task });
  };
  app.post('/:index/_delete_by_query', handler('delete'));
  app.post('/:index/_update_by_query', handler('update'));
}
