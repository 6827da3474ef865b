/**
 * The shard node's search actions (protocol/rpc.ts): the search rounds of
 * shard-node/search-actions.ts (dfs, query, select/sample, select/range, aggs, fetch); `batch`,
 * which answers several calls of the batchable actions in one reply (protocol/wire-batch.ts), each
 * frame exactly what its single call would have answered; and the explicit search contexts of a
 * PIT or a scroll (open pins the shard's current generation, advance records a scroll batch's
 * position, close frees them).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/SearchTransportService.java
 */
import { EsError, toEsError } from '../protocol/errors.ts';
import { rpc } from '../protocol/rpc.ts';
import { BATCH_CONTENT_TYPE, encodeBatch, type BatchFrame, type BatchRequest } from '../protocol/wire-batch.ts';
import type { Logger } from '../shared/logger.ts';
import type { ActionModule, ShardNodeServices } from './action-module.ts';
import { encodeReply, serve, type RpcApp } from './rpc-serve.ts';
import { createSearchActions } from './search-actions.ts';
import { queryReplyCache } from './query-reply-cache.ts';
import type { QueryPhaseResponse } from '../protocol/search.ts';

/** Most calls one batch may carry (a coordinator sends at most one per search in flight). */
export const MAX_BATCH_CALLS = 1024;

const utf8 = new TextEncoder();

/** See the module comment. */
export const searchActions: ActionModule = {
  name: 'search',
  bind(app, services) {
    const actions = createSearchActions(services);
    serve(app, rpc.dfs, actions.dfs);
    // A query round that asks for the shard request cache (query-reply-cache.ts) may answer a
    // CachedReply in place of its reply: rpc-serve.ts encodeReply writes its kept bytes.
    const cached = queryReplyCache({ ...services, cache: services.requestCache, query: actions.query });
    serve(app, rpc.query, (req) => (cached.applies(req) ? (cached.answer(req) as Promise<QueryPhaseResponse>) : actions.query(req)));
    serve(app, rpc.selectSample, actions.selectSample);
    serve(app, rpc.selectRange, actions.selectRange);
    serve(app, rpc.aggs, actions.aggs);
    serve(app, rpc.fetch, actions.fetch);
    serve(app, rpc.batch, async (req, c) => c.body(encodeBatch(await answerBatch(app, req, services.log)), 200, { 'content-type': BATCH_CONTENT_TYPE }));
    bindContexts(app, services);
  },
};

/**
 * The frames of a batch: one call after the other, each answered as its single call would be (a
 * call that builds a presorted order yields to the event loop while it does).
 * @throws EsError 400 when the batch holds no call list or more than {@link MAX_BATCH_CALLS}
 */
export async function answerBatch(app: RpcApp, req: BatchRequest, log: Logger): Promise<BatchFrame[]> {
  if (!Array.isArray(req?.calls) || req.calls.length > MAX_BATCH_CALLS) {
    throw new EsError(400, 'illegal_argument_exception', `a batch holds 0 to ${MAX_BATCH_CALLS} calls`);
  }
  const frames: BatchFrame[] = [];
  for (const call of req.calls) {
    try {
      const bound = typeof call?.path === 'string' ? app.batchable.get(call.path) : undefined;
      if (!bound) {
        frames.push(errorFrame(400, 'illegal_argument_exception', `[${String(call?.path)}] is not a batchable endpoint`));
        continue;
      }
      frames.push({ status: 200, ...encodeReply(await bound.handler(call.body), bound.rpc.entries, call.hits === true) });
    } catch (err) {
      const es = toEsError(err);
      if (es.status >= 500) log.error({ err, path: call?.path }, 'batched call failed');
      frames.push({ status: es.status, hits: false, body: utf8.encode(JSON.stringify(es.toBody())) });
    }
  }
  return frames;
}

function errorFrame(status: number, type: string, reason: string): BatchFrame {
  return { status, hits: false, body: utf8.encode(JSON.stringify(new EsError(status, type, reason).toBody())) };
}

/** The explicit search contexts (PIT, scroll): open pins the shard's current generation. */
function bindContexts(app: RpcApp, { registry, contexts, node }: ShardNodeServices): void {
  serve(app, rpc.openContext, (req) => {
    registry.checkOpen(req.index);
    const gen = registry.shard(req.index, req.shard).acquire();
    const id = contexts.open(req.kind, req.index, req.shard, gen, req.keepAliveMs);
    return { node, index: req.index, shard: req.shard, context: id, generation: gen.id };
  });
  // A scroll batch's coordinator records the scroll's new position on each context it read.
  serve(app, rpc.advanceScroll, (req) => {
    let advanced = 0;
    for (const t of req.contexts) if (contexts.advance(t.index, t.shard, t.id, t.seq, req.after)) advanced++;
    return { node, advanced };
  });
  // OpenSearch's PIT listing: the coordinator names the PIT of contexts it opened; any coordinator lists them.
  serve(app, rpc.labelPit, (req) => ({
    node,
    labelled: contexts.labelPit(req.ids, { pitId: req.pitId, creationTime: req.creationTime, keepAliveMs: req.keepAliveMs }),
  }));
  serve(app, rpc.listPits, () => ({ node, pits: contexts.listPits() }));
  serve(app, rpc.closeContexts, (req) => {
    const freed = (req.ids ? contexts.close(req.ids) : 0) + (req.allOfKind ? contexts.closeAll(req.allOfKind) : 0);
    return { node, freed };
  });
}
