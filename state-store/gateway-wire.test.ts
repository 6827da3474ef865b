/**
 * The served embedded store answers the gateway requests Folio sends with the same bytes as
 * etcd 3.4.23 (Debian's etcd-server, started on free loopback ports): one scripted sequence of
 * raw HTTP requests runs on a fresh etcd member and on a fresh served store, and every reply
 * (HTTP status and JSON body) must be equal once the values that name the member (cluster and
 * member ids, Raft term) and the server-chosen lease ids are masked.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcdCluster } from '../test/support/etcd-process.ts';
import type { EtcdCluster } from '../test/support/etcd-process.ts';
import { startStateStoreService } from '../test/support/state-store-process.ts';
import type { StateStoreService } from '../test/support/state-store-process.ts';

const root = mkdtempSync(join(tmpdir(), 'folio-gateway-wire-'));
let etcd: EtcdCluster | undefined;
let served: StateStoreService | undefined;
beforeAll(async () => {
  [etcd, served] = await Promise.all([startEtcdCluster(1), startStateStoreService(join(root, 'store'))]);
}, 30_000);
afterAll(async () => {
  await Promise.all([etcd?.stop(), served?.stop()]);
  rmSync(root, { recursive: true, force: true });
});

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Masks member identity and lease ids, keeping everything else (field order included). */
function mask(text: string, leases: Map<string, string>): string {
  return text
    .replace(/"cluster_id":"\d+"/g, '"cluster_id":"C"')
    .replace(/"member_id":"\d+"/g, '"member_id":"M"')
    .replace(/"raft_term":"\d+"/g, '"raft_term":"T"')
    .replace(/"(ID|lease)":"(\d+)"/g, (_, field: string, id: string) => {
      if (!leases.has(id)) leases.set(id, `L${leases.size}`);
      return `"${field}":"${leases.get(id)}"`;
    });
}

/** One request/reply step of the script. */
type Step = { path: string; body: unknown } | { watch: unknown; lines: number; during?: Step[] };

