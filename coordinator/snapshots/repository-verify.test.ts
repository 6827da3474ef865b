import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { VerifyRepositoryRequest } from '../../protocol/snapshot.ts';
import { ShardCallError } from '../transport/shard-call-error.ts';
import type { ShardClient } from '../transport/shard-client.ts';
import { verifyRepository } from './repository-verify.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A client whose node `n` answers with `answer(n, request)`. */
function client(nodes: string[], answer: (n: number, req: VerifyRepositoryRequest) => { node: string }): ShardClient {
  return { nodes, rpc: (n: number, _d: unknown, req: VerifyRepositoryRequest) => Promise.resolve().then(() => answer(n, req)) } as unknown as ShardClient;
}

describe('repository verification', () => {
  it("lists the nodes that read the coordinator's test file, skips unreachable ones, and removes the test files", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-verify-'));
    dirs.push(dir);
    const seen: string[] = [];
    const nodes = await verifyRepository(
      'r',
      dir,
      client(['http://a', 'http://b', 'http://c'], (n, req) => {
        if (n === 2) throw new ShardCallError('http://c', 'connection', 503, { type: 'connect_exception', reason: 'refused' });
        seen.push(readFileSync(join(req.location, `tests-${req.seed}`, 'master.dat'), 'utf8') === req.seed ? 'read' : 'wrong');
        return { node: `node-${n}` };
      }),
      1000,
    );
    expect(nodes).toEqual({ 'node-0': { name: 'node-0' }, 'node-1': { name: 'node-1' } });
    expect(seen).toEqual(['read', 'read']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("fails with ES's repository_verification_exception naming the nodes that answered an error", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'folio-verify-'));
    dirs.push(dir);
    const failing = client(['http://a', 'http://b'], (n) => {
      if (n === 1) throw new ShardCallError('http://b', 'response', 500, { type: 'repository_exception', reason: 'not shared' });
      return { node: 'node-0' };
    });
    await expect(verifyRepository('r', dir, failing, 1000)).rejects.toMatchObject({
      status: 500,
      type: 'repository_verification_exception',
      message: "[r] [[http://b, '[http://b] repository_exception: not shared']]",
    });
    expect(existsSync(dir) && readdirSync(dir)).toEqual([]);
  });
});
