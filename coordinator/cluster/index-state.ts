/**
 * The open/closed state of an index (ES `IndexMetadata.State`), as stored in the cluster state:
 * `state: close` after `POST /{index}/_close`, with ES's `index.verified_before_close: true`
 * setting; open again (both gone) after `POST /{index}/_open`. A closed index refuses reads and
 * writes with ES's `IndexClosedException`. Pure.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-close.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/cluster/metadata/MetadataIndexStateService.java
 */
import { EsError } from '../../protocol/errors.ts';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { explicitSettings } from './index-settings.ts';

/** Whether the index is closed. */
export function isClosed(m: Pick<IndexMetadata, 'state'>): boolean {
  return m.state === 'close';
}

/**
 * ES `IndexClosedException`: 400 `index_closed_exception` `closed`, with the index and its uuid.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/indices/IndexClosedException.java
 */
export function indexClosed(m: Pick<IndexMetadata, 'name' | 'uuid'>): EsError {
  return new EsError(400, 'index_closed_exception', 'closed', { metadata: { index_uuid: m.uuid, index: m.name } });
}

/** @throws EsError 400 `index_closed_exception` when the index is closed */
export function checkOpen(m: IndexMetadata): void {
  if (isClosed(m)) throw indexClosed(m);
}

/** The metadata of the index closed: `state: close` and ES's `index.verified_before_close`. Null when closed already. */
export function closedMetadata(m: IndexMetadata): IndexMetadata | null {
  if (isClosed(m)) return null;
  return { ...m, state: 'close', settings: { ...explicitSettings(m), 'index.verified_before_close': 'true' } };
}

/** The metadata of the index reopened (ES drops `index.verified_before_close` on open). Null when open already. */
export function openedMetadata(m: IndexMetadata): IndexMetadata | null {
  if (!isClosed(m)) return null;
  const { state: _closed, ...rest } = m;
  if (!rest.settings) return rest;
  const { 'index.verified_before_close': _verified, ...settings } = rest.settings;
  return { ...rest, settings };
}
