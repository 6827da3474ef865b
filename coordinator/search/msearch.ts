/**
 * `_msearch`: several searches in one request, each run through the ordinary search path
 * (search.ts), at most `max_concurrent_searches` at a time, answered in request order. A search
 * that fails becomes its item's error (`{"error": {...}, "status": N}`) and the others go on; the
 * request itself fails only when its body cannot be parsed, as ES parses every search body in the
 * REST layer before any runs (`RestMultiSearchAction.parseRequest`, `TransportMultiSearchAction`).
 * See docs/sliced-walks-and-by-query.md.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-multi-search.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/search/TransportMultiSearchAction.java
 */
import { EsError, toEsError, type ErrorBody } from '../../protocol/errors.ts';
import { EventLoopSlices } from '../../shared/event-loop-slices.ts';
import { parseSearchRequest } from '../rest/search-request.ts';
import type { MsearchItem } from '../rest/msearch-parse.ts';
import type { SearchResponseBody } from './respond.ts';
import { search, type SearchDeps } from './search.ts';

/** One entry of `responses`: a search response with its `status`, or an error body. */
export type MsearchResponseItem = (SearchResponseBody & { status: number }) | ErrorBody;

/** The `_msearch` response body (`MultiSearchResponse`). */
export interface MsearchResponse {
  took: number;
  responses: MsearchResponseItem[];
}

/** True for Folio's own refusal of a feature ES has: it fails only its item, not the request. */
function isNotYetSupported(err: unknown): boolean {
  return err instanceof EsError && err.message.endsWith('is not supported by Folio yet');
}

/**
 * Checks every item's search request before any runs, as ES parses and validates them all first,
 * in event-loop slices (10,000 searches take a while to parse).
 * @returns per item, the refusal to report as its error (Folio's "not supported yet"), or null.
 * @throws EsError the first item's parse or validation error (the whole request fails, as in ES)
 */
export async function validateItems(items: readonly MsearchItem[], path: string): Promise<(EsError | null)[]> {
  const slices = new EventLoopSlices();
  const refused: (EsError | null)[] = [];
  for (const item of items) {
    try {
      parseSearchRequest(item.params, item.body, path);
      refused.push(null);
    } catch (err) {
      if (!isNotYetSupported(err)) throw err;
      refused.push(err as EsError);
    }
    const pause = slices.tick();
    if (pause) await pause;
  }
  return refused;
}

/**
 * Runs the items, at most `maxConcurrent` at a time, and collects their responses in order.
 * @param refused per item, an error to answer without running it (from {@link validateItems}).
 */
export async function runMultiSearch(
  items: readonly MsearchItem[],
  opts: { maxConcurrent: number; path: string; signal: AbortSignal; refused?: readonly (EsError | null)[] },
  deps: SearchDeps,
): Promise<MsearchResponse> {
  const startedAt = Date.now();
  const responses = new Array<MsearchResponseItem>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) {
      const item = items[i];
      const refused = opts.refused?.[i];
      try {
        if (refused) throw refused;
        const body = await search({ indexExpression: item.indexExpression, params: item.params, body: item.body, path: opts.path, signal: opts.signal }, deps);
        responses[i] = { ...body, status: 200 };
      } catch (err) {
        responses[i] = toEsError(err).toBody();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.maxConcurrent, items.length) }, worker));
  return { took: Date.now() - startedAt, responses };
}
