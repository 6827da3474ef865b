import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirDurable } from './durable-dir.ts';
import { CURRENT_HOST, NODE_LOCK_FILE, NodeLock, NodeLockedError, type NodeLockHost, type NodeLockOwner, procStartToken, staleReason } from './node-lock.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-lock-'));
  dirs.push(d);
  return d;
}
const owner = (over: Partial<NodeLockOwner> = {}): NodeLockOwner => ({ pid: 4242, hostname: CURRENT_HOST.hostname, startedAt: 1, startToken: '777', ...over });
const host = (over: Partial<NodeLockHost> = {}): NodeLockHost => ({ ...CURRENT_HOST, isAlive: () => true, startToken: () => '777', ...over });

describe('data directory lock (node.lock, as Lucene write.lock)', () => {
  it('is exclusive: a second acquire names the holder; release frees it', () => {
    const dir = dataDir();
    const lock = NodeLock.acquire(dir);
    const held = JSON.parse(readFileSync(join(dir, NODE_LOCK_FILE), 'utf8')) as NodeLockOwner;
    expect(held).toMatchObject({ pid: process.pid, hostname: CURRENT_HOST.hostname });
    // Another process (same host, this pid alive, same start time) asks for it.
    const other = { ...CURRENT_HOST, pid: process.pid + 1 };
    let err: unknown;
    try {
      NodeLock.acquire(dir, () => {}, other);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NodeLockedError);
    expect((err as Error).message).toContain(`is in use by another shard node: pid ${process.pid} on host [${CURRENT_HOST.hostname}]`);
    expect((err as Error).message).toContain('give this node its own FOLIO_DATA');
    lock.release();
    expect(existsSync(join(dir, NODE_LOCK_FILE))).toBe(false);
    NodeLock.acquire(dir, () => {}, other).release();
  });

  it('takes over the lock of a dead process, with the reason', async () => {
    const dir = dataDir();
    const child = spawn(process.execPath, ['-e', '']);
    const deadPid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    writeFileSync(join(dir, NODE_LOCK_FILE), JSON.stringify(owner({ pid: deadPid, startToken: null })));
    const seen: string[] = [];
    const lock = NodeLock.acquire(dir, (prev, reason) => seen.push(`${prev.pid}: ${reason}`));
    expect(seen).toEqual([`${deadPid}: process ${deadPid} is not running`]);
    expect(lock.owner.pid).toBe(process.pid);
    lock.release();
  });

  it('staleReason: pid reuse (another start time), own pid, another host, or a half-written file', () => {
    expect(staleReason(owner(), host())).toBeNull();
    expect(staleReason(owner(), host({ startToken: () => '999' }))).toBe('pid 4242 now belongs to another process');
    expect(staleReason(owner({ startToken: null }), host({ startToken: () => '999' }))).toBeNull(); // nothing to compare: assume live
    expect(staleReason(owner(), host({ isAlive: () => false }))).toBe('process 4242 is not running');
    expect(staleReason(owner({ pid: CURRENT_HOST.pid }), host())).toBe('written by an earlier process with this same pid');
    expect(staleReason(owner({ hostname: 'elsewhere' }), host())).toMatch(/^written on another host \[elsewhere\]/);
    const dir = dataDir();
    writeFileSync(join(dir, NODE_LOCK_FILE), '{"pid": 12'); // a crash while writing it
    NodeLock.acquire(dir).release();
  });

  it('reads the process start time on Linux (pid reuse detection)', () => {
    if (process.platform !== 'linux') return;
    expect(procStartToken(process.pid)).toMatch(/^\d+$/);
    expect(procStartToken(process.pid)).toBe(procStartToken(process.pid));
    expect(procStartToken(2 ** 22 + 1)).toBeNull(); // above Linux's pid_max: no such process
  });

  it('release leaves a lock that is no longer its own', () => {
    const dir = dataDir();
    const lock = NodeLock.acquire(dir);
    writeFileSync(join(dir, NODE_LOCK_FILE), JSON.stringify(owner({ pid: 1 })));
    lock.release();
    expect(existsSync(join(dir, NODE_LOCK_FILE))).toBe(true);
  });
});

describe('mkdirDurable', () => {
  it('creates missing parents and reports what it created, topmost first', () => {
    const root = dataDir();
    expect(mkdirDurable(join(root, 'a', 'b', 'c'))).toEqual([join(root, 'a'), join(root, 'a', 'b'), join(root, 'a', 'b', 'c')]);
    expect(statSync(join(root, 'a', 'b', 'c')).isDirectory()).toBe(true);
    expect(mkdirDurable(join(root, 'a', 'b'))).toEqual([]);
  });
});
