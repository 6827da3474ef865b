/**
 * The shard node's snapshot actions (protocol/rpc.ts `snapshotShard`, `restoreShard`; types in
 * protocol/snapshot.ts). A snapshot: the primary flushes, holds its commit's files and copies the
 * ones the repository lacks (shared/snapshots/shard-blobs.ts). A restore: the files are staged and
 * the empty primary replaced by them (shard-node/hosted-snapshot.ts). Every repository path is
 * checked against this node's `path.repo` (FOLIO_PATH_REPO) first, as each ES node checks it.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/snapshots/SnapshotShardsService.java
 * @see docs/snapshots.md
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EsError } from '../protocol/errors.ts';
import { rpc } from '../protocol/rpc.ts';
import { writeFileAtomic } from '../shared/snapshots/repository-files.ts';
import { RateLimiter } from '../shared/snapshots/rate-limiter.ts';
import { resolveRepositoryLocation } from '../shared/snapshots/repository-location.ts';
import { shardDir } from '../shared/snapshots/repository-layout.ts';
import { readShardSnapshot, snapshotShardFiles } from '../shared/snapshots/shard-blobs.ts';
import type { ActionModule } from './action-module.ts';
import { stageRestoredCopy, type StagedCopy } from './hosted-snapshot.ts';
import { serve } from './rpc-serve.ts';

/** The repository directory of a request, checked against `path.repo`. @throws EsError 500 `repository_exception` outside it */
function checkedLocation(location: string, pathRepo: readonly string[]): string {
  return resolveRepositoryLocation('_internal', location, pathRepo);
}

/** The node's rate limiter of each repository location and direction (ES keeps one per repository per node), set to the latest rate asked. */
function limiterOf(limiters: Map<string, RateLimiter>, key: string, bytesPerSec: number | undefined): RateLimiter {
  let l = limiters.get(key);
  if (!l) limiters.set(key, (l = new RateLimiter(bytesPerSec ?? 0)));
  l.bytesPerSec = bytesPerSec ?? 0;
  return l;
}

/** See the module comment. */
export const snapshotActions: ActionModule = {
  name: 'snapshot',
  bind(app, { registry, node, log, pathRepo = [] }) {
    const limiters = new Map<string, RateLimiter>();
    serve(app, rpc.snapshotShard, async (req) => {
      const location = checkedLocation(req.location, pathRepo);
      const startTime = Date.now();
      const commit = await registry.snapshotCopy(req.index, req.shard).acquireCommit();
      try {
        const r = await snapshotShardFiles({
          dir: shardDir(location, req.indexId, req.shard),
          sourceDir: commit.dir,
          snapshot: req.snapshot,
          files: commit.files,
          commit: commit.commit,
          limiter: limiterOf(limiters, `snapshot:${location}`, req.maxBytesPerSec),
        });
        log.info(
          { index: req.index, shard: req.shard, files: r.totalFileCount, copiedFiles: r.incrementalFileCount, copiedBytes: r.incrementalSize },
          'shard snapshot written',
        );
        return { node, index: req.index, shard: req.shard, ...r, startTime };
      } finally {
        commit.release();
      }
    });
    serve(app, rpc.verifyRepository, async (req) => {
      const dir = join(checkedLocation(req.location, pathRepo), `tests-${req.seed}`);
      const master = await readFile(join(dir, 'master.dat'), 'utf8').catch(() => null);
      if (master !== req.seed)
        throw new EsError(
          500,
          'repository_verification_exception',
          `store location [${req.location}] is not shared between node [${node}] and the coordinator`,
        );
      await writeFileAtomic(join(dir, `data-${node}.dat`), req.seed);
      return { node };
    });
    serve(app, rpc.restoreShard, async (req) => {
      const location = checkedLocation(req.location, pathRepo);
      const started = Date.now();
      const repoShard = shardDir(location, req.indexId, req.shard);
      const shardSnapshot = await readShardSnapshot(repoShard, req.snapshot);
      if (!shardSnapshot)
        throw new EsError(
          500,
          'index_shard_restore_failed_exception',
          `[${req.index}][${req.shard}] failed to restore: no snapshot of the shard in the repository`,
        );
      const staging = registry.snapshotCopy(req.index, req.shard).restoreStaging();
      let staged: StagedCopy;
      try {
        staged = await stageRestoredCopy(repoShard, shardSnapshot, staging, limiterOf(limiters, `restore:${location}`, req.maxBytesPerSec));
      } catch (err) {
        registry.snapshotCopy(req.index, req.shard).fail(err as Error);
        throw err;
      }
      registry.snapshotCopy(req.index, req.shard).install(staging); // looked up again: the copy may have changed meanwhile
      log.info({ index: req.index, shard: req.shard, files: staged.files, bytes: staged.bytes, maxSeqNo: staged.maxSeqNo }, 'shard restored from snapshot');
      return { node, index: req.index, shard: req.shard, ...staged, time: Date.now() - started };
    });
  },
};
