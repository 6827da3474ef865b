/**
 * The aggregation tasks of the bench (issue 12): Rally's `country_agg_uncached` (geonames track:
 * `size: 0`, `terms` on country with a `sum` of population per bucket) and a high-cardinality
 * `terms` on the city name keyword, each with its SphinxQL `GROUP BY` twin and an oracle computed
 * from the corpus columns. Folio's buckets must equal the oracle (keys, counts, order: count
 * descending, then key by code point; sums); Sphinx's rows are checked for exact counts, ties in
 * any order (its distributed `GROUP BY` merges each agent's first `max_matches` groups, so a
 * high-cardinality group count can come out low).
 * @see https://github.com/elastic/rally-tracks/blob/master/geonames/operations/default.json
 * @see docs/performance.md (Aggregations)
 */
import type { Corpus } from './corpus.ts';

/** Buckets the tasks ask for. */
export const AGG_SIZE = 10;

/** One expected or returned bucket. */
export interface AggBucket {
  key: string;
  count: number;
  /** Sum of population in the bucket (country task only). */
  sum?: number;
}

/** An aggregation task. */
export interface AggTask {
  name: string;
  description: string;
  /** Folio `_search` body. */
  body: Record<string, unknown>;
  /** SphinxQL statements of the same question: the default one, and variants worth a row (label → SQL). */
  sphinx: { label: string; sql: string }[];
  /** The bucket key of corpus document i. */
  groupKey(corpus: Corpus): (i: number) => string;
  /** Whether buckets carry the sum of population. */
  withSum: boolean;
  /** Folio's buckets from a reply's `aggregations`. */
  folioBuckets(aggregations: Record<string, unknown>): AggBucket[];
  /** Sphinx's buckets from its rows. */
  sphinxBuckets(rows: Record<string, unknown>[]): AggBucket[];
}

/** Code point order (keys are compared as ES compares terms: by their UTF-8 bytes). */
function byCodePoint(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return Buffer.compare(x, y);
}

/** The first `size` groups of `keyOf` by count descending, then key, with the sum of `value`. */
function topGroups(corpus: Corpus, keyOf: (i: number) => string, withSum: boolean, size: number): AggBucket[] {
  const groups = new Map<string, AggBucket>();
  for (let i = 0; i < corpus.size; i++) {
    const key = keyOf(i);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, count: 0, ...(withSum ? { sum: 0 } : {}) }));
    g.count++;
    if (withSum) g.sum! += corpus.population[i];
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || byCodePoint(a.key, b.key)).slice(0, size);
}

type TermsReply = { buckets: { key: string; doc_count: number; sum_population?: { value: number } }[] };

/** Rally's `country_agg_uncached` and the city-name terms. */
export const AGG_TASKS: AggTask[] = [
  {
    name: 'country_agg_uncached',
    description: 'size 0, terms country (size 10) + sum population per bucket',
    body: { size: 0, aggs: { country_population: { terms: { field: 'country' }, aggs: { sum_population: { sum: { field: 'population' } } } } } },
    sphinx: [
      {
        label: 'GROUP BY country',
        sql: `SELECT country, COUNT(*) AS c, SUM(population) AS p FROM cities GROUP BY country ORDER BY COUNT(*) DESC, country ASC LIMIT 0,${AGG_SIZE}`,
      },
    ],
    groupKey: (c) => (i) => c.country[i],
    withSum: true,
    folioBuckets: (a) => (a.country_population as TermsReply).buckets.map((b) => ({ key: b.key, count: b.doc_count, sum: b.sum_population!.value })),
    sphinxBuckets: (rows) => rows.map((r) => ({ key: String(r.country), count: Number(r.c), sum: Number(r.p) })),
  },
  {
    name: 'terms_name_keyword',
    description: 'size 0, terms name.keyword (size 10): ~119,000 distinct names',
    body: { size: 0, aggs: { names: { terms: { field: 'name.keyword' } } } },
    sphinx: [
      { label: 'GROUP BY name', sql: `SELECT name, COUNT(*) AS c FROM cities GROUP BY name ORDER BY COUNT(*) DESC, name ASC LIMIT 0,${AGG_SIZE}` },
      {
        label: 'GROUP BY name, max_matches 200,000',
        sql: `SELECT name, COUNT(*) AS c FROM cities GROUP BY name ORDER BY COUNT(*) DESC, name ASC LIMIT 0,${AGG_SIZE} OPTION max_matches=200000`,
      },
    ],
    groupKey: (c) => (i) => c.name[i],
    withSum: false,
    folioBuckets: (a) => (a.names as TermsReply).buckets.map((b) => ({ key: b.key, count: b.doc_count })),
    sphinxBuckets: (rows) => rows.map((r) => ({ key: String(r.name), count: Number(r.c) })),
  },
];

/** Every group of a task over the corpus, by count descending then key (the oracle is its first {@link AGG_SIZE}). */
export function allGroups(task: AggTask, corpus: Corpus): AggBucket[] {
  return topGroups(corpus, task.groupKey(corpus), task.withSum, Infinity);
}

/** Folio's check: the same buckets in the same order, counts and sums equal. */
export function sameBuckets(got: readonly AggBucket[], want: readonly AggBucket[]): boolean {
  return (
    got.length === want.length &&
    got.every((b, i) => b.key === want[i].key && b.count === want[i].count && (want[i].sum === undefined || b.sum === want[i].sum))
  );
}

/**
 * Sphinx's check: exact counts (and sums) for every returned group, and the same count at every
 * rank as the oracle; the order among equal counts may differ (Sphinx's string collation is not
 * code point order).
 */
export function sameCounts(got: readonly AggBucket[], groups: readonly AggBucket[]): boolean {
  const want = groups.slice(0, AGG_SIZE);
  if (got.length !== want.length || got.some((b, i) => b.count !== want[i].count)) return false;
  const all = new Map(groups.map((b) => [b.key, b]));
  return got.every((b) => all.get(b.key)?.count === b.count && (b.sum === undefined || all.get(b.key)?.sum === b.sum));
}
