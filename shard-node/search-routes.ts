/**
 * The shard node's search endpoints over HTTP: one route per search action
 * (shard-node/search-actions.ts: dfs, query, select/sample, select/range, fetch), and
 * `POST /_internal/v1/batch`, which answers several calls of those actions in one reply
 * (protocol/wire-batch.ts), each frame exactly what its single call would have answered.
 */
import type { Context, Hono } from 'hono';
import { EsError, toEsError } from '../protocol/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { INTERNAL_PREFIX } from '../protocol/echo.ts';
import { BATCH_CONTENT_TYPE, encodeBatch, type BatchFrame, type BatchRequest } from '../protocol/wire-batch.ts';
import { acceptsHits, encodeHits, HITS_CONTENT_TYPE } from '../protocol/wire.ts';
import { WireEncodeError } from '../protocol/wire-strings.ts';
import { isSearchAction, type ActionReply, type SearchActions } from './search-actions.ts';

/** Parses a request's JSON body (the app's bounded reader). */
export type JsonReader = <T>(c: Context) => Promise<T>;

/** Most calls one batch may carry (a coordinator sends at most one per search in flight). */
export const MAX_BATCH_CALLS = 1024;

const utf8 = new TextEncoder();

/** A reply as the bytes the single call answers: binary hits when accepted and encodable, else JSON. */
function encodeReply(reply: ActionReply, acceptHits: boolean): { hits: boolean; body: Uint8Array } {
  if (acceptHits && reply.field) {
    try {
      return { hits: true, body: encodeHits(reply.res, reply.field) };
    } catch (err) {
      if (!(err instanceof WireEncodeError)) throw err;
    }
  }
  return { hits: false, body: utf8.encode(JSON.stringify(reply.res)) };
}

/** Registers the search routes and the batch route. */
export function registerSearchRoutes(app: Hono, actions: SearchActions, readJson: JsonReader, log: Logger): void {
  const p = INTERNAL_PREFIX;
  for (const name of Object.keys(actions) as (keyof SearchActions)[]) {
    const action = actions[name] as (req: unknown) => ActionReply | Promise<ActionReply>;
    app.post(`${p}/${name}`, async (c) => {
      const { hits, body } = encodeReply(await action(await readJson<unknown>(c)), acceptsHits(c.req.header('accept')));
      return c.body(body as Uint8Array<ArrayBuffer>, 200, { 'content-type': hits ? HITS_CONTENT_TYPE : 'application/json' });
    });
  }

  app.post(`${p}/batch`, async (c) => {
    const req = await readJson<BatchRequest>(c);
    if (!Array.isArray(req?.calls) || req.calls.length > MAX_BATCH_CALLS) {
      throw new EsError(400, 'illegal_argument_exception', `a batch holds 0 to ${MAX_BATCH_CALLS} calls`);
    }
    // One call after the other, each answered as its single call would be (a call that builds a
    // presorted order yields to the event loop while it does).
    const frames: BatchFrame[] = [];
    for (const call of req.calls) {
      try {
        if (typeof call?.path !== 'string' || !isSearchAction(call.path)) {
          frames.push(errorFrame(400, 'illegal_argument_exception', `[${String(call?.path)}] is not a batchable endpoint`));
          continue;
        }
        const action = actions[call.path] as (req: unknown) => ActionReply | Promise<ActionReply>;
        frames.push({ status: 200, ...encodeReply(await action(call.body), call.hits === true) });
      } catch (err) {
        const es = toEsError(err);
        if (es.status >= 500) log.error({ err, path: call?.path }, 'batched call failed');
        frames.push({ status: es.status, hits: false, body: utf8.encode(JSON.stringify(es.toBody())) });
      }
    }
    return c.body(encodeBatch(frames), 200, { 'content-type': BATCH_CONTENT_TYPE });
  });
}

function errorFrame(status: number, type: string, reason: string): BatchFrame {
  return { status, hits: false, body: utf8.encode(JSON.stringify(new EsError(status, type, reason).toBody())) };
}
