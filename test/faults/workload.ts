/**
 * The fault suite's clients: writers that index, overwrite, update and delete documents (single-doc
 * APIs and `_bulk`) through both coordinators and read them back, and searchers that check every
 * complete search answer. Everything lands in a {@link History}. All choices come from a PRNG
 * seeded from the schedule's seed, so a replay sends the same kinds of ops in the same order
 * (timing, and so the outcomes, still differ between runs).
 */
import { request } from 'undici';
import { defaultRoutingNumShards, shardForRouting } from '../../coordinator/cluster/routing.ts';
import { canonical, History, type Source } from './history.ts';
import { createPrng, type Prng } from './prng.ts';

/** How long a client waits for an answer before it counts the op as unknown (ms). */
const CLIENT_TIMEOUT_MS = 15_000;

/** A reply, or how the request failed before one came. */
type Outcome = { status: number; body: any } | { error: string; sent: boolean };

/** Sends one request. `sent: false` only when the connection was refused (nothing reached the server). */
export async function call(base: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Outcome> {
  try {
    const res = await request(base + path, {
      method: method as 'GET',
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      headers: body === undefined ? {} : { 'content-type': contentType },
      headersTimeout: CLIENT_TIMEOUT_MS,
      bodyTimeout: CLIENT_TIMEOUT_MS,
    });
    const text = await res.body.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: res.statusCode, body: parsed };
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    return { error: `${code} ${(err as Error).message}`, sent: !(code === 'ECONNREFUSED' || code === 'UND_ERR_CONNECT_TIMEOUT') };
  }
}

/** The stable index the searchers check: written before the faults, never changed. */
export const STABLE_INDEX = 'faults-stable';
/** Documents in it: `s0` … `s{n-1}` with `n` = their number. */
export const STABLE_DOCS = 300;

/** Creates {@link STABLE_INDEX} (3 shards, 1 replica) with its documents, refreshed. */
export async function createStableIndex(coordinatorUrl: string): Promise<void> {
  const created = await call(coordinatorUrl, 'PUT', `/${STABLE_INDEX}`, {
    settings: { number_of_shards: 3, number_of_replicas: 1 },
    mappings: { properties: { n: { type: 'integer' } } },
  });
  if (!('status' in created) || created.status !== 200) throw new Error(`creating ${STABLE_INDEX}: ${JSON.stringify(created)}`);
  const lines = Array.from({ length: STABLE_DOCS }, (_, i) => [
    JSON.stringify({ index: { _index: STABLE_INDEX, _id: `s${i}` } }),
    JSON.stringify({ n: i }),
  ]).flat();
  const bulk = await call(coordinatorUrl, 'POST', '/_bulk?refresh=true', lines.join('\n') + '\n', 'application/x-ndjson');
  if (!('status' in bulk) || bulk.body.errors !== false) throw new Error(`loading ${STABLE_INDEX}: ${JSON.stringify(bulk).slice(0, 500)}`);
}

/** What the clients write to and through. */
export interface WorkloadTarget {
  index: string;
  numberOfShards: number;
  coordinatorUrls: string[];
  /** Ms since the schedule started (for the history). */
  now(): number;
}

/** Running clients; {@link Workload.stop} ends them after their current op. */
export interface Workload {
  history: History;
  stop(): Promise<void>;
}

