/**
 * Parses the search body's `slice: {id, max, field?}` (ES `SliceBuilder.fromXContent`) into the
 * {@link SliceSpec} that protocol/slice.ts splits among a search's shards.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/paginate-search-results.html#slice-scroll
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/slice/SliceBuilder.java
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { didYouMean, scalarText, tokenName, xContentError, xContentInt } from './params.ts';
import type { SliceSpec } from '../../protocol/slice.ts';

const SLICE_FIELDS = ['field', 'id', 'max'];

/** ES's `ObjectParser` wrapping of a setter's refusal: `[slice] failed to parse field [k]`. */
function fieldFailure(k: string, reason: string) {
  return xContentError(`[slice] failed to parse field [${k}]`, { type: 'illegal_argument_exception', reason });
}

/**
 * `SliceBuilder.fromXContent`: keys in body order, each setter checking as ES's does (`id ≥ 0`,
 * `max > 1`, `id < max`, whichever comes second reporting the pair).
 * @throws EsError 400 `x_content_parse_exception` `[1:1] [slice] failed to parse field [max]` caused
 *   by `max must be greater than 1` / `max must be greater than id` / `id must be greater than or
 *   equal to 0`; `[slice] unknown field [x]`; a missing `id` or `max` as the setter's refusal of
 *   ES's unset value (-1), a top-level 400 `illegal_argument_exception`.
 */
export function parseSlice(v: Record<string, unknown>): SliceSpec {
  let id = -1;
  let max = -1;
  let field: string | undefined;
  for (const [k, x] of Object.entries(v)) {
    if (k === 'field') {
      if (x !== null && typeof x === 'object') throw xContentError(`[slice] field doesn't support values of type: ${tokenName(x)}`);
      field = x === null ? undefined : scalarText(x);
    } else if (k === 'id') {
      const n = xContentInt(x);
      if (n < 0) throw fieldFailure(k, 'id must be greater than or equal to 0');
      if (max !== -1 && n >= max) throw fieldFailure(k, 'max must be greater than id');
      id = n;
    } else if (k === 'max') {
      const n = xContentInt(x);
      if (n <= 1) throw fieldFailure(k, 'max must be greater than 1');
      if (id !== -1 && id >= n) throw fieldFailure(k, 'max must be greater than id');
      max = n;
    } else throw xContentError(`[slice] unknown field [${k}]${didYouMean(k, SLICE_FIELDS)}`);
  }
  if (id === -1) throw illegalArgument('id must be greater than or equal to 0');
  if (max === -1) throw illegalArgument('max must be greater than 1');
  return { id, max, ...(field !== undefined ? { field } : {}) };
}
