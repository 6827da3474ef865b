/**
 * Snapshots and restores, driven from the coordinator as ES's master drives them
 * (`SnapshotsService`, `RestoreService`): the shard work runs on each shard's primary
 * (protocol/snapshot.ts), the repository-level files (the index metadata, `snap-<uuid>.dat`, the
 * root `index-<N>`) are written here, in the shared filesystem repository (docs/snapshots.md).
 *
 * A snapshot, step by step: (1) resolve the indices; (2) give each index its repository id (the
 * one it had in this repository, else a new one); (3) have each primary flush and copy its commit's
 * new files ({@link SNAPSHOT_SHARD_CONCURRENCY} shards at a time); (4) write each index's metadata,
 * then the snapshot's info, then the root index naming it. Restores are snapshot-restore.ts.
 * Operations on one repository run one after another (a queue per repository in this process).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/snapshots/SnapshotsService.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/snapshots/RestoreService.java
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { EsError, toEsError } from '../../protocol/errors.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { rpc } from '../../protocol/rpc.ts';
import type { Logger } from '../../shared/logger.ts';
import { readJsonFile, removeFiles, writeJsonAtomic } from '../../shared/snapshots/repository-files.ts';
import {
  indexDir,
  indexMetadataPath,
  readRepositoryData,
  shardDir,
  snapshotInfoPath,
  writeRepositoryData,
  type RepositoryData,
  type ShardFailure,
  type ShardSnapshot,
  type SnapshotIndexMetadata,
  type SnapshotInfo,
} from '../../shared/snapshots/repository-layout.ts';
import { deleteShardSnapshot, readShardSnapshot } from '../../shared/snapshots/shard-blobs.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import { resolveIndices } from '../cluster/index-expression.ts';
import type { IndexView } from '../cluster/index-view.ts';
import type { IndicesOptions } from '../cluster/indices-options.ts';
import type { NewIndexSpec } from '../cluster/new-index.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { type Repositories, type RepositoryMetadata } from './repositories.ts';
import type { CreateSnapshotBody } from './snapshot-requests.ts';
import type { RunningSnapshot } from './snapshot-responses.ts';

/** Shards snapshotted or restored at once by one operation: bounds the disk and network work (ES throttles with `max_snapshot_bytes_per_sec`). */
export const SNAPSHOT_SHARD_CONCURRENCY = 2;
/** How long one shard's copy may take (ms) before its call fails. */
export const SHARD_COPY_TIMEOUT_MS = 30 * 60_000;

/** What the service needs. */
export interface SnapshotDeps {
  view: ClusterView;
  client: ShardClient;
  repositories: Repositories;
  /** Creates an index as `PUT /{index}` does (shard limit checks included). */
  createIndex: (name: string, spec: NewIndexSpec) => Promise<IndexView>;
  log?: Logger;
}

/** ES `SnapshotMissingException`: 404 `[repo:snap] is missing`. */
export function snapshotMissing(repo: string, snap: string): EsError {
  return new EsError(404, 'snapshot_missing_exception', `[${repo}:${snap}] is missing`);
}

/** ES `InvalidSnapshotNameException`: 400 `[repo:snap] Invalid snapshot name [snap], <why>`. */
function invalidSnapshotName(repo: string, snap: string, why: string): EsError {
  return new EsError(400, 'invalid_snapshot_name_exception', `[${repo}:${snap}] Invalid snapshot name [${snap}], ${why}`);
}

/**
 * ES's snapshot name checks (`SnapshotsService.validate`).
 * @throws EsError 400 `invalid_snapshot_name_exception`
 */