/** One writer: owns the `_id`s `c<k>-*`, one op at a time. */
async function writer(k: number, rng: Prng, t: WorkloadTarget, h: History, stopped: () => boolean): Promise<void> {
  const routingNumShards = defaultRoutingNumShards(t.numberOfShards);
  const shardOf = (id: string) => shardForRouting(id, t.numberOfShards, routingNumShards);
  const mine: string[] = [];
  let next = 0;
  let round = 0;
  const home = k % t.coordinatorUrls.length;

  /** Applies one write's outcome to the model; true when it was acknowledged. */
  const settle = (
    id: string,
    op: 'index' | 'update' | 'delete',
    source: Source | null,
    coordinator: number,
    sentMs: number,
    o: Outcome,
    item?: any,
  ): boolean => {
    const r = item ?? ('status' in o ? o.body : undefined);
    const status = item ? item.status : 'status' in o ? o.status : 0;
    if (status >= 200 && status < 300 && r && typeof r._version === 'number') {
      h.acknowledged(
        { id, shard: shardOf(id), op, version: r._version, seqNo: r._seq_no, term: r._primary_term, coordinator, sentMs, ackedMs: t.now() },
        source,
      );
      return true;
    }
    if ('error' in o && !o.sent) h.refused++;
    else h.unknown(id, source);
    return false;
  };

  while (!stopped()) {
    round++;
    const coordinator = rng.chance(0.75) ? home : rng.int(0, t.coordinatorUrls.length - 1);
    const url = t.coordinatorUrls[coordinator];
    const live = mine.filter((id) => h.settled(id) && h.ids.get(id)!.source !== null);
    const deleted = mine.filter((id) => h.settled(id) && h.ids.get(id)!.source === null && h.ids.get(id)!.version > 0);
    const r = rng.next();
    const sentMs = t.now();
    let failed = false;
    if (r < 0.3 || live.length < 4) {
      // A new document (or, now and then, one whose delete was acknowledged, again).
      const id = deleted.length > 0 && rng.chance(0.15) ? rng.pick(deleted) : `c${k}-${next++}`;
      if (!mine.includes(id)) mine.push(id);
      const source = { owner: k, n: round, v: 0, tag: `t${round % 5}` };
      h.sending(id, shardOf(id), source);
      const o = await call(url, 'PUT', `/${t.index}/_doc/${id}`, source);
      failed = !settle(id, 'index', source, coordinator, sentMs, o);
    } else if (r < 0.45) {
      const id = rng.pick(live);
      const source = { owner: k, n: -round, v: round, tag: 'rewritten' };
      h.sending(id, shardOf(id), source);
      const o = await call(url, 'PUT', `/${t.index}/_doc/${id}`, source);
      failed = !settle(id, 'index', source, coordinator, sentMs, o);
    } else if (r < 0.6) {
      const id = rng.pick(live);
      const source = { ...h.ids.get(id)!.source!, v: round };
      h.sending(id, shardOf(id), source);
      const o = await call(url, 'POST', `/${t.index}/_update/${id}`, { doc: { v: round } });
      failed = !settle(id, 'update', source, coordinator, sentMs, o);
    } else if (r < 0.72) {
      const id = rng.pick(live);
      h.sending(id, shardOf(id), null);
      const o = await call(url, 'DELETE', `/${t.index}/_doc/${id}`);
      failed = !settle(id, 'delete', null, coordinator, sentMs, o);
    } else if (r < 0.86) {
      // A bulk: 3 new documents, an update and a delete of documents this writer holds.
      const items: { id: string; op: 'index' | 'update' | 'delete'; source: Source | null; lines: string[] }[] = [];
      for (let i = 0; i < 3; i++) {
        const id = `c${k}-${next++}`;
        mine.push(id);
        const source = { owner: k, n: round * 10 + i, v: 0, tag: 'bulk' };
        items.push({ id, op: 'index', source, lines: [JSON.stringify({ index: { _index: t.index, _id: id } }), JSON.stringify(source)] });
      }
      const [u, d] = [rng.pick(live), rng.pick(live)];
      items.push({
        id: u,
        op: 'update',
        source: { ...h.ids.get(u)!.source!, v: round },
        lines: [JSON.stringify({ update: { _index: t.index, _id: u } }), JSON.stringify({ doc: { v: round } })],
      });
      if (d !== u) items.push({ id: d, op: 'delete', source: null, lines: [JSON.stringify({ delete: { _index: t.index, _id: d } })] });
      for (const it of items) h.sending(it.id, shardOf(it.id), it.source);
      const o = await call(url, 'POST', '/_bulk', items.flatMap((it) => it.lines).join('\n') + '\n', 'application/x-ndjson');
      items.forEach((it, i) => {
        const item = 'status' in o && o.status === 200 && Array.isArray(o.body?.items) ? Object.values(o.body.items[i] as object)[0] : undefined;
        if (!settle(it.id, it.op, it.source, coordinator, sentMs, o, item)) failed = true;
      });
    } else {
      // Read back one of this writer's settled documents: an acknowledged write must be visible.
      const settled = mine.filter((id) => h.settled(id) && h.ids.get(id)!.version > 0);
      if (settled.length === 0) continue;
      const id = rng.pick(settled);
      h.reads++;
      const o = await call(url, 'GET', `/${t.index}/_doc/${id}`);
      if ('status' in o && (o.status === 200 || (o.status === 404 && o.body?.found === false))) {
        const problem = h.problemOf(id, { found: o.body.found, _version: o.body._version, _seq_no: o.body._seq_no, _source: o.body._source });
        if (problem) h.staleReads.push(`+${t.now()}ms via c${coordinator}: ${problem}`);
      }
    }
    if (failed) await new Promise((res) => setTimeout(res, 50 + rng.int(0, 50)));
  }
}

