import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CORRUPTION_MARKER_PREFIX, readCorruptionMarker, removeCorruptionMarkers, writeCorruptionMarker } from './corruption-marker.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dir(): string {
  const d = mkdtempSync(join(tmpdir(), 'folio-marker-'));
  dirs.push(d);
  return d;
}

describe('the corruption marker of a shard copy', () => {
  it('is written once as corrupted_<uuid> with the reason and the file, read back, and removed', () => {
    const d = dir();
    expect(readCorruptionMarker(d)).toBeNull();
    const name = writeCorruptionMarker(d, 'checksum failed', join(d, '_3.fseg'));
    expect(name).toMatch(new RegExp(`^${CORRUPTION_MARKER_PREFIX}[0-9a-f-]{36}$`));
    expect(readCorruptionMarker(d)).toEqual({ reason: 'checksum failed', resource: join(d, '_3.fseg'), markedAt: expect.any(Number) });
    // A second corruption found before the copy is rebuilt keeps the first marker.
    expect(writeCorruptionMarker(d, 'another', join(d, '_4.fseg'))).toBeNull();
    expect(readdirSync(d)).toEqual([name]);
    removeCorruptionMarkers(d);
    expect(readdirSync(d)).toEqual([]);
    expect(readCorruptionMarker(d)).toBeNull();
  });

  it('a missing directory has no marker and gets none; an unreadable marker still marks the copy corrupt', () => {
    const d = dir();
    expect(writeCorruptionMarker(join(d, 'gone'), 'x', 'y')).toBeNull();
    expect(readCorruptionMarker(join(d, 'gone'))).toBeNull();
    writeFileSync(join(d, `${CORRUPTION_MARKER_PREFIX}x`), 'not json');
    expect(readCorruptionMarker(d)).toMatchObject({ reason: 'unreadable corruption marker' });
  });
});
