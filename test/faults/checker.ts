/**
 * The fault suite's checker, run once the cluster has healed and is green: it reads the index's
 * metadata from the cluster-state store (etcd) and every copy of every shard directly on its shard
 * node (internal API, not through a coordinator), and compares them with the {@link History}.
 * Checks (docs/reliability.md, "The fault suite"):
 * - lost: every acknowledged write is on every in-sync copy with its `_version`, `_seq_no` and
 *   `_source`, and every acknowledged delete stays deleted (or an unknown later write applied wholly);
 * - divergent: all copies of a shard hold the same `_seq_no` → document state (per `_id`, the same
 *   found/`_version`/`_seq_no`/`_source`), the same max `_seq_no` and the same document count;
 * - two primaries in one term: no two different acknowledged writes carry the same
 *   (shard, `_primary_term`, `_seq_no`) — only two primaries of one term could assign one seq_no
 *   twice (the write responses name no node, so this is how the (shard, term, node) rule is seen);
 *   and per `_id`, acknowledged versions and seq_nos grow and terms never go back.
 * - checkpoints: every in-sync copy's local checkpoint equals its max `_seq_no` (reported apart:
 *   issue 10 scenario 3, restarts forget the local checkpoint).
 */
import { request } from 'undici';
import { CLUSTER_SECRET_HEADER } from '../../shared/cluster-secret.ts';
import { indexKey } from '../../shared/cluster-state/keys.ts';
import type { IndexMetadata, NodeIndicesResponse, NodeStats } from '../../protocol/metadata.ts';
import type { RecoveryStateResponse } from '../../protocol/recovery.ts';
import { EtcdStore } from '../../shared/state-store/etcd-store.ts';
import { canonical, type History, type SeenDoc } from './history.ts';

/** Where the checker reads. */
export interface CheckTarget {
  index: string;
  /** Shard node URLs by ordinal (direct, no proxy). */
  nodeUrls: string[];
  etcdEndpoints: string[];
  secret: string;
}

/** What the checker found. Every count must be 0 but `checkpointsBehind` (issue 10 scenario 3). */
export interface CheckResult {
  idsChecked: number;
  copiesChecked: number;
  /** (`_id`, copy) pairs where an acknowledged write or delete is missing or wrong. */
  lost: number;
  /** Copies whose state differs from their shard's primary. */
  divergentCopies: number;
  /** Pairs of different acknowledged writes with one (shard, term, seq_no). */
  dualPrimaries: number;
  /** `_id`s whose acknowledged versions, seq_nos or terms went back. */
  orderViolations: number;
  /** Copies not in sync in the stored metadata after green. */
  notInSync: number;
  /** In-sync copies whose local checkpoint is below their max seq_no. */
  checkpointsBehind: number;
  /** Up to 10 examples per finding. */
  examples: string[];
  /** Shards with a lost write, a divergent copy or two primaries. */
  problemShards: number[];
}

