/**
 * Attributes the samples of V8 `.cpuprofile` files (`node --cpu-prof`) to the layers of a search
 * (HTTP, routing, body read, JSON, wire, engine, response build, GC, …) and prints a table of
 * milliseconds and shares per file, plus the top self-time functions. Only the last `--window`
 * seconds of each profile are read, or the samples between `--from` and `--to` (CLOCK_MONOTONIC
 * microseconds, the clock of V8's profile timestamps: bench/page1.ts prints each run's), so start-up,
 * loading and shutdown can be cut off.
 *
 * A sample goes to the layer of the innermost frame that names one (leaf first): V8's JSON
 * builtins, GC, then the module path of the frame's script.
 *
 * Usage: `node bench/cpu-profile-layers.ts [--window 15] [--top 25] <file.cpuprofile>...`
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

/** The parts of a V8 CPU profile read here. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Layer rules in order; the first rule matching a frame (from the leaf up) names the sample's layer. */
const RULES: [layer: string, test: (fn: string, url: string) => boolean][] = [
  ['GC', (fn) => fn === '(garbage collector)'],
  ['idle', (fn) => fn === '(idle)'],
  ['JSON parse/stringify', (fn, url) => url === '' && /^(parse|stringify|JSONParse|JSONStringify)$/.test(fn)],
  ['wire encode/decode', (_, url) => /\/protocol\/wire/.test(url)],
  ['engine', (_, url) => /\/shard-node\/engine\//.test(url)],
  ['shard actions + rpc serve', (_, url) => /\/shard-node\//.test(url)],
  ['body read', (_, url) => /\/shared\/(request-body|body-budget)/.test(url)],
  ['response build (json-writer, respond)', (_, url) => /coordinator\/(http\/json-writer|search\/respond)/.test(url)],
  ['coordinator search phases', (_, url) => /\/coordinator\/search\//.test(url)],
  ['coordinator transport', (_, url) => /\/coordinator\/transport\//.test(url)],
  ['coordinator http + rest', (_, url) => /\/coordinator\//.test(url)],
  ['protocol + shared', (_, url) => /\/(protocol|shared)\//.test(url)],
  ['undici client', (_, url) => /\/undici\//.test(url)],
  ['@hono/node-server adapter', (_, url) => /@hono\/node-server/.test(url)],
  ['hono routing + context', (_, url) => /\/hono\//.test(url)],
  ['logging + metrics', (_, url) => /\/(pino|prom-client|tdigest)/.test(url)],
  ['node:http (parse, serve, write)', (_, url) => /node:_http|node:http/.test(url)],
  ['node:net + streams', (_, url) => /node:(net|stream|internal\/streams|internal\/stream_base)/.test(url)],
  ['node internals (timers, events, web streams, ...)', (_, url) => url.startsWith('node:')],
  ['other JS', (_, url) => url !== ''],
];

/** Layer of one sample (its stack from the leaf node), `program` when no rule matches a frame. */
function layerOf(stack: { functionName: string; url: string }[]): string {
  for (const f of stack) for (const [layer, test] of RULES) if (test(f.functionName, f.url)) return layer;
  return stack[0]?.functionName === '(program)' ? 'V8/native (program)' : 'native, unattributed';
}

/** Milliseconds per layer and per self function over the profile's last `windowS` seconds. */
function attribute(p: CpuProfile, from: number, to: number): { layers: Map<string, number>; self: Map<string, number>; totalMs: number } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const layers = new Map<string, number>();
  const self = new Map<string, number>();
  const cache = new Map<number, string>();
  let t = p.startTime;
  let totalMs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i];
    if (t < from || t > to) continue;
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    const id = p.samples[i];
    let layer = cache.get(id);
    if (layer === undefined) {
      const stack = [];
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) stack.push(byId.get(cur)!.callFrame);
      layer = layerOf(stack);
      cache.set(id, layer);
    }
    if (layer === 'idle') continue;
    totalMs += dt;
    layers.set(layer, (layers.get(layer) ?? 0) + dt);
    const f = byId.get(id)!.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|wt-[^/]+|page1-base)\//, '')}:${f.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + dt);
  }
  return { layers, self, totalMs };
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    window: { type: 'string', default: '15' },
    from: { type: 'string' },
    to: { type: 'string' },
    top: { type: 'string', default: '25' },
    // Searches completed in the window: the summary table then gives µs per search.
    searches: { type: 'string' },
  },
});
const summed = new Map<string, number>();
let summedMs = 0;
for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const from = values.from !== undefined ? Number(values.from) : profile.endTime - Number(values.window) * 1e6;
  const to = values.to !== undefined ? Number(values.to) : profile.endTime;
  const { layers, self, totalMs } = attribute(profile, from, to);
  console.log(`\n## ${file}: ${totalMs.toFixed(0)} ms busy in ${((to - from) / 1e6).toFixed(1)} s`);
  for (const [layer, ms] of [...layers].sort((a, b) => b[1] - a[1])) console.log(`| ${layer} | ${ms.toFixed(0)} | ${((100 * ms) / totalMs).toFixed(1)} % |`);
  console.log('top self:');
  for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
    console.log(`  ${((100 * ms) / totalMs).toFixed(1).padStart(5)} %  ${name}`);
  for (const [layer, ms] of layers) summed.set(layer, (summed.get(layer) ?? 0) + ms);
  summedMs += totalMs;
}
if (positionals.length > 1) {
  const per = values.searches !== undefined ? 1000 / Number(values.searches) : undefined;
  console.log(`\n## all files: ${summedMs.toFixed(0)} ms busy${per ? `, ${(summedMs * per).toFixed(0)} µs per search` : ''}`);
  for (const [layer, ms] of [...summed].sort((a, b) => b[1] - a[1]))
    console.log(`| ${layer} | ${per ? (ms * per).toFixed(0) + ' µs' : ms.toFixed(0) + ' ms'} | ${((100 * ms) / summedMs).toFixed(1)} % |`);
}
