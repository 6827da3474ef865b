import { spawn } from 'node:child_process';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from './embedded-store.ts';
import { describeStateStoreContract, entries } from './state-store.contract.ts';
import type { StateStore } from './types.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'folio-embedded-store-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

let dirs = 0;
const freshDir = () => join(root, `store-${dirs++}`);

// Each contract test gets its own store directory (the embedded store is one client per directory).
describeStateStoreContract('EmbeddedStore', { open: () => EmbeddedStore.open({ dir: freshDir() }) });

describe('EmbeddedStore durability', () => {
  it('reopens with every key, revision, version and lease, and watches go on from the next revision', async () => {
    const dir = freshDir();
    let store: StateStore = await EmbeddedStore.open({ dir });
    const lease = await store.grantLease(30);
    await store.txn({
      compare: [],
      ops: [
        { op: 'put', key: 'a', value: '1' },
        { op: 'put', key: 'b', value: '1' },
      ],
    });
    await store.txn({
      compare: [],
      ops: [
        { op: 'put', key: 'a', value: '2' },
        { op: 'put', key: 'n/1', value: 'alive', lease: lease.id },
      ],
    });
    await store.txn({ compare: [], ops: [{ op: 'delete', key: 'b' }] });
    const before = await store.range('');
    await store.close();

    store = await EmbeddedStore.open({ dir });
    try {
      const after = await store.range('');
      expect(after).toEqual(before);
      expect(await store.get('a')).toMatchObject({ value: '2', version: 2, createRevision: before.revision - 2 });
      // The lease came back with its keys, and still works.
      expect(await store.keepAliveLease(lease.id)).toBe(30);
      // A new lease gets a new id.
      expect((await store.grantLease(5)).id).not.toBe(lease.id);
      // History before the restart is gone (compacted); the next revision is watchable.
      const old = async () => {
        for await (const _ of store.watch('', { fromRevision: before.revision })) return;
      };
      await expect(old()).rejects.toMatchObject({ code: 'compacted' });
      const controller = new AbortController();
      const next = (async () => {
        for await (const batch of store.watch('', { fromRevision: before.revision + 1, signal: controller.signal })) return batch;
      })();
      await store.revokeLease(lease.id);
      expect(await next).toMatchObject({ revision: before.revision + 1, events: [{ type: 'delete', kv: { key: 'n/1' } }] });
      controller.abort();
    } finally {
      await store.close();
    }
  });

  it('keeps every acknowledged write when the process is killed (SIGKILL) mid-stream, and takes over its lock', async () => {
    const dir = freshDir();
    // A child process writes numbered keys and prints each acknowledged revision; we kill it mid-way.
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const { EmbeddedStore } = await import(${JSON.stringify(new URL('./embedded-store.ts', import.meta.url).href)});
      const store = await EmbeddedStore.open({ dir: ${JSON.stringify(dir)} });
      for (let i = 0; ; i++) {
        const r = await store.txn({ compare: [], ops: [{ op: 'put', key: 'k/' + String(i).padStart(6, '0'), value: String(i) }] });
        process.stdout.write(i + ' ' + r.revision + '\\n');
      }
    `,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const started = performance.now();
    while (out.split('\n').length < 60 && performance.now() - started < 15_000 && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await exited;
    const acked = out
      .split('\n')
      .filter((l) => /^\d+ \d+$/.test(l))
      .map((l) => Number(l.split(' ')[0]));
    expect(acked.length, `child output: ${out.slice(-500)} ${err.slice(-2000)}`).toBeGreaterThanOrEqual(50);
    expect(await readFile(join(dir, 'LOCK'), 'utf8')).toBe(`${child.pid}\n`); // left behind by the killed process

    const store = await EmbeddedStore.open({ dir });
    try {
      const { kvs } = await store.range('k/');
      // Every acknowledged write is there; at most the one in flight beyond them.
      expect(kvs.length).toBeGreaterThanOrEqual(acked.length);
      expect(kvs.length).toBeLessThanOrEqual(acked.length + 1);
      expect(entries(kvs).slice(0, acked.length)).toEqual(acked.map((i) => [`k/${String(i).padStart(6, '0')}`, String(i)]));
    } finally {
      await store.close();
    }
  });

  it('drops a torn last log record (a write never acknowledged) but refuses a damaged one before the end', async () => {
    const dir = freshDir();
    const store = await EmbeddedStore.open({ dir, walRotateBytes: 1 << 30 });
    await store.txn({ compare: [], ops: [{ op: 'put', key: 'a', value: '1' }] });
    await store.txn({ compare: [], ops: [{ op: 'put', key: 'b', value: '2' }] });
    await store.txn({ compare: [], ops: [{ op: 'put', key: 'c', value: '3' }] });
    // The files as a crash would leave them: the lock of a dead process and a half-written record.
    const crashed = freshDir();
    await cp(dir, crashed, { recursive: true });
    await store.close();
    await writeFile(join(crashed, 'LOCK'), '999999999\n');
    const walText = await readFile(join(crashed, 'wal.log'), 'utf8');
    expect(walText.trimEnd().split('\n')).toHaveLength(3);
    await appendFile(join(crashed, 'wal.log'), '0badc0de {"t":"txn","rev":99,"puts":[["g","7",null]],"dels":[');
    const recovered = await EmbeddedStore.open({ dir: crashed });
    expect(entries((await recovered.range('')).kvs)).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
    ]);
    expect((await recovered.range('')).revision).toBe(4);
    await recovered.close();

    // A damaged record followed by a good one is not a torn tail: refuse to guess.
    const damaged = freshDir();
    await mkdir(damaged);
    const lines = walText.trimEnd().split('\n');
    await writeFile(join(damaged, 'wal.log'), `${lines[0]}\n${lines[1].replace('"b"', '"B"')}\n${lines[2]}\n`);
    await expect(EmbeddedStore.open({ dir: damaged })).rejects.toMatchObject({ code: 'corrupt' });
  });

  it('refuses a second open of a directory that is in use', async () => {
    const dir = freshDir();
    const store = await EmbeddedStore.open({ dir });
    try {
      await expect(EmbeddedStore.open({ dir })).rejects.toMatchObject({ code: 'locked' });
    } finally {
      await store.close();
    }
    const again = await EmbeddedStore.open({ dir });
    await again.close();
  });

  it('rotates its log into a snapshot once it grows past the limit, and reads the same state back', async () => {
    const dir = freshDir();
    let store = await EmbeddedStore.open({ dir, walRotateBytes: 4096 });
    for (let i = 0; i < 100; i++) await store.txn({ compare: [], ops: [{ op: 'put', key: `k/${i % 7}`, value: 'x'.repeat(100) + i }] });
    await store.txn({ compare: [], ops: [{ op: 'put', key: 'last', value: 'y' }] }); // queued behind any rotation
    expect((await stat(join(dir, 'wal.log'))).size).toBeLessThan(4096 + 1024);
    const before = await store.range('');
    await store.close();
    store = await EmbeddedStore.open({ dir });
    try {
      expect(await store.range('')).toEqual(before);
    } finally {
      await store.close();
    }
  });
});