/** POSTs to a shard node's internal API. */
async function internal<T>(nodeUrl: string, path: string, body: unknown, secret: string): Promise<T> {
  const res = await request(`${nodeUrl}/_internal/v1/${path}`, {
    method: 'POST',
    headers: { [CLUSTER_SECRET_HEADER]: secret, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const json = (await res.body.json()) as T;
  if (res.statusCode !== 200) throw new Error(`${nodeUrl} ${path}: ${res.statusCode} ${JSON.stringify(json)}`);
  return json;
}

/** The index's metadata as the cluster-state store holds it. */
export async function storedMetadata(etcdEndpoints: string[], index: string): Promise<IndexMetadata> {
  const store = new EtcdStore({ endpoints: etcdEndpoints });
  try {
    const kv = await store.get(indexKey(index));
    if (!kv) throw new Error(`no ${indexKey(index)} in the cluster-state store`);
    return JSON.parse(kv.value) as IndexMetadata;
  } finally {
    await store.close();
  }
}

/**
 * What keeps the copies of `index` from being settled, as lines: copies whose primary reports a
 * forwarded write failed on them that the cluster state does not have out of sync yet
 * (`pendingFailures` of `GET /_internal/v1/indices`), copies their own node reports failed (a
 * translog commit failed, or lost files: `failed`), and primaries with writes still in progress
 * (`activeWrites`: a write whose client gave up can still be forwarded, and fail on a replica, after
 * the clients stopped; ES's test clusters wait for no active operations before they compare copies,
 * `InternalTestCluster.assertNoPendingIndexOperations`). A node that does not answer counts as one line too.
 */
export async function unsettledCopies(nodeUrls: readonly string[], secret: string, index: string): Promise<string[]> {
  const out: string[] = [];
  for (const url of nodeUrls) {
    try {
      const res = await request(`${url}/_internal/v1/indices`, { headers: { [CLUSTER_SECRET_HEADER]: secret }, headersTimeout: 5_000, bodyTimeout: 5_000 });
      const body = (await res.body.json()) as NodeIndicesResponse;
      for (const e of body.indices ?? []) {
        if (e.metadata.name !== index) continue;
        for (const p of e.pendingFailures ?? []) out.push(`[${index}][${p.shard}] on node ${p.node} (a write failed on it: reported by its primary ${url})`);
        for (const s of e.failed ?? []) out.push(`[${index}][${s}] on ${url} (reported failed by its node)`);
        for (const a of e.activeWrites ?? []) out.push(`[${index}][${a.shard}] on ${url}: ${a.writes} writes in progress on the primary`);
      }
    } catch (err) {
      out.push(`${url} did not answer: ${(err as Error).message}`);
    }
  }
  return out;
}

/** Runs every check. Throws only when a copy cannot be read at all. */
export async function checkHistory(t: CheckTarget, h: History): Promise<CheckResult> {
  const meta = await storedMetadata(t.etcdEndpoints, t.index);
  const result: CheckResult = {
    idsChecked: h.ids.size,
    copiesChecked: 0,
    lost: 0,
    divergentCopies: 0,
    dualPrimaries: 0,
    orderViolations: 0,
    notInSync: 0,
    checkpointsBehind: 0,
    examples: [],
    problemShards: [],
  };
  const example = (kind: string, text: string) => {
    if (result.examples.filter((e) => e.startsWith(kind)).length < 10) result.examples.push(`${kind}: ${text}`);
  };
  const copies = meta.shardCopies ?? [];
  for (const [s, list] of copies.entries()) {
    for (const c of list)
      if (!c.inSync) {
        result.notInSync++;
        example('not in sync', `[${t.index}][${s}] copy on shard-${c.node} (${JSON.stringify(c)})`);
      }
  }

  // Per copy: every _id of its shard, read on the copy itself.
  const byShard = new Map<number, string[]>();
  for (const [id, st] of h.ids) byShard.set(st.shard, [...(byShard.get(st.shard) ?? []), id]);
  const stats = new Map<number, NodeStats>();
  for (const [node, url] of t.nodeUrls.entries()) {
    const res = await request(`${url}/_internal/v1/stats`, { headers: { [CLUSTER_SECRET_HEADER]: t.secret } });
    stats.set(node, (await res.body.json()) as NodeStats);
  }
  for (const [s, list] of copies.entries()) {
    const ids = byShard.get(s) ?? [];
    const fingerprints: { node: number; primary: boolean; docs: Map<string, string>; maxSeqNo: number; checkpoint: number; count: number }[] = [];
    for (const c of list) {
      result.copiesChecked++;
      const url = t.nodeUrls[c.node];
      const docs = new Map<string, string>();
      for (let i = 0; i < ids.length; i += 32) {
        const batch = ids.slice(i, i + 32);
        const seen = await Promise.all(
          batch.map(async (id) => {
            const got = await internal<Omit<SeenDoc, '_source'> & { _source?: string }>(url, 'get', { index: t.index, shard: s, _id: id }, t.secret);
            return { ...got, _source: got._source === undefined ? undefined : (JSON.parse(got._source) as Record<string, unknown>) };
          }),
        );
        batch.forEach((id, j) => {
          const d = seen[j];
          docs.set(id, d.found ? `${d._version}/${d._seq_no}/${canonical(d._source)}` : 'absent');
          if (!c.inSync) return;
          const problem = h.problemOf(id, d);
          if (problem) {
            result.lost++;
            result.problemShards.push(s);
            const acks = h.acks
              .filter((a) => a.id === id)
              .map((a) => `${a.op} v${a.version} seq_no ${a.seqNo} term ${a.term} via c${a.coordinator} sent +${a.sentMs}ms acknowledged +${a.ackedMs}ms`);
            example(
              'lost',
              `[${t.index}][${s}] on shard-${c.node}${c.primary ? ' (primary)' : ''}: ${problem}; acknowledged writes of ${id}: ${acks.join('; ')}`,
            );
          }
        });
      }
      const state = await internal<RecoveryStateResponse>(url, 'recovery/state', { index: t.index, shard: s }, t.secret);
      const count = stats.get(c.node)?.shards.find((x) => x.index === t.index && x.shard === s)?.docs ?? -1;
      fingerprints.push({ node: c.node, primary: c.primary, docs, maxSeqNo: state.maxSeqNo, checkpoint: state.checkpoint, count });
      if (c.inSync && state.checkpoint < state.maxSeqNo) {
        result.checkpointsBehind++;
        example('checkpoint behind', `[${t.index}][${s}] on shard-${c.node}: local checkpoint ${state.checkpoint} < max seq_no ${state.maxSeqNo}`);
      }
    }
    const primary = fingerprints.find((f) => f.primary) ?? fingerprints[0];
    for (const f of fingerprints) {
      if (f === primary) continue;
      const differing = ids.filter((id) => f.docs.get(id) !== primary.docs.get(id));
      if (differing.length === 0 && f.maxSeqNo === primary.maxSeqNo && f.count === primary.count) continue;
      result.divergentCopies++;
      result.problemShards.push(s);
      const first = differing[0];
      example(
        'divergent',
        `[${t.index}][${s}] shard-${f.node} vs primary shard-${primary.node}: ${differing.length} _ids differ${first ? ` (${first}: ${f.docs.get(first)} vs ${primary.docs.get(first)})` : ''}, max seq_no ${f.maxSeqNo} vs ${primary.maxSeqNo}, docs ${f.count} vs ${primary.count}`,
      );
    }
  }

  // Two primaries in one term: one (shard, term, seq_no) acknowledged for two different writes.
  const bySlot = new Map<string, string>();
  for (const a of h.acks) {
    const slot = `${a.shard}/${a.term}/${a.seqNo}`;
    const what = `${a.id} v${a.version} (${a.op} via c${a.coordinator}, acknowledged +${a.ackedMs}ms)`;
    const prev = bySlot.get(slot);
    if (prev === undefined) bySlot.set(slot, what);
    else if (!prev.startsWith(`${a.id} v${a.version} `)) {
      result.dualPrimaries++;
      result.problemShards.push(a.shard);
      example('two primaries', `[${t.index}][${a.shard}] term ${a.term} seq_no ${a.seqNo} acknowledged for ${prev} and for ${what}`);
    }
  }
  // Per _id, in acknowledgement order (one client, one op at a time): versions and seq_nos grow, terms
  // never go back (a promoted replica holds every acknowledged op, so its seq_nos continue above them).
  const lastOf = new Map<string, { version: number; seqNo: number; term: number }>();
  for (const a of h.acks) {
    const prev = lastOf.get(a.id);
    if (prev && (a.version <= prev.version || a.seqNo <= prev.seqNo || a.term < prev.term)) {
      result.orderViolations++;
      example('order', `${a.id}: acknowledged v${a.version} seq_no ${a.seqNo} term ${a.term} after v${prev.version} seq_no ${prev.seqNo} term ${prev.term}`);
    }
    lastOf.set(a.id, { version: a.version, seqNo: a.seqNo, term: a.term });
  }
  return result;
}
