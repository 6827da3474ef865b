// The open/closed state in the index metadata: close sets state and ES's verified_before_close,
// open drops both; a closed index answers ES's IndexClosedException.
import { describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { esErr } from '../../test/support/es-error.ts';
import { checkOpen, closedMetadata, isClosed, openedMetadata } from './index-state.ts';
import { parseCreateIndexBody } from './index-settings.ts';

const open: IndexMetadata = { name: 'i', uuid: 'u1', creationDate: 0, version: 3, ...parseCreateIndexBody(undefined), routingNumShards: 1024 };

describe('index state', () => {
  it('closes: state close and index.verified_before_close, once', () => {
    const closed = closedMetadata(open)!;
    expect(isClosed(closed)).toBe(true);
    expect(closed.settings).toMatchObject({ 'index.verified_before_close': 'true', 'index.number_of_shards': '1' });
    expect(closedMetadata(closed)).toBeNull();
    expect(esErr(() => checkOpen(closed))).toMatchObject({
      status: 400,
      type: 'index_closed_exception',
      message: 'closed',
      metadata: { index_uuid: 'u1', index: 'i' },
    });
  });

  it('opens: both gone, the rest as it was', () => {
    const reopened = openedMetadata(closedMetadata(open)!)!;
    expect(reopened).toEqual(open);
    expect(openedMetadata(open)).toBeNull();
    expect(() => checkOpen(reopened)).not.toThrow();
  });
});
