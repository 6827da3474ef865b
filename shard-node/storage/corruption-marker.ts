/**
 * The corruption marker of a shard copy: a file `corrupted_<uuid>` in the copy's directory
 * (`<data>/<index uuid>/<shard>/`), written when a read found one of the copy's segment files
 * corrupt and the copy was failed, so that a restart never reopens the copy as it is
 * (docs/reliability.md "Corrupt copies"). It holds the reason as JSON. The copy's directory is
 * removed when the copy is emptied for its peer recovery, and the marker with it. Mirrors ES
 * `Store.markStoreCorrupted` / `Store.failIfCorrupted` (`corrupted_` + a random id, the exception
 * inside; a store with such a file is refused when a shard opens).
 * @see https://github.com/elastic/elasticsearch/blob/v8.15.0/server/src/main/java/org/elasticsearch/index/store/Store.java
 */
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fsyncDir } from './durable-dir.ts';

/** The file name prefix of a corruption marker (ES `Store.CORRUPTED_MARKER_NAME_PREFIX`). */
export const CORRUPTION_MARKER_PREFIX = 'corrupted_';

/** What a marker records: why the copy was failed, the file found corrupt, and when (epoch ms). */
export interface CorruptionMarker {
  reason: string;
  resource: string;
  markedAt: number;
}

/**
 * Writes a corruption marker in `shardDir` (fsynced, and the directory fsynced), unless one is
 * there already. A missing directory (the copy was just dropped) writes nothing.
 * @returns the marker's file name, or null when none was written
 */
export function writeCorruptionMarker(shardDir: string, reason: string, resource: string): string | null {
  if (!existsSync(shardDir) || readCorruptionMarker(shardDir) !== null) return null;
  const name = `${CORRUPTION_MARKER_PREFIX}${randomUUID()}`;
  const marker: CorruptionMarker = { reason, resource, markedAt: Date.now() };
  const fd = openSync(join(shardDir, name), 'wx');
  try {
    writeSync(fd, JSON.stringify(marker));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(shardDir);
  return name;
}

/**
 * The corruption marker in `shardDir`, or null when there is none (or no such directory). A
 * marker whose content cannot be read still marks the copy corrupt (its reason then says so).
 */
export function readCorruptionMarker(shardDir: string): CorruptionMarker | null {
  let names: string[];
  try {
    names = readdirSync(shardDir);
  } catch {
    return null;
  }
  const name = names.find((n) => n.startsWith(CORRUPTION_MARKER_PREFIX));
  if (name === undefined) return null;
  try {
    const parsed = JSON.parse(readFileSync(join(shardDir, name), 'utf8')) as Partial<CorruptionMarker>;
    return { reason: String(parsed.reason), resource: String(parsed.resource), markedAt: Number(parsed.markedAt) };
  } catch {
    return { reason: 'unreadable corruption marker', resource: join(shardDir, name), markedAt: NaN };
  }
}

/**
 * Removes every corruption marker in `shardDir` (the directory fsynced): only once the copy was
 * rebuilt whole without its segment files (a copy with no other copy to recover from, rebuilt from
 * its SQLite `docs` snapshot and translog: docs/segment-files.md "Corruption").
 */
export function removeCorruptionMarkers(shardDir: string): void {
  let names: string[];
  try {
    names = readdirSync(shardDir);
  } catch {
    return;
  }
  const markers = names.filter((n) => n.startsWith(CORRUPTION_MARKER_PREFIX));
  for (const n of markers) rmSync(join(shardDir, n), { force: true });
  if (markers.length > 0) fsyncDir(shardDir);
}
