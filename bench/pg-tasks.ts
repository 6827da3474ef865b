/**
 * The tasks of issue 17's PostgreSQL comparison, each as the Folio `_search` body and the SQL a
 * PostgreSQL user would send for the same page, plus the page (or count) the bench expects from
 * the corpus held in memory. Every sorted task orders by population desc with ties on the id
 * (Folio: `_id`, its documented tie-break; PostgreSQL: `id COLLATE "C"`), so both engines must
 * return the same rows, and the bench checks that before it times anything.
 * @see ../docs/compatibility.md (Deliberate deviations: ties after the requested sort are broken on `_id`)
 */
import type { Corpus } from './corpus.ts';
import { byPopulation, sortedPositions } from './tasks.ts';

/** Rows per page. */
export const PG_PAGE_SIZE = 10;
/** Country of the filtered page and of the count. */
export const PG_COUNTRY = 'US';
/** Word of the full-text task (about 24 k of the 1 M names). */
export const PG_WORD = 'san';
/** Depth of the keyset page and the first OFFSET page. */
export const KEYSET_DEPTH = 100_000;

/** What a task's first run must give. */
export type Expected = { ids: string[] } | { count: number } | null;

/** One task on both engines. */
export interface PgTask {
  name: string;
  /** Folio `_search` body. */
  folio: Record<string, unknown>;
  /** The PostgreSQL statement (one pgbench transaction). */
  sql: string;
  /** True when the task is a count (its result is one number, not a page of ids). */
  count: boolean;
  /** Ids of the page (or the count) from the corpus; null when the bench has no oracle (full text). */
  expected: Expected;
  /** Why the task cannot run on this corpus (too few rows for its depth). */
  skip?: string;
}

/** A SQL string literal. */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

const ORDER = 'ORDER BY population DESC, id COLLATE "C"';
const matchAll = { match_all: {} };
const byPopDesc = [{ population: 'desc' }];
const fullText = `to_tsvector('simple', name) @@ to_tsquery('simple', ${sqlString(PG_WORD)})`;

/** Keyset condition for "after (population, id)" in population DESC, id ASC order, written so the B-tree can start at `population <= p`. */
export function keysetWhere(population: number, id: string): string {
  return `population <= ${population} AND (population < ${population} OR id COLLATE "C" > ${sqlString(id)})`;
}

/**
 * Builds the tasks for `corpus`; `tieField` is the Folio field the keyset sort ends with (`_id`,
 * or its keyword copy `uid` when the coordinator does not sort on `_id`).
 */
export function pgTasks(corpus: Corpus, tieField: string): PgTask[] {
  const desc = sortedPositions(corpus, () => true, byPopulation(corpus, -1));
  const inCountry = sortedPositions(corpus, (i) => corpus.country[i] === PG_COUNTRY, byPopulation(corpus, -1));
  const page = (order: Int32Array, from: number) => ({ ids: Array.from(order.subarray(from, from + PG_PAGE_SIZE), (i) => corpus.ids[i]) });
  const deep = (from: number) => (from + PG_PAGE_SIZE > corpus.size ? `needs ${from + PG_PAGE_SIZE} rows, the corpus has ${corpus.size}` : undefined);
  const last = desc[Math.min(KEYSET_DEPTH, corpus.size) - 1];
  const offsetTask = (from: number): PgTask => ({
    name: `offset ${from / 1000}k`,
    folio: { query: matchAll, sort: byPopDesc, from, size: PG_PAGE_SIZE },
    sql: `SELECT * FROM cities ${ORDER} LIMIT ${PG_PAGE_SIZE} OFFSET ${from}`,
    count: false,
    expected: deep(from) ? null : page(desc, from),
    skip: deep(from),
  });
  return [
    {
      name: 'sorted page 1',
      folio: { query: matchAll, sort: byPopDesc, size: PG_PAGE_SIZE },
      sql: `SELECT * FROM cities ${ORDER} LIMIT ${PG_PAGE_SIZE}`,
      count: false,
      expected: page(desc, 0),
    },
    {
      name: `filtered page 1 (country=${PG_COUNTRY})`,
      folio: { query: { term: { country: PG_COUNTRY } }, sort: byPopDesc, size: PG_PAGE_SIZE },
      sql: `SELECT * FROM cities WHERE country = ${sqlString(PG_COUNTRY)} ${ORDER} LIMIT ${PG_PAGE_SIZE}`,
      count: false,
      expected: page(inCountry, 0),
    },
    {
      name: `keyset at ${KEYSET_DEPTH / 1000}k (Folio search_after)`,
      folio: {
        query: matchAll,
        sort: [{ population: 'desc' }, { [tieField]: 'asc' }],
        search_after: [corpus.population[last], corpus.ids[last]],
        size: PG_PAGE_SIZE,
      },
      sql: `SELECT * FROM cities WHERE ${keysetWhere(corpus.population[last], corpus.ids[last])} ${ORDER} LIMIT ${PG_PAGE_SIZE}`,
      count: false,
      expected: deep(KEYSET_DEPTH) ? null : page(desc, KEYSET_DEPTH),
      skip: deep(KEYSET_DEPTH),
    },
    offsetTask(KEYSET_DEPTH),
    offsetTask(900_000),
    {
      name: `full text (name: ${PG_WORD}, by population)`,
      folio: { query: { match: { name: PG_WORD } }, sort: byPopDesc, size: PG_PAGE_SIZE },
      sql: `SELECT * FROM cities WHERE ${fullText} ${ORDER} LIMIT ${PG_PAGE_SIZE}`,
      count: false,
      expected: null,
    },
    {
      name: `exact count (country=${PG_COUNTRY})`,
      folio: { query: { term: { country: PG_COUNTRY } }, size: 0, track_total_hits: true },
      sql: `SELECT count(*) FROM cities WHERE country = ${sqlString(PG_COUNTRY)}`,
      count: true,
      expected: { count: inCountry.length },
    },
  ];
}

/** The count statement of a paged task (for the full-text check: both engines must match the same rows). */
export function countSql(task: PgTask): string {
  return task.sql.replace(/^SELECT \* /, 'SELECT count(*) ').replace(/ ORDER BY .*$/, '');
}
