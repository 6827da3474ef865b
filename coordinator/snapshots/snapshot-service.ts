/**
 * Snapshots and restores, driven from the coordinator as ES's master drives them
 * (`SnapshotsService`, `RestoreService`): the shard work runs on each shard's primary
 * (protocol/snapshot.ts), the repository-level files (the index metadata, `snap-<uuid>.dat`, the
 * root `index-<N>`) are written here, in the shared filesystem repository (docs/snapshots.md).
 *
 * A snapshot, step by step: (1) resolve the indices; (2) give each index its repository id (the
 * one it had in this repository, else a new one); (3) have each primary flush and copy its commit's
 * new files ({@link SNAPSHOT_SHARD_CONCURRENCY} shards at a time); (4) write each index's metadata,
 * then the snapshot's info, then the root index naming it. A restore: (1) pick and rename the
 * snapshot's indices; (2) refuse an open index of the same name; (3) create each index from the
 * snapshot's metadata without replicas; (4) have each primary copy its files back and open them;
 * (5) set the replica count, whose new copies recover from the primary as any new replica does.
 * Operations on one repository run one after another (a queue per repository in this process).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/snapshots/SnapshotsService.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/snapshots/RestoreService.java
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { EsError, illegalArgument, indexNotFound, toEsError } from '../../protocol/errors.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { rpc } from '../../protocol/rpc.ts';
import type { SnapshotShardResponse } from '../../protocol/snapshot.ts';
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
import { flattenIndexSettings, normalizeIndexKey } from '../cluster/index-setting-definitions.ts';
import { parseCreateIndexBody } from '../cluster/index-settings.ts';
import type { IndicesOptions } from '../cluster/indices-options.ts';
import type { NewIndexSpec } from '../cluster/new-index.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { type Repositories, type RepositoryMetadata } from './repositories.ts';
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

/** A `PUT /_snapshot/{repo}/{snap}` body (ES `CreateSnapshotRequest.source`). */
export interface CreateSnapshotBody {
  indices?: string | string[];
  ignore_unavailable?: boolean;
  allow_no_indices?: boolean;
  expand_wildcards?: string | string[];
  include_global_state?: boolean;
  metadata?: Record<string, unknown>;
  partial?: boolean;
}

/** A `POST /_snapshot/{repo}/{snap}/_restore` body (ES `RestoreSnapshotRequest.source`). */
export interface RestoreBody {
  indices?: string | string[];
  ignore_unavailable?: boolean;
  allow_no_indices?: boolean;
  include_global_state?: boolean;
  include_aliases?: boolean;
  partial?: boolean;
  rename_pattern?: string;
  rename_replacement?: string;
  index_settings?: Record<string, unknown>;
  ignore_index_settings?: string | string[];
}

/** What a restore did (ES `RestoreInfo`). */
export interface RestoreInfo {
  snapshot: string;
  indices: string[];
  shards: { total: number; failed: number; successful: number };
}

/** ES `SnapshotMissingException`: 404 `[repo:snap] is missing`. */
export function snapshotMissing(repo: string, snap: string): EsError {
  return new EsError(404, 'snapshot_missing_exception', `[${repo}:${snap}] is missing`);
}

/** ES `InvalidSnapshotNameException`: 400 `[repo:snap] Invalid snapshot name [snap], <why>`. */
function invalidSnapshotName(repo: string, snap: string, why: string): EsError {
  return new EsError(400, 'invalid_snapshot_name_exception', `[${repo}:${snap}] Invalid snapshot name [${snap}], ${why}`);
}

