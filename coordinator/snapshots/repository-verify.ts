/**
 * Verifying a repository on every node (ES `BlobStoreRepository.startVerification`,
 * `verify` on each data node, `endVerification`): the coordinator writes
 * `tests-<seed>/master.dat` in the repository, each shard node checks the location against its own
 * `path.repo`, reads that file (so the directory is really shared) and writes
 * `tests-<seed>/data-<node>.dat`; then the test directory is removed. A node that cannot be reached
 * is left out, as ES verifies on the nodes of the cluster.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/repositories/VerifyNodeRepositoryAction.java
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EsError, toEsError } from '../../protocol/errors.ts';
import { rpc } from '../../protocol/rpc.ts';
import { ensureDirectory, writeFileAtomic } from '../../shared/snapshots/repository-files.ts';
import { ShardCallError } from '../transport/shard-call-error.ts';
import type { ShardClient } from '../transport/shard-client.ts';

/**
 * Verifies repository `name` at `dir` on the coordinator and every reachable shard node.
 * @returns the nodes that verified it, as `POST /_snapshot/{repo}/_verify` lists them
 * @throws EsError 500 `repository_verification_exception`: `[name] path is not accessible on master node`
 *   when the coordinator cannot write there; `[name] [[node, 'reason'], ...]` when nodes fail
 */
export async function verifyRepository(name: string, dir: string, client: ShardClient, timeoutMs: number): Promise<Record<string, { name: string }>> {
  const seed = randomBytes(9).toString('base64url');
  const testDir = join(dir, `tests-${seed}`);
  try {
    await ensureDirectory(testDir);
    await writeFileAtomic(join(testDir, 'master.dat'), seed);
  } catch (err) {
    await rm(testDir, { recursive: true, force: true });
    throw new EsError(500, 'repository_verification_exception', `[${name}] path  is not accessible on master node`, {
      causedBy: { type: 'i_o_exception', reason: (err as Error).message },
    });
  }
  const nodes: Record<string, { name: string }> = {};
  const failures: string[] = [];
  try {
    await Promise.all(
      client.nodes.map(async (_, n) => {
        try {
          const r = await client.rpc(n, rpc.verifyRepository, { location: dir, seed }, { timeoutMs });
          nodes[r.node] = { name: r.node };
        } catch (err) {
          if (err instanceof ShardCallError && err.kind !== 'response') return; // not reachable: not in the cluster now
          failures.push(`[${client.nodes[n]}, '${toEsError(err).message}']`);
        }
      }),
    );
  } finally {
    await rm(testDir, { recursive: true, force: true });
  }
  if (failures.length > 0) throw new EsError(500, 'repository_verification_exception', `[${name}] [${failures.join(', ')}]`);
  return nodes;
}
