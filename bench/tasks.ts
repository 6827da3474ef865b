/**
 * The bench tasks, named as in Rally's geonames track, each as a Folio search body, the SphinxQL
 * statement of the peer where Sphinx has an equivalent, and the oracle order where the bench can
 * compute it (the corpus sorted in memory by the same total order: sort values, then `_id`).
 * @see https://github.com/elastic/rally-tracks/tree/master/geonames
 */
import type { Corpus } from './corpus.ts';

/** The `from` values every paged task runs at. */
export const FROMS = [0, 10_000, 100_000, 900_000];
/** Page size of the paged tasks. */
export const PAGE_SIZE = 10;
/** Country of the `term` task (Rally uses AT: 2,244 cities ≈ 16.6 k docs here, too few for from = 100,000). */
export const TERM_COUNTRY = 'US';
/** Phrase of the `phrase` task. */
export const PHRASE = 'san jose';
/** Pages and page size of the `scroll` task. */
export const SCROLL_PAGES = 25;
/** Hits per page of the `scroll` task. */
export const SCROLL_PAGE_SIZE = 1000;

/** A task paged with `from`/`size`. */
export interface PagedTask {
  name: string;
  /** What the task sends, for the output. */
  description: string;
  /** Folio `_search` body. */
  body(from: number, size: number): Record<string, unknown>;
  /** SphinxQL of the same page, or null when Sphinx has no equivalent. */
  sphinx(from: number, size: number): string | null;
  /** Corpus positions of the matches in the task's order, or null when the bench has no oracle. */
  oracle(corpus: Corpus): Int32Array | null;
}

/** `OPTION max_matches` for a page: Sphinx's default is 1000, a deep page needs `from + size`. */
function maxMatches(from: number, size: number): string {
  return from + size > 1000 ? ` OPTION max_matches=${from + size}` : '';
}

/** Positions of `corpus` passing `keep`, sorted by `cmp`. */
export function sortedPositions(corpus: Corpus, keep: (i: number) => boolean, cmp: (a: number, b: number) => number): Int32Array {
  const out: number[] = [];
  for (let i = 0; i < corpus.size; i++) if (keep(i)) out.push(i);
  return Int32Array.from(out).sort(cmp);
}

/** `_id` order (code units; the bench's ids are ASCII, so the same as code points). */
function byId(corpus: Corpus): (a: number, b: number) => number {
  const ids = corpus.ids;
  return (a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0);
}

/** Population order (`dir` 1 asc, -1 desc), ties on `_id`. */
export function byPopulation(corpus: Corpus, dir: 1 | -1): (a: number, b: number) => number {
  const pop = corpus.population;
  const id = byId(corpus);
  return (a, b) => (pop[a] !== pop[b] ? dir * (pop[a] - pop[b]) : id(a, b));
}

const matchAll = { match_all: {} };

/** The five paged tasks. */
export const PAGED_TASKS: PagedTask[] = [
  {
    name: 'default',
    description: 'match_all (score order: all ties, so _id order)',
    body: (from, size) => ({ query: matchAll, from, size }),
    sphinx: (from, size) => `SELECT * FROM cities ORDER BY id ASC LIMIT ${from},${size}${maxMatches(from, size)}`,
    oracle: (c) => sortedPositions(c, () => true, byId(c)),
  },
  {
    name: 'term',
    description: `term country=${TERM_COUNTRY}, sorted by population desc`,
    body: (from, size) => ({ query: { term: { country: TERM_COUNTRY } }, sort: [{ population: 'desc' }], from, size }),
    sphinx: (from, size) =>
      `SELECT * FROM cities WHERE country='${TERM_COUNTRY}' ORDER BY population DESC, id ASC LIMIT ${from},${size}${maxMatches(from, size)}`,
    oracle: (c) => sortedPositions(c, (i) => c.country[i] === TERM_COUNTRY, byPopulation(c, -1)),
  },
  {
    name: 'phrase',
    description: `match_phrase name "${PHRASE}" (BM25 order)`,
    body: (from, size) => ({ query: { match_phrase: { name: PHRASE } }, from, size }),
    sphinx: (from, size) => `SELECT * FROM cities WHERE MATCH('"${PHRASE}"') ORDER BY WEIGHT() DESC, id ASC LIMIT ${from},${size}${maxMatches(from, size)}`,
    oracle: () => null,
  },
  {
    name: 'desc_sort_population',
    description: 'match_all sorted by population desc',
    body: (from, size) => ({ query: matchAll, sort: [{ population: 'desc' }], from, size }),
    sphinx: (from, size) => `SELECT * FROM cities ORDER BY population DESC, id ASC LIMIT ${from},${size}${maxMatches(from, size)}`,
    oracle: (c) => sortedPositions(c, () => true, byPopulation(c, -1)),
  },
  {
    name: 'asc_sort_population',
    description: 'match_all sorted by population asc',
    body: (from, size) => ({ query: matchAll, sort: [{ population: 'asc' }], from, size }),
    sphinx: (from, size) => `SELECT * FROM cities ORDER BY population ASC, id ASC LIMIT ${from},${size}${maxMatches(from, size)}`,
    oracle: (c) => sortedPositions(c, () => true, byPopulation(c, 1)),
  },
];

/** Folio body of one scroll page: population asc then the tie-break field, after `after` when given. */
export function scrollBody(tieField: string, after: unknown[] | null): Record<string, unknown> {
  return {
    query: matchAll,
    size: SCROLL_PAGE_SIZE,
    sort: [{ population: 'asc' }, { [tieField]: 'asc' }],
    ...(after ? { search_after: after } : {}),
  };
}

/** SphinxQL of one scroll page: population asc, id asc, strictly after (`population`, `id`) when given. */
export function scrollSphinx(after: { population: number; id: number } | null): string {
  if (!after) return `SELECT * FROM cities ORDER BY population ASC, id ASC LIMIT 0,${SCROLL_PAGE_SIZE}`;
  const { population: p, id } = after;
  return (
    `SELECT *, IF(population > ${p}, 1, IF(population = ${p} AND id > ${id}, 1, 0)) AS after_key FROM cities ` +
    `WHERE after_key = 1 ORDER BY population ASC, id ASC LIMIT 0,${SCROLL_PAGE_SIZE}`
  );
}