/** Runs the script on one endpoint and returns the masked transcript. */
async function transcript(url: string, script: (lease: () => string) => Step[]): Promise<string[]> {
  const leases = new Map<string, string>();
  const out: string[] = [];
  let lastLease = '';
  const call = async (path: string, body: unknown) => {
    const res = await fetch(url + path, { method: 'POST', body: JSON.stringify(body).replace('"$LEASE"', `"${lastLease}"`) });
    const text = (await res.text()).trim();
    const id = /"ID":"(\d+)"/.exec(text)?.[1];
    if (path === '/v3/lease/grant' && id) lastLease = id;
    out.push(`${path} ${res.status} ${mask(text, leases)}`);
  };
  for (const step of script(() => lastLease)) {
    if ('path' in step) {
      await call(step.path, step.body);
      continue;
    }
    const stop = new AbortController();
    // A stream that stays short of the expected lines ends after 5 s, and the transcripts then differ.
    const res = await fetch(url + '/v3/watch', {
      method: 'POST',
      body: JSON.stringify(step.watch),
      signal: AbortSignal.any([stop.signal, AbortSignal.timeout(5_000)]),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readLines = async (n: number) => {
      while (text.split('\n').filter(Boolean).length < n) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    };
    await readLines(1); // created
    for (const s of step.during ?? []) if ('path' in s) await call(s.path, s.body);
    await readLines(step.lines);
    stop.abort();
    for (const line of text.split('\n').filter(Boolean)) out.push(`/v3/watch ${res.status} ${mask(line, leases)}`);
  }
  return out;
}

const put = (key: string, value: string, lease?: boolean) => ({ request_put: { key: b64(key), value: b64(value), ...(lease ? { lease: '$LEASE' } : {}) } });

/** The script: what EtcdStore sends, and the errors it must recognise. */
const script = (): Step[] => [
  { path: '/v3/kv/range', body: { key: b64('a') } },
  {
    path: '/v3/kv/txn',
    body: {
      compare: [{ key: b64('a'), target: 'MOD', result: 'EQUAL', mod_revision: '0' }],
      success: [put('a', '1')],
      failure: [{ request_range: { key: b64('a') } }],
    },
  },
  {
    path: '/v3/kv/txn',
    body: {
      compare: [{ key: b64('a'), target: 'MOD', result: 'EQUAL', mod_revision: '0' }],
      success: [put('a', '1')],
      failure: [{ request_range: { key: b64('a') } }],
    },
  },
  {
    path: '/v3/kv/txn',
    body: {
      compare: [{ key: b64('b'), target: 'CREATE', result: 'EQUAL', create_revision: '0' }],
      success: [put('b', ''), put('c/1', 'x'), put('c/2', 'y')],
      failure: [],
    },
  },
  {
    path: '/v3/kv/txn',
    body: {
      compare: [
        { key: b64('a'), target: 'MOD', result: 'EQUAL', mod_revision: '9' },
        { key: b64('zz'), target: 'CREATE', result: 'EQUAL', create_revision: '0' },
      ],
      success: [],
      failure: [{ request_range: { key: b64('a') } }, { request_range: { key: b64('zz') } }],
    },
  },
  { path: '/v3/kv/range', body: { key: b64('\0'), range_end: b64('\0') } },
  { path: '/v3/kv/range', body: { key: b64('c/'), range_end: b64('c0'), limit: '1', keys_only: true } },
  { path: '/v3/kv/range', body: { key: b64('\0'), count_only: true } },
  { path: '/v3/kv/range', body: { key: b64('c/'), range_end: b64('c0'), count_only: true } },
  { path: '/v3/kv/txn', body: { success: [put('d', '1'), put('d', '2')] } },
  { path: '/v3/kv/txn', body: { success: [{ request_delete_range: { key: b64('c/'), range_end: b64('c0') } }, put('c/3', 'z')] } },
  {
    path: '/v3/kv/txn',
    body: {
      success: [
        { request_delete_range: { key: b64('c/'), range_end: b64('c0') } },
        { request_delete_range: { key: b64('b') } },
        { request_delete_range: { key: b64('nothing') } },
      ],
    },
  },
  { path: '/v3/lease/grant', body: { TTL: '30' } },
  { path: '/v3/kv/txn', body: { success: [put('e', 'leased', true)] } },
  { path: '/v3/lease/keepalive', body: { ID: '$LEASE' } },
  { path: '/v3/lease/revoke', body: { ID: '$LEASE' } },
  { path: '/v3/lease/keepalive', body: { ID: '$LEASE' } },
  { path: '/v3/lease/revoke', body: { ID: '$LEASE' } },
  { path: '/v3/kv/txn', body: { success: [put('e', 'leased', true)] } },
  {
    // From now on (no start_revision): etcd's watcher is synced, so each revision is its own message.
    // (A watch from the past catches up every 100 ms in etcd, grouping what arrived meanwhile.)
    watch: { create_request: { key: b64('w/'), range_end: b64('w0') } },
    lines: 4,
    during: [
      { path: '/v3/kv/txn', body: { success: [put('w/1', 'a'), put('w/2', 'b')] } },
      { path: '/v3/kv/txn', body: { success: [{ request_delete_range: { key: b64('w/1') } }] } },
      { path: '/v3/kv/txn', body: { success: [put('x', 'not watched')] } },
      { path: '/v3/kv/txn', body: { success: [put('w/3', 'c')] } },
    ],
  },
  { watch: { create_request: { key: b64('w/'), range_end: b64('w0'), start_revision: '5' } }, lines: 2 },
  { path: '/v3/kv/compaction', body: { revision: '100' } },
  { path: '/v3/kv/compaction', body: { revision: '6' } },
  { path: '/v3/kv/compaction', body: { revision: '5' } },
  { watch: { create_request: { key: b64('w/'), range_end: b64('w0'), start_revision: '3' } }, lines: 2 },
  { path: '/v3/kv/range', body: { key: b64('a'), revision: '100' } },
  { path: '/v3/kv/range', body: {} },
];

describe('the served embedded store speaks etcd 3.4.23 JSON gateway', () => {
  it('answers the scripted requests with the same statuses and bodies as a real etcd member', async () => {
    const expected = await transcript(etcd!.endpoints[0], script);
    const actual = await transcript(served!.url, script);
    expect(actual).toEqual(expected);
    expect(expected.length).toBeGreaterThan(30);
    const health = await Promise.all(
      [etcd!.endpoints[0], served!.url].map(async (u) => {
        const res = await fetch(`${u}/health`);
        return [res.status, res.headers.get('content-type'), await res.text()];
      }),
    );
    expect(health[1]).toEqual(health[0]);
  });
});
