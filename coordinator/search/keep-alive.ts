/**
 * ES's bound on cursor keep-alives (`search.max_keep_alive`, default 24h): a PIT or scroll whose
 * requested keep-alive is longer is refused before anything is opened, so that no client can hold
 * a node's context slots for ever. Checked for opening a PIT, searching with a PIT's `keep_alive`,
 * starting a scroll and continuing one with `scroll`.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/SearchService.java (checkKeepAliveLimit)
 */
import { illegalArgument } from '../../protocol/errors.ts';
import { formatTimeValue } from '../../shared/time-value.ts';

/** ES's default `search.max_keep_alive`: 24 h. */
export const DEFAULT_MAX_KEEP_ALIVE_MS = 86_400_000;

/**
 * @throws EsError 400 `illegal_argument_exception` `Keep alive for request (1d) is too large. It must
 *   be less than (1d). This limit can be set by changing the [search.max_keep_alive] cluster level
 *   setting.` when `keepAliveMs` > `maxKeepAliveMs` (both printed as ES's `TimeValue.toString()`).
 */
export function checkKeepAlive(keepAliveMs: number, maxKeepAliveMs: number): void {
  if (keepAliveMs > maxKeepAliveMs) {
    throw illegalArgument(
      `Keep alive for request (${formatTimeValue(keepAliveMs)}) is too large. It must be less than (${formatTimeValue(maxKeepAliveMs)}). ` +
        'This limit can be set by changing the [search.max_keep_alive] cluster level setting.',
    );
  }
}
