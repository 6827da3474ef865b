/**
 * Coordinator-side CPU of one shard call by how its reply is read (issue 17): undici `request()`
 * with `body.arrayBuffer()` (a Readable per reply) against `Dispatcher.dispatch` with a handler
 * that keeps the chunks (coordinator/transport/request-bytes.ts). One trivial node:http server in
 * a child process (bench/trivial-server.ts), one keep-alive connection, `n` calls in a row, the two
 * ways alternated in rounds; prints this process's CPU (user + system) per call.
 * Usage: `node bench/reply-read.ts [calls per round, default 5000] [rounds, default 5]`
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { requestBytes } from '../coordinator/transport/request-bytes.ts';

const SERVER = fileURLToPath(new URL('./trivial-server.ts', import.meta.url));
const BODY = JSON.stringify({ index: 'bench', shard: 0, query: { kind: 'match_all', boost: 1 }, k: 10 });
const calls = Number(process.argv[2] ?? 5000);
const rounds = Number(process.argv[3] ?? 5);

const child = spawn(process.execPath, [SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve) => {
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (s: string) => {
    const m = /ready (\d+)/.exec(s);
    if (m) resolve(Number(m[1]));
  });
});
const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
const req = { path: '/_internal/v1/query', method: 'POST' as const, headers: { 'content-type': 'application/json' }, body: BODY };
const ways: Record<string, () => Promise<number>> = {
  'request() + arrayBuffer()': async () => {
    const res = await pool.request(req);
    return (await res.body.arrayBuffer()).byteLength;
  },
  'dispatch, chunks kept': async () => (await requestBytes(pool, req)).bytes.byteLength,
};
const results = new Map<string, number[]>();
for (let r = 0; r < rounds; r++) {
  for (const [name, call] of Object.entries(ways)) {
    for (let i = 0; i < 500; i++) await call();
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) await call();
    const used = process.cpuUsage(before);
    results.set(name, [...(results.get(name) ?? []), (used.user + used.system) / calls]);
  }
}
for (const [name, us] of results)
  console.log(`${name}: ${us.map((x) => x.toFixed(1)).join(', ')} µs CPU per call (median ${[...us].sort((a, b) => a - b)[us.length >> 1].toFixed(1)})`);
await pool.close();
child.kill('SIGTERM');