export function validateSnapshotName(repo: string, snap: string): void {
  const bad = (why: string) => invalidSnapshotName(repo, snap, why);
  if (snap === '') throw bad('cannot be empty');
  if (snap.includes(' ')) throw bad('must not contain whitespace');
  if (snap.includes(',')) throw bad("must not contain ','");
  if (snap.includes('#')) throw bad("must not contain '#'");
  if (snap.startsWith('_')) throw bad("must not start with '_'");
  if (snap.toLowerCase() !== snap) throw bad('must be lowercase');
  if (/[\\/*?"<>|]/.test(snap)) throw bad('must not contain the following characters [ , ", *, ,, /, <, >, ?, \\, |]');
}

/** A 22-character url-safe uuid (ES `UUIDs.randomBase64UUID`). */
export function newUuid(): string {
  return Buffer.from(randomUUID().replaceAll('-', ''), 'hex').toString('base64url');
}

/** Runs `work` over `items`, at most `limit` at a time. */
export async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

/** The names a list or comma-separated expression gives. */
export function expressionList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : String(v).split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** See the module comment. */
export class SnapshotService {
  private readonly deps: SnapshotDeps;
  /** The tail of each repository's queue of operations. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Snapshots running in this process, by repository. */
  private readonly running = new Map<string, Map<string, RunningSnapshot>>();

  constructor(deps: SnapshotDeps) {
    this.deps = deps;
  }

  /** Runs `op` after the operations queued on `repo` before it (snapshots, deletes and restores of one repository run one at a time). */
  queued<T>(repo: string, op: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(repo) ?? Promise.resolve();
    const run = prev.then(op, op);
    const tail = run.catch(() => undefined);
    this.queues.set(repo, tail);
    void tail.then(() => {
      if (this.queues.get(repo) === tail) this.queues.delete(repo);
    });
    return run;
  }

  /** The repository's metadata and directory. @throws EsError 404 `repository_missing_exception`; 500 for a location outside `path.repo` */
  async repository(name: string): Promise<{ repo: RepositoryMetadata; location: string; rates: { snapshot: number; restore: number } }> {
    const repo = await this.deps.repositories.get(name);
    return { repo, location: this.deps.repositories.location(name, repo), rates: this.deps.repositories.rates(repo) };
  }

  /** Snapshots running in this process on `repo`. */
  current(repo: string): RunningSnapshot[] {
    return [...(this.running.get(repo)?.values() ?? [])];
  }

  /**
   * Starts snapshot `snap` of `repoName` (ES `SnapshotsService.createSnapshot`) and resolves with its
   * info once written; `onAccepted` is called once the request is checked and the work queued (for
   * `wait_for_completion=false`).
   * @throws EsError 400 `invalid_snapshot_name_exception` (bad or taken name); 404 for a missing
   *   repository or index; as {@link Repositories}
   */
  async create(repoName: string, snap: string, body: CreateSnapshotBody, options: IndicesOptions, onAccepted?: () => void): Promise<SnapshotInfo> {
    validateSnapshotName(repoName, snap);
    const { location, rates } = await this.repository(repoName);
    const expression = expressionList(body.indices).join(',') || '_all';
    const indices = await resolveIndices(expression, this.deps.view, options);
    const running = this.running.get(repoName) ?? new Map<string, RunningSnapshot>();
    if ([...running.values()].some((r) => r.snapshot === snap)) throw invalidSnapshotName(repoName, snap, 'snapshot with the same name is already in-progress');
    const { data } = await readRepositoryData(location);
    if (data.snapshots.some((s) => s.name === snap)) throw invalidSnapshotName(repoName, snap, 'snapshot with the same name already exists');
    const views = await Promise.all(indices.map((n) => this.deps.view.get(n)));
    const entry: RunningSnapshot = {
      snapshot: snap,
      uuid: newUuid(),
      indices,
      include_global_state: body.include_global_state ?? true,
      ...(body.metadata ? { metadata: body.metadata } : {}),
      start_time_in_millis: Date.now(),
      shards: views.reduce((n, v) => n + v.metadata.numberOfShards, 0),
    };
    running.set(entry.uuid, entry);
    this.running.set(repoName, running);
    const done = this.queued(repoName, () => this.takeSnapshot(repoName, location, entry, views, body.partial ?? false, rates.snapshot)).finally(() =>
      running.delete(entry.uuid),
    );
    onAccepted?.();
    return done;
  }

  private async takeSnapshot(
    repoName: string,
    location: string,
    entry: RunningSnapshot,
    views: IndexView[],
    partial: boolean,
    maxBytesPerSec: number,
  ): Promise<SnapshotInfo> {
    const { generation, data } = await readRepositoryData(location);
    if (data.snapshots.some((s) => s.name === entry.snapshot))
      throw invalidSnapshotName(repoName, entry.snapshot, 'snapshot with the same name already exists');
    const indexIds: Record<string, string> = {};
    for (const v of views) indexIds[v.metadata.name] = data.indices[v.metadata.name]?.id ?? newUuid();
    // Unassigned primaries: ES refuses the snapshot unless `partial` (the shards are then failed).
    const unavailable = views.filter((v) => v.placement.some((n) => n < 0 || n === undefined)).map((v) => v.metadata.name);
    if (unavailable.length > 0 && !partial)
      throw new EsError(
        500,
        'snapshot_exception',
        `[${repoName}:${entry.snapshot}/${entry.uuid}] Indices don't have primary shards [${unavailable.join(', ')}]`,
      );
    const { jobs, failures, oks } = await this.snapshotShards(location, entry, views, indexIds, maxBytesPerSec);
    for (const v of views) await writeJsonAtomic(indexMetadataPath(location, indexIds[v.metadata.name], entry.uuid), snapshotIndexMetadata(v.metadata));
    const info: SnapshotInfo = {
      snapshot: entry.snapshot,
      uuid: entry.uuid,
      indices: entry.indices,
      state: failures.length === 0 ? 'SUCCESS' : 'PARTIAL',
      include_global_state: entry.include_global_state,
      ...(entry.metadata ? { metadata: entry.metadata } : {}),
      start_time_in_millis: entry.start_time_in_millis,
      end_time_in_millis: Date.now(),
      shards: { total: jobs.length, failed: failures.length, successful: oks.length },
      failures,
      index_ids: indexIds,
      index_shards: Object.fromEntries(views.map((v) => [v.metadata.name, v.metadata.numberOfShards])),
      stats: {
        incremental: { file_count: sumOf(oks, (o) => o.incrementalFileCount), size_in_bytes: sumOf(oks, (o) => o.incrementalSize) },
        total: { file_count: sumOf(oks, (o) => o.totalFileCount), size_in_bytes: sumOf(oks, (o) => o.totalSize) },
      },
    };
    await writeJsonAtomic(snapshotInfoPath(location, info.uuid), info);
    const next = withSnapshot(data, info);
    await writeRepositoryData(location, generation, next);
    this.deps.log?.info(
      { repository: repoName, snapshot: info.snapshot, state: info.state, copiedBytes: info.stats.incremental.size_in_bytes },
      'snapshot written',
    );
    return info;
  }

  /** Step 3 of a snapshot: each shard's primary copies its commit's new files, {@link SNAPSHOT_SHARD_CONCURRENCY} at a time; a failure is recorded, not thrown. */
  private async snapshotShards(location: string, entry: RunningSnapshot, views: IndexView[], indexIds: Record<string, string>, maxBytesPerSec: number) {
    const jobs = views.flatMap((v) => Array.from({ length: v.metadata.numberOfShards }, (_, s) => ({ view: v, shard: s })));
    const results = await pooled(jobs, SNAPSHOT_SHARD_CONCURRENCY, async ({ view, shard }) => {
      try {
        const reply = await this.deps.client.rpc(
          view.placement[shard],
          rpc.snapshotShard,
          { index: view.metadata.name, shard, location, indexId: indexIds[view.metadata.name], snapshot: entry.uuid, maxBytesPerSec },
          { timeoutMs: SHARD_COPY_TIMEOUT_MS },
        );
        return { ok: reply };
      } catch (err) {
        const es = toEsError(err);
        const failure: ShardFailure = {
          index: view.metadata.name,
          index_uuid: view.metadata.uuid,
          shard_id: shard,
          reason: `${es.type}: ${es.message}`,
          node_id: this.deps.client.nodes[view.placement[shard]] ?? '',
          status: es.status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST',
        };
        this.deps.log?.warn({ index: view.metadata.name, shard, err: es.message }, 'shard snapshot failed');
        return { failure };
      }
    });
    const failures = results.flatMap((r) => ('failure' in r && r.failure ? [r.failure] : []));
    const oks = results.flatMap((r) => ('ok' in r && r.ok ? [r.ok] : []));
    return { jobs, failures, oks };
  }

  /**
   * The snapshots of `repoName` an expression names (`_all`, `*`, `_current`, names, wildcards,
   * comma lists), in start order; with `ignoreUnavailable` a missing name is skipped.
   * @throws EsError 404 `snapshot_missing_exception` for a missing concrete name
   */
  async list(repoName: string, expression: string, ignoreUnavailable = false): Promise<(SnapshotInfo | RunningSnapshot)[]> {
    const { location } = await this.repository(repoName);
    const { data } = await readRepositoryData(location);
    const parts = expression.split(',').filter((p) => p !== '');
    const running = this.current(repoName);
    const out = new Map<string, SnapshotInfo | RunningSnapshot>();
    const add = async (uuid: string) => {
      if (out.has(uuid)) return;
      const info = await readJsonFile<SnapshotInfo>(snapshotInfoPath(location, uuid));
      if (info) out.set(uuid, info);
    };
    for (const part of parts.length > 0 ? parts : ['_all']) {
      if (part === '_all' || part === '*') {
        for (const s of data.snapshots) await add(s.uuid);
        for (const r of running) out.set(r.uuid, r);
      } else if (part === '_current') {
        for (const r of running) out.set(r.uuid, r);
      } else if (part.includes('*')) {
        for (const s of data.snapshots) if (wildcardMatch(part, s.name)) await add(s.uuid);
        for (const r of running) if (wildcardMatch(part, r.snapshot)) out.set(r.uuid, r);
      } else {
        const s = data.snapshots.find((x) => x.name === part);
        const r = running.find((x) => x.snapshot === part);
        if (s) await add(s.uuid);
        else if (r) out.set(r.uuid, r);
        else if (!ignoreUnavailable) throw snapshotMissing(repoName, part);
      }
    }
    return [...out.values()].sort((a, b) => a.start_time_in_millis - b.start_time_in_millis || (a.snapshot < b.snapshot ? -1 : 1));
  }

  /** One finished snapshot by name. @throws EsError 404 `snapshot_missing_exception` */
  async info(repoName: string, location: string, snap: string): Promise<SnapshotInfo> {
    const { data } = await readRepositoryData(location);
    const entry = data.snapshots.find((s) => s.name === snap);
    const info = entry && (await readJsonFile<SnapshotInfo>(snapshotInfoPath(location, entry.uuid)));
    if (!info) throw snapshotMissing(repoName, snap);
    return info;
  }

  /** The shard snapshots of a finished snapshot, per index and shard (for `_status`). */
  async shardSnapshots(location: string, info: SnapshotInfo): Promise<Map<string, Map<number, ShardSnapshot>>> {
    const out = new Map<string, Map<number, ShardSnapshot>>();
    for (const index of info.indices) {
      const byShard = new Map<number, ShardSnapshot>();
      for (let s = 0; s < (info.index_shards[index] ?? 0); s++) {
        const snap = await readShardSnapshot(shardDir(location, info.index_ids[index], s), info.uuid);
        if (snap) byShard.set(s, snap);
      }
      out.set(index, byShard);
    }
    return out;
  }

  /**
   * Deletes the snapshots an expression names (ES `SnapshotsService.deleteSnapshots`): each shard's
   * blobs no remaining snapshot references, each index's metadata and the directories of indices no
   * snapshot holds any more, the snapshot's info, then a new root index without them.
   * @throws EsError 404 `snapshot_missing_exception` for a missing concrete name
   */
  async delete(repoName: string, expression: string): Promise<void> {
    const { location } = await this.repository(repoName);
    await this.queued(repoName, async () => {
      const { generation, data } = await readRepositoryData(location);
      const doomed = new Set<string>();
      for (const part of expression.split(',').filter((p) => p !== '')) {
        const hits = data.snapshots.filter((s) =>
          part === '_all' || part.includes('*') ? wildcardMatch(part === '_all' ? '*' : part, s.name) : s.name === part,
        );
        if (hits.length === 0 && !part.includes('*') && part !== '_all') throw snapshotMissing(repoName, part);
        for (const h of hits) doomed.add(h.uuid);
      }
      if (doomed.size === 0) return;
      const next: RepositoryData = { snapshots: data.snapshots.filter((s) => !doomed.has(s.uuid)), indices: {} };
      for (const [name, idx] of Object.entries(data.indices)) {
        const left = idx.snapshots.filter((u) => !doomed.has(u));
        if (left.length > 0) next.indices[name] = { id: idx.id, snapshots: left };
      }
      // The new root first: a crash after it leaves unreferenced files, never a snapshot without its files.
      await writeRepositoryData(location, generation, next);
      for (const uuid of doomed) {
        const info = await readJsonFile<SnapshotInfo>(snapshotInfoPath(location, uuid));
        for (const index of info?.indices ?? []) {
          const id = info!.index_ids[index];
          const stillUsed = Object.values(next.indices).some((i) => i.id === id);
          if (!stillUsed) {
            await rm(indexDir(location, id), { recursive: true, force: true });
            continue;
          }
          for (let s = 0; s < (info!.index_shards[index] ?? 0); s++) await deleteShardSnapshot(shardDir(location, id, s), uuid);
          await removeFiles(indexDir(location, id), [`meta-${uuid}.dat`]);
        }
        await removeFiles(location, [`snap-${uuid}.dat`]);
      }
      this.deps.log?.info({ repository: repoName, snapshots: doomed.size }, 'snapshots deleted');
    });
  }
}

/** The repository data with `info` added: its entry, and its indices' ids (kept or new) naming it. */
function withSnapshot(data: RepositoryData, info: SnapshotInfo): RepositoryData {
  const { snapshot: name, uuid, state, start_time_in_millis, end_time_in_millis } = info;
  const next: RepositoryData = {
    snapshots: [...data.snapshots, { name, uuid, state, start_time_in_millis, end_time_in_millis }],
    indices: { ...data.indices },
  };
  for (const index of info.indices) next.indices[index] = { id: info.index_ids[index], snapshots: [...(data.indices[index]?.snapshots ?? []), uuid] };
  return next;
}

function sumOf<T>(xs: readonly T[], f: (x: T) => number): number {
  let n = 0;
  for (const x of xs) n += f(x);
  return n;
}

/** What a snapshot keeps of an index's metadata (docs/snapshots.md). */
function snapshotIndexMetadata(m: IndexMetadata): SnapshotIndexMetadata {
  return {
    name: m.name,
    uuid: m.uuid,
    numberOfShards: m.numberOfShards,
    numberOfReplicas: m.numberOfReplicas,
    routingNumShards: m.routingNumShards,
    ...(m.settings ? { settings: m.settings } : {}),
    mappings: m.mappings,
    ...(m.aliases ? { aliases: m.aliases } : {}),
    ...(m.state ? { state: m.state } : {}),
  };
}
