/**
 * The `indices_boost` of a search body, read as ES's `SearchSourceBuilder` reads it: the array form
 * `[{"index-or-alias": 1.4}, …]` (each entry one index, alias or wildcard with a number) or the
 * deprecated object form `{"a": 2, "b": 1}`. The coordinator resolves each entry to concrete indices
 * (the first entry that matches an index gives its boost) and multiplies the scores of that index's
 * hits by it.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-multiple-indices.html#index-boost
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/builder/SearchSourceBuilder.java (IndexBoost)
 */
import { parsingException } from '../../protocol/errors.ts';
import { isObject, tokenName, xContentFloat } from './params.ts';

/** One entry of `indices_boost`: an index expression and its boost. */
export interface IndexBoost {
  index: string;
  boost: number;
}

/** JSON token of an entry's value as Jackson names it for these errors. */
const token = (v: unknown): string => (typeof v === 'number' ? 'VALUE_NUMBER' : tokenName(v));

/**
 * Parses `indices_boost` (an object or an array; the caller has checked which).
 * @throws EsError 400 `parsing_exception` with ES's texts for a malformed entry
 */
export function parseIndicesBoost(v: unknown): IndexBoost[] {
  if (isObject(v)) {
    return Object.entries(v).map(([index, boost]) => {
      if (boost === null || typeof boost === 'object') throw parsingException(`Unknown key for a ${tokenName(boost)} in [${index}].`);
      return { index, boost: xContentFloat(boost) };
    });
  }
  return (v as unknown[]).map((entry) => {
    if (!isObject(entry)) throw parsingException(`Expected [START_OBJECT] in [indices_boost] but found [${token(entry)}]`);
    const fields = Object.entries(entry);
    if (fields.length === 0) throw parsingException('Expected [FIELD_NAME] in [indices_boost] but found [END_OBJECT]');
    const [index, boost] = fields[0];
    if (typeof boost !== 'number') throw parsingException(`Expected [VALUE_NUMBER] in [indices_boost] but found [${token(boost)}]`);
    if (fields.length > 1) throw parsingException('Expected [END_OBJECT] in [indices_boost] but found [FIELD_NAME]');
    return { index, boost: Math.fround(boost) };
  });
}
