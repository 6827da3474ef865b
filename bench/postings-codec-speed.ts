/**
 * Encode and decode speed of the postings codec (shard-node/engine/columns/postings-codec.ts) in
 * millions of ints per second: `node bench/postings-codec-speed.ts`. Three shapes of 1 M docs:
 * dense (gap 1-3), sparse (gap up to 2,000: about 11 bits) and positional (gap 1-3, freq 1-3,
 * positions under 64). An int is a doc, a freq or a position. Best of 5 runs each.
 */
import { ByteWriter } from '../shard-node/engine/columns/packed-ints.ts';
import { decodeDocs, decodePostings, encodePostings } from '../shard-node/engine/columns/postings-codec.ts';

const N = 1_000_000;

/** Deterministic pseudo-random ints in [0, n). */
function rng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

function docsWithGaps(maxGap: number): Int32Array {
  const r = rng(maxGap);
  const docs = new Int32Array(N);
  for (let i = 0, d = -1; i < N; i++) docs[i] = d += 1 + r(maxGap);
  return docs;
}

function best(runs: number, f: () => void): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    f();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

function report(name: string, docs: Int32Array, freqs: Int32Array | null, positions: Int32Array | null): void {
  const ints = docs.length + (freqs ? freqs.length + positions!.length : 0);
  let bytes: Uint8Array = new Uint8Array(0);
  const enc = best(5, () => {
    const w = new ByteWriter(1 << 20);
    encodePostings(w, docs.length, docs, 0, freqs, positions, 0);
    bytes = w.toBytes();
  });
  const dec = best(5, () => decodePostings(bytes, 0, freqs !== null));
  const decDocs = best(5, () => decodeDocs(bytes, 0, freqs !== null));
  const mips = (ms: number, n: number) => (n / 1e6 / (ms / 1000)).toFixed(0);
  console.log(
    `${name}: ${(bytes.length / docs.length).toFixed(2)} B/doc; encode ${mips(enc, ints)} M ints/s; decode ${mips(dec, ints)} M ints/s; docs only ${mips(decDocs, docs.length)} M docs/s`,
  );
}

report('dense docs (gap 1-3)', docsWithGaps(3), null, null);
report('sparse docs (gap 1-2000)', docsWithGaps(2000), null, null);
const r = rng(7);
const freqs = new Int32Array(N).map(() => 1 + r(3));
const total = freqs.reduce((a, b) => a + b, 0);
const positions = new Int32Array(total);
for (let i = 0, p = 0; i < N; i++) for (let k = 0, last = 0; k < freqs[i]; k++) positions[p++] = last += r(20);
report('positional (gap 1-3, freq 1-3)', docsWithGaps(3), freqs, positions);
