/**
 * The syntax flags of ES's `regexp` query (`RegexpFlag`, Lucene `RegExp` flag bits), shared by the
 * coordinator (which parses `flags`) and the shard nodes (which compile the pattern:
 * shard-node/engine/regexp-parse.ts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/query-dsl-regexp-query.html#regexp-optional-params
 */

/** Syntax flag bits (Lucene `RegExp`, ES `RegexpFlag`). */
export const RegexpFlags = {
  INTERSECTION: 0x01,
  COMPLEMENT: 0x02,
  EMPTY: 0x04,
  ANYSTRING: 0x08,
  INTERVAL: 0x20,
  /** Every optional operator (Lucene 9 `RegExp.ALL` is 0xff; ES masks its own 0xffff to it). */
  ALL: 0xff,
  NONE: 0,
} as const;

const FLAG_NAMES = new Map<string, number>([
  ['INTERSECTION', RegexpFlags.INTERSECTION],
  ['COMPLEMENT', RegexpFlags.COMPLEMENT],
  ['EMPTY', RegexpFlags.EMPTY],
  ['ANYSTRING', RegexpFlags.ANYSTRING],
  ['INTERVAL', RegexpFlags.INTERVAL],
  ['NONE', RegexpFlags.NONE],
  ['ALL', 0xffff],
]);

/**
 * ES `RegexpFlag.resolveValue`: `|`-separated flag names, case-insensitive, empty names skipped;
 * an empty string or `ALL` anywhere means every flag.
 * @throws Error `Unknown regexp flag [x]` (the caller wraps it as ES does).
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/query/RegexpFlag.java
 */
export function resolveRegexpFlags(flags: string): number {
  if (flags === '') return 0xffff;
  let value = 0;
  for (const name of flags.split('|')) {
    if (name === '') continue;
    const bit = FLAG_NAMES.get(name.toUpperCase());
    if (bit === undefined) throw new Error(`Unknown regexp flag [${name}]`);
    if (bit === 0xffff) return bit;
    value |= bit;
  }
  return value;
}

/** ES `RegexpQueryBuilder.DEFAULT_MAX_DETERMINIZED_STATES` (Lucene's determinize budget). */
export const DEFAULT_MAX_DETERMINIZED_STATES = 10_000;
