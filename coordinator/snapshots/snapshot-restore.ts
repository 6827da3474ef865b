/**
 * Restores, driven from the coordinator as ES's `RestoreService` drives them: (1) pick the
 * snapshot's indices and rename them; (2) refuse an open index of the same name; (3) create each
 * index from the snapshot's metadata without replicas; (4) have each primary copy its files back
 * and open them (protocol/snapshot.ts `restoreShard`); (5) set the replica count, whose new copies
 * recover from the primary as any new replica does (docs/snapshots.md).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/snapshots/RestoreService.java
 */
import { EsError, illegalArgument, indexNotFound, toEsError } from '../../protocol/errors.ts';
import { rpc } from '../../protocol/rpc.ts';
import type { RestoreShardRequest } from '../../protocol/snapshot.ts';
import { readJsonFile } from '../../shared/snapshots/repository-files.ts';
import { indexMetadataPath, type SnapshotIndexMetadata, type SnapshotInfo } from '../../shared/snapshots/repository-layout.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';
import type { IndexView } from '../cluster/index-view.ts';
import { flattenIndexSettings, normalizeIndexKey } from '../cluster/index-setting-definitions.ts';
import { parseCreateIndexBody } from '../cluster/index-settings.ts';
import type { NewIndexSpec } from '../cluster/new-index.ts';
import { expressionList, pooled, SHARD_COPY_TIMEOUT_MS, SNAPSHOT_SHARD_CONCURRENCY, type SnapshotDeps, type SnapshotService } from './snapshot-service.ts';

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

/** ES `SnapshotRestoreException`: 500 `[repo:snap/uuid] <why>`. */
function restoreError(repo: string, info: Pick<SnapshotInfo, 'snapshot' | 'uuid'>, why: string): EsError {
  return new EsError(500, 'snapshot_restore_exception', `[${repo}:${info.snapshot}/${info.uuid}] ${why}`);
}

/** See the module comment. */
export class SnapshotRestore {
  private readonly deps: SnapshotDeps;
  private readonly snapshots: SnapshotService;

  constructor(deps: SnapshotDeps, snapshots: SnapshotService) {
    this.deps = deps;
    this.snapshots = snapshots;
  }

  /**
   * Restores snapshot `snap` of `repoName` (ES `RestoreService.restoreSnapshot`); see the module
   * comment. `onAccepted` is called once every check has passed (for `wait_for_completion=false`).
   * @throws EsError 404 for a missing repository, snapshot or index; 500 `snapshot_restore_exception`
   *   for an open index of the same name, two indices renamed into one, or a change of the shard count
   */
  async restore(repoName: string, snap: string, body: RestoreBody, onAccepted?: () => void): Promise<RestoreInfo> {
    await this.snapshots.repository(repoName);
    // In the repository's queue: a delete of the snapshot cannot remove its blobs while they are copied.
    return this.snapshots.queued(repoName, () => this.restoreNow(repoName, snap, body, onAccepted));
  }

  private async restoreNow(repoName: string, snap: string, body: RestoreBody, onAccepted?: () => void): Promise<RestoreInfo> {
    const { location, rates } = await this.snapshots.repository(repoName);
    const info = await this.snapshots.info(repoName, location, snap);
    const selected = selectIndices(info.indices, expressionList(body.indices), body.ignore_unavailable ?? false);
    const targets = renameIndices(repoName, info, selected, body);
    const ignored = expressionList(body.ignore_index_settings).map(normalizeIndexKey);
    const overrides = [...flattenIndexSettings(body.index_settings ?? {})].map(([k, v]) => [normalizeIndexKey(k), v] as const);
    if (ignored.includes('index.number_of_shards')) throw restoreError(repoName, info, 'cannot remove setting [index.number_of_shards] on restore');
    if (overrides.some(([k]) => k === 'index.number_of_shards'))
      throw restoreError(repoName, info, 'cannot modify setting [index.number_of_shards] on restore');
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
        (shard) => this.restoreShard(view, shard, { location, indexId, snapshot: info.uuid, maxBytesPerSec: rates.restore }),
      );
      shards.total += outcomes.length;
      shards.successful += outcomes.filter(Boolean).length;
      shards.failed += outcomes.filter((ok) => !ok).length;
      // A shard that failed stays failed (red, as ES leaves it): no replica is placed to recover from it.
      if (plan.replicas > 0 && outcomes.every(Boolean))
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
  private async restoreShard(view: IndexView, shard: number, source: Omit<RestoreShardRequest, 'index' | 'shard'>): Promise<boolean> {
    const index = view.metadata.name;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.deps.client.rpc(view.placement[shard], rpc.restoreShard, { index, shard, ...source }, { timeoutMs: SHARD_COPY_TIMEOUT_MS });
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
export function renameIndices(
  repo: string,
  info: Pick<SnapshotInfo, 'snapshot' | 'uuid'>,
  selected: readonly string[],
  body: RestoreBody,
): Map<string, string> {
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