/** One searcher: a complete answer must be exactly right; an incomplete one must say so in `_shards.failures`. */
async function searcher(k: number, t: WorkloadTarget, h: History, stopped: () => boolean): Promise<void> {
  const expectedTop = Array.from({ length: 20 }, (_, i) => `s${STABLE_DOCS - 1 - i}`);
  let round = 0;
  while (!stopped()) {
    round++;
    const coordinator = (k + round) % t.coordinatorUrls.length;
    const url = t.coordinatorUrls[coordinator];
    const stable = round % 2 === 0;
    const o = stable
      ? await call(url, 'POST', `/${STABLE_INDEX}/_search`, { size: 20, sort: [{ n: 'desc' }], track_total_hits: true })
      : await call(url, 'POST', `/${t.index}/_search`, { size: 50, query: { term: { owner: round % 4 } } });
    h.searches.total++;
    if (!('status' in o) || o.status !== 200) {
      h.searches.errors++;
      await new Promise((res) => setTimeout(res, 50));
      continue;
    }
    const shards = o.body?._shards;
    const where = `+${t.now()}ms via c${coordinator} on ${stable ? STABLE_INDEX : t.index}`;
    if (!shards || shards.successful + shards.failed + (shards.skipped ?? 0) !== shards.total) {
      h.searches.wrong.push(`${where}: _shards does not add up: ${JSON.stringify(shards)}`);
      continue;
    }
    if (shards.failed > 0) {
      h.searches.partial++;
      if (!Array.isArray(shards.failures) || shards.failures.length === 0)
        h.searches.wrong.push(`${where}: ${shards.failed} shards failed without _shards.failures`);
      continue;
    }
    h.searches.complete++;
    const hits: { _id: string; _source: Source }[] = o.body.hits.hits;
    if (stable) {
      const ids = hits.map((x) => x._id);
      if (o.body.hits.total.value !== STABLE_DOCS || canonical(ids) !== canonical(expectedTop)) {
        h.searches.wrong.push(
          `${where}: complete answer (no _shards.failures) with total ${o.body.hits.total.value} of ${STABLE_DOCS} and top ${ids.slice(0, 5).join(',')}…`,
        );
      }
    } else {
      for (const hit of hits) {
        const known = h.ids.get(hit._id);
        if (!known || !known.everSent.has(canonical(hit._source)))
          h.searches.wrong.push(`${where}: hit ${hit._id} with a _source never written: ${JSON.stringify(hit._source)}`);
      }
    }
  }
}

/** Starts `writers` writers and `searchers` searchers (each spread over the coordinators) on a fresh history. */
export function startWorkload(t: WorkloadTarget, seed: number, writers = 4, searchers = 2): Workload {
  const history = new History();
  let stopped = false;
  const isStopped = () => stopped;
  const clients = [
    ...Array.from({ length: writers }, (_, k) => writer(k, createPrng((seed * 7919 + k + 1) >>> 0), t, history, isStopped)),
    ...Array.from({ length: searchers }, (_, k) => searcher(k, t, history, isStopped)),
  ];
  return {
    history,
    async stop() {
      stopped = true;
      await Promise.all(clients);
    },
  };
}
