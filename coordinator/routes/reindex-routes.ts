/**
 * Routes of `POST /_reindex` (synchronous by default; `wait_for_completion=false` → `{task}`) and
 * `GET /_tasks/{id}`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-reindex.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/tasks.html
 */
import type { Hono } from 'hono';
import { parseBooleanParam } from '../../shared/params.ts';
import type { WriteDeps } from '../documents.ts';
import { checkParams, queryParams, readJsonBody, sendJson } from '../http.ts';
import { emptyStatus, parseReindexBody, runReindex, taskNotFound } from '../reindex.ts';
import type { SearchDeps } from '../search/search.ts';
import { Tasks } from '../tasks.ts';

/** `RestReindexAction` parameters. */
const REINDEX_PARAMS = [
  'refresh', 'timeout', 'wait_for_active_shards', 'wait_for_completion', 'requests_per_second', 'scroll', 'slices', 'max_docs', 'require_alias',
];

/** Registers `_reindex` and `_tasks` (before the index routes, whose `/:index` would match them). */
export function registerReindexRoutes(app: Hono, deps: { search: SearchDeps; write: WriteDeps; nodeName: string }, maxBodyBytes: number): void {
  const tasks = new Tasks(deps.nodeName);
  app.post('/_reindex', async (c) => {
    checkParams(c, REINDEX_PARAMS);
    const params = queryParams(c);
    const spec = parseReindexBody(await readJsonBody(c, maxBodyBytes), params);
    const wait = params.has('wait_for_completion') ? parseBooleanParam(params.get('wait_for_completion') as string) : true;
    if (wait) return sendJson(c, 200, await runReindex(spec, deps));
    const status = emptyStatus();
    const task = tasks.start('indices:data/write/reindex', `reindex from [${spec.sourceIndex}] to [${spec.destIndex}]`, () => ({ ...status }), () => runReindex(spec, deps, status));
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
}
