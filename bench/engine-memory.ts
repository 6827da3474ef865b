/**
 * Where a shard engine's memory goes, per document, for the memory target of issue 3 (≤ 1.3 × raw
 * `_source`, excluding the inverted index). Run as its own process with `--expose-gc`
 * (`node --expose-gc bench/engine-memory.ts <docs>`, called by `npm run bench`): it indexes the
 * bench corpus into one shard engine in process (5,000-doc batches with a refresh each, as the bench's
 * bulk load does), forces a GC, and reads V8 heap + external bytes. Each structure's share is then
 * measured the same way, by dropping it and reading again, so every figure is a real heap delta,
 * not an estimate. Prints one JSON line ({@link EngineMemory}).
 */
import { buildCorpus } from './corpus.ts';
import { indexInBatches, newShard } from '../test/support/engine-shard.ts';
import type { Segment } from '../shard-node/engine/segment.ts';
import type { Mapping } from '../protocol/mapping.ts';

/** Bytes per document of one shard engine, by structure (heap + external, after a forced GC). */
export interface EngineMemory {
  docs: number;
  rawSourcePerDoc: number;
  totalPerDoc: number;
  /** Postings, norms and term dictionaries of every field. */
  invertedPerDoc: number;
  /** Everything else: total minus the inverted index (the target's figure). */
  excludingInvertedPerDoc: number;
  /** The compressed `_source` blocks and their offsets (exact byte counts). */
  sourcePerDoc: number;
  /** Keyword and numeric doc values, `exists` bitsets. */
  docValuesPerDoc: number;
  /** `_id` strings, the `_id` hash tables, and the live version map. */
  idsPerDoc: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

function heap(): number {
  gc!();
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** Builds one engine over `docs` bench documents and measures it. @throws without `--expose-gc` */
export function measureEngineMemory(docs: number): EngineMemory {
  if (!gc) throw new Error('run with node --expose-gc');
  const corpus = buildCorpus(docs);
  const sample = corpus.sample(1, 2_000_000);
  const before = heap();
  const { shard } = newShard(sample.index.mappings as Mapping);
  indexInBatches(shard, sample.docs());
  const total = heap() - before;
  const segments: Segment[] = shard.acquire().views.map((v) => v.segment);
  const sourceBytes = segments.reduce((n, s) => n + s.sources.byteLength, 0);
  const drop = (f: (s: Segment) => void): number => {
    const a = heap();
    for (const s of segments) f(s);
    return a - heap();
  };
  const inverted = drop((s) => s.inverted.clear());
  const docValues = drop((s) => {
    s.strings.clear();
    s.numeric.clear();
    s.exists.clear();
  });
  const mutable = (s: Segment) => s as unknown as { ids: string[] | null; idToOrd: unknown };
  const ids =
    drop((s) => {
      mutable(s).ids = null;
      mutable(s).idToOrd = null;
    }) + drop(() => (shard as unknown as { state: { versions: { entries: Map<string, unknown> } } }).state.versions.entries.clear());
  const per = (x: number) => x / docs;
  return {
    docs,
    rawSourcePerDoc: corpus.rawSourceBytesPerDoc,
    totalPerDoc: per(total),
    invertedPerDoc: per(inverted),
    excludingInvertedPerDoc: per(total - inverted),
    sourcePerDoc: per(sourceBytes),
    docValuesPerDoc: per(docValues),
    idsPerDoc: per(ids),
  };
}

if (import.meta.main) {
  console.log(JSON.stringify(measureEngineMemory(Number(process.argv[2] ?? 250_000))));
}