/** ES `SnapshotRestoreException`: 500 `[repo:snap/uuid] <why>`. */
function restoreError(repo: string, info: Pick<SnapshotInfo, 'snapshot' | 'uuid'>, why: string): EsError {
  return new EsError(500, 'snapshot_restore_exception', `[${repo}:${info.snapshot}/${info.uuid}] ${why}`);
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
function newUuid(): string {
  return Buffer.from(randomUUID().replaceAll('-', ''), 'hex').toString('base64url');
}

/** Runs `work` over `items`, at most `limit` at a time. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
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
function expressionList(v: string | string[] | undefined): string[] {
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

  /** Runs `op` after the operations queued on `repo` before it. */
  private queued<T>(repo: string, op: () => Promise<T>): Promise<T> {
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
  async repository(name: string): Promise<{ repo: RepositoryMetadata; location: string }> {
    const repo = await this.deps.repositories.get(name);
    return { repo, location: this.deps.repositories.location(name, repo) };
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
    const { location } = await this.repository(repoName);
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
    const done = this.queued(repoName, () => this.takeSnapshot(repoName, location, entry, views, body.partial ?? false)).finally(() => running.delete(entry.uuid));
    onAccepted?.();
    return done;
  }

  private async takeSnapshot(repoName: string, location: string, entry: RunningSnapshot, views: IndexView[], partial: boolean): Promise<SnapshotInfo> {
    const { generation, data } = await readRepositoryData(location);
    if (data.snapshots.some((s) => s.name === entry.snapshot)) throw invalidSnapshotName(repoName, entry.snapshot, 'snapshot with the same name already exists');
    const indexIds: Record<string, string> = {};
    for (const v of views) indexIds[v.metadata.name] = data.indices[v.metadata.name]?.id ?? newUuid();
    // Unassigned primaries: ES refuses the snapshot unless `partial` (the shards are then failed).
    const unavailable = views.filter((v) => v.placement.some((n) => n < 0 || n === undefined)).map((v) => v.metadata.name);
    if (unavailable.length > 0 && !partial)
      throw new EsError(500, 'snapshot_exception', `[${repoName}:${entry.snapshot}/${entry.uuid}] Indices don't have primary shards [${unavailable.join(', ')}]`);
    const jobs = views.flatMap((v) => Array.from({ length: v.metadata.numberOfShards }, (_, s) => ({ view: v, shard: s })));
    const results = await pooled(jobs, SNAPSHOT_SHARD_CONCURRENCY, async ({ view, shard }) => {
      try {
        const reply = await this.deps.client.rpc(
          view.placement[shard],
          rpc.snapshotShard,
          { index: view.metadata.name, shard, location, indexId: indexIds[view.metadata.name], snapshot: entry.uuid },
          { timeoutMs: SHARD_COPY_TIMEOUT_MS },
        );
        return { ok: reply as SnapshotShardResponse };
      } catch (err) {
        const es = toEsError(err);
        const failure: ShardFailure = {
          index: view.metadata.name,
          index_uuid: view.metadata.name,
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
    const next: RepositoryData = {
      snapshots: [
        ...data.snapshots,
        { name: info.snapshot, uuid: info.uuid, state: info.state, start_time_in_millis: info.start_time_in_millis, end_time_in_millis: info.end_time_in_millis },
      ],
      indices: { ...data.indices },
    };
    for (const name of info.indices) {
      const prev = next.indices[name];
      next.indices[name] = { id: indexIds[name], snapshots: [...(prev?.snapshots ?? []), info.uuid] };
    }
    await writeRepositoryData(location, generation, next);
    this.deps.log?.info({ repository: repoName, snapshot: info.snapshot, state: info.state, copiedBytes: info.stats.incremental.size_in_bytes }, 'snapshot written');
    return info;
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
        const hits = data.snapshots.filter((s) => (part === '_all' || part.includes('*') ? wildcardMatch(part === '_all' ? '*' : part, s.name) : s.name === part));
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

  /**
   * Restores snapshot `snap` of `repoName` (ES `RestoreService.restoreSnapshot`); see the module
   * comment. `onAccepted` is called once every check has passed (for `wait_for_completion=false`).
   * @throws EsError 404 for a missing repository, snapshot or index; 500 `snapshot_restore_exception`
   *   for an open index of the same name, two indices renamed into one, or a change of the shard count
   */
  async restore(repoName: string, snap: string, body: RestoreBody, onAccepted?: () => void): Promise<RestoreInfo> {
    const { location } = await this.repository(repoName);
    const info = await this.info(repoName, location, snap);
    const selected = selectIndices(info.indices, expressionList(body.indices), body.ignore_unavailable ?? false);
    const targets = renameIndices(repoName, info, selected, body);
    const ignored = expressionList(body.ignore_index_settings).map(normalizeIndexKey);
    const overrides = [...flattenIndexSettings((body.index_settings ?? {}) as Record<string, unknown>)].map(([k, v]) => [normalizeIndexKey(k), v] as const);
    if (ignored.includes('index.number_of_shards')) throw restoreError(repoName, info, 'cannot remove setting [index.number_of_shards] on restore');
    if (overrides.some(([k]) => k === 'index.number_of_shards')) throw restoreError(repoName, info, 'cannot modify setting [index.number_of_shards] on restore');
    const plans: { source: string; target: string; metadata: SnapshotIndexMetadata; spec: NewIndexSpec; replicas: number }[] = [];
    for (const [source, target] of targets) {
      const existing = this.deps.view.peek(target) ?? (await this.deps.view.get(target).catch(() => undefined));
      if (existing && existing.metadata.state !== 'close')
        throw restoreError(
          repoName,
          info,
          `cannot restore index [${target}] because an open index with same name already exists in the cluster. Either close or delete the existing index or restore the index under a different name by providing a rename pattern and replacement name`,
        );
      const metadata = await readJsonFile<SnapshotIndexMetadata>(indexMetadataPath(location, info.index_ids[source], info.uuid));
      if (!metadata) throw restoreError(repoName, info, `index [${source}] has no metadata in the repository`);
      const settings: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(metadata.settings ?? {})) if (!ignored.some((p) => wildcardMatch(p, k))) settings[k] = v;
      for (const [k, v] of overrides) settings[k] = v;
      settings['index.number_of_shards'] = String(metadata.numberOfShards);
      const parsed = parseCreateIndexBody({ settings });
      const replicas = parsed.numberOfReplicas;
      const spec: NewIndexSpec = {
        ...parsed,
        numberOfReplicas: 0,
        routingNumShards: metadata.routingNumShards,
        settings: { ...parsed.settings, 'index.number_of_replicas': '0' },
        mappings: metadata.mappings,
        ...((body.include_aliases ?? true) && metadata.aliases ? { aliases: metadata.aliases } : {}),
      };
      plans.push({ source, target, metadata, spec, replicas });
    }
    onAccepted?.();
    const shards = { total: 0, failed: 0, successful: 0 };
    for (const plan of plans) {
      if (this.deps.view.peek(plan.target)) await this.deps.view.delete(plan.target); // a closed index is replaced, as ES restores over it
      const view = await this.deps.createIndex(plan.target, plan.spec);
      const indexId = info.index_ids[plan.source];
      const outcomes = await pooled(
        Array.from({ length: plan.metadata.numberOfShards }, (_, s) => s),
        SNAPSHOT_SHARD_CONCURRENCY,
        (shard) => this.restoreShard(view, shard, location, indexId, info.uuid),
      );
      shards.total += outcomes.length;
      shards.successful += outcomes.filter(Boolean).length;
      shards.failed += outcomes.filter((ok) => !ok).length;
      if (plan.replicas > 0)
        await this.deps.view.updateMetadata(plan.target, (m) => ({
          ...m,
          numberOfReplicas: plan.replicas,
          settings: { ...(m.settings ?? {}), 'index.number_of_replicas': String(plan.replicas) },
        }));
    }
    this.deps.log?.info({ repository: repoName, snapshot: snap, indices: plans.map((p) => p.target), shards }, 'snapshot restored');
    return { snapshot: snap, indices: plans.map((p) => p.target), shards };
  }

  /** Restores one shard on its primary, retrying while the node has not applied the new index yet. @returns whether it succeeded */
  private async restoreShard(view: IndexView, shard: number, location: string, indexId: string, snapshot: string): Promise<boolean> {
    const index = view.metadata.name;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.deps.client.rpc(view.placement[shard], rpc.restoreShard, { index, shard, location, indexId, snapshot }, { timeoutMs: SHARD_COPY_TIMEOUT_MS });
        return true;
      } catch (err) {
        const es = toEsError(err);
        const notYet = es.type === 'index_not_found_exception' || es.type === 'shard_not_found_exception';
        if (!notYet || attempt >= 40) {
          this.deps.log?.error({ index, shard, err: es.message }, 'shard restore failed');
          return false;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }
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

/**
 * The snapshot's indices a restore's `indices` names (ES `SnapshotUtils.filterIndices`): all when
 * empty, else names and wildcards, `-pattern` removing.
 * @throws EsError 404 `index_not_found_exception` for a concrete name the snapshot lacks, unless `ignoreUnavailable`
 */
export function selectIndices(available: readonly string[], requested: readonly string[], ignoreUnavailable: boolean): string[] {
  if (requested.length === 0 || requested.includes('_all') || (requested.length === 1 && requested[0] === '*')) return [...available];
  const out = new Set<string>();
  for (const r of requested) {
    if (r.startsWith('-') && out.size > 0) {
      for (const n of [...out]) if (wildcardMatch(r.slice(1), n)) out.delete(n);
    } else if (r.includes('*')) {
      for (const n of available) if (wildcardMatch(r, n)) out.add(n);
    } else if (available.includes(r)) out.add(r);
    else if (!ignoreUnavailable) throw indexNotFound(r);
  }
  return available.filter((n) => out.has(n));
}

/**
 * Each selected index and the name it is restored under: `rename_pattern` replaced by
 * `rename_replacement` everywhere in the name (Java's `String.replaceAll`, `$1` groups).
 * @throws EsError 500 `snapshot_restore_exception` when two indices get one name; 400 for a bad pattern
 */
export function renameIndices(repo: string, info: Pick<SnapshotInfo, 'snapshot' | 'uuid'>, selected: readonly string[], body: RestoreBody): Map<string, string> {
  let pattern: RegExp | null = null;
  if (body.rename_pattern !== undefined && body.rename_replacement !== undefined) {
    try {
      pattern = new RegExp(body.rename_pattern, 'g');
    } catch (err) {
      throw illegalArgument(`Illegal rename pattern [${body.rename_pattern}]: ${(err as Error).message}`);
    }
  }
  const out = new Map<string, string>();
  const by = new Map<string, string>();
  for (const source of selected) {
    const target = pattern ? source.replace(pattern, body.rename_replacement!) : source;
    const other = by.get(target);
    if (other !== undefined) throw restoreError(repo, info, `indices [${other}] and [${source}] are renamed into the same index [${target}]`);
    by.set(target, source);
    out.set(source, target);
  }
  return out;
}
