/**
 * The PostgreSQL peer's table: the bench corpus (bench/corpus.ts), the same rows Folio indexes, one
 * column per `_source` field, fed through `COPY … FROM STDIN` (text format) and then indexed as
 * issue 17 says: a primary key on `id`, B-trees on (population DESC, id) and (country, population
 * DESC, id), GIN on `to_tsvector('simple', name)`, then `VACUUM (ANALYZE)` so counts can use
 * index-only scans. `id` is `COLLATE "C"` (byte order): Folio breaks sort ties on `_id` by code
 * unit, and the corpus's ids are ASCII, so both orders are the same and pages can be compared row
 * for row.
 * @see https://www.postgresql.org/docs/15/sql-copy.html (text format escapes)
 */
import { Readable } from 'node:stream';
import type { Corpus, CorpusDoc } from './corpus.ts';
import type { PostgresServer } from './peer-postgres.ts';

/** The table (indexes are built after the load, as a bulk load should). */
export const CREATE_TABLE = `CREATE TABLE cities (
  id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  alt_name text,
  country text NOT NULL,
  feature_code text,
  admin_code text,
  population bigint NOT NULL,
  lat double precision,
  lon double precision
)`;

/** Columns in COPY order (= {@link copyLine}'s fields). */
export const COPY_COLUMNS = ['id', 'name', 'alt_name', 'country', 'feature_code', 'admin_code', 'population', 'lat', 'lon'];

/** The indexes, each one statement. */
export const CREATE_INDEXES = [
  'ALTER TABLE cities ADD PRIMARY KEY (id)',
  'CREATE INDEX cities_population_id ON cities (population DESC, id COLLATE "C")',
  'CREATE INDEX cities_country_population_id ON cities (country, population DESC, id COLLATE "C")',
  "CREATE INDEX cities_name_tsv ON cities USING gin (to_tsvector('simple', name))",
];

/** One COPY text-format field: `\N` for null; backslash, tab, newline and carriage return escaped. */
export function copyField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  return String(v).replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** One COPY line (with its newline) of a corpus document, in {@link COPY_COLUMNS} order. */
export function copyLine(doc: CorpusDoc): string {
  const s = doc.source as {
    name: string;
    altName?: string;
    country: string;
    featureCode?: string;
    adminCode?: string;
    population: number;
    location?: { lat: number; lon: number };
  };
  return `${[doc._id, s.name, s.altName, s.country, s.featureCode, s.adminCode, s.population, s.location?.lat, s.location?.lon].map(copyField).join('\t')}\n`;
}

/** The corpus as a stream of COPY text in chunks of about 1 MB. */
function copyStream(corpus: Corpus): Readable {
  return Readable.from(
    (function* () {
      let chunk = '';
      for (const d of corpus.docs()) {
        chunk += copyLine(d);
        if (chunk.length > 1 << 20) {
          yield chunk;
          chunk = '';
        }
      }
      if (chunk) yield chunk;
    })(),
  );
}

/** Sizes of the table and its indexes, bytes (pg_relation_size and friends). */
export interface RelationSizes {
  /** Heap (main fork) of the table. */
  table: number;
  /** Every index together (pg_indexes_size). */
  indexes: number;
  /** Table + TOAST + indexes (pg_total_relation_size). */
  total: number;
  /** Each index by name. */
  byIndex: Record<string, number>;
}

/** Seconds of each load step. */
export interface LoadTimes {
  copySeconds: number;
  indexSeconds: number;
  vacuumSeconds: number;
}

/** Creates the table, COPYs the corpus, builds the indexes, vacuums; checks the row count. */
export async function loadPostgres(server: PostgresServer, corpus: Corpus): Promise<LoadTimes> {
  await server.sql(CREATE_TABLE);
  let t0 = performance.now();
  await server.sql(`COPY cities (${COPY_COLUMNS.join(', ')}) FROM STDIN`, copyStream(corpus));
  const copySeconds = (performance.now() - t0) / 1000;
  t0 = performance.now();
  for (const statement of CREATE_INDEXES) await server.sql(statement);
  const indexSeconds = (performance.now() - t0) / 1000;
  t0 = performance.now();
  await server.sql('VACUUM (ANALYZE) cities');
  const vacuumSeconds = (performance.now() - t0) / 1000;
  const [[rows]] = await server.sql('SELECT count(*) FROM cities');
  if (Number(rows) !== corpus.size) throw new Error(`COPY loaded ${rows} rows, the corpus has ${corpus.size}`);
  return { copySeconds, indexSeconds, vacuumSeconds };
}

/** Reads the table's and indexes' sizes. */
export async function relationSizes(server: PostgresServer): Promise<RelationSizes> {
  const [[table, indexes, total]] = await server.sql("SELECT pg_relation_size('cities'), pg_indexes_size('cities'), pg_total_relation_size('cities')");
  const rows = await server.sql("SELECT indexrelid::regclass, pg_relation_size(indexrelid) FROM pg_index WHERE indrelid = 'cities'::regclass ORDER BY 1");
  return { table: Number(table), indexes: Number(indexes), total: Number(total), byIndex: Object.fromEntries(rows.map(([n, b]) => [n, Number(b)])) };
}
