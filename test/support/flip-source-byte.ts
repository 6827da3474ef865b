/**
 * Test helper: corrupts a segment file the way a bad disk sector would, by inverting one byte
 * inside its first `_source` block (8 bytes past the start of the block section, see
 * docs/segment-files.md), in place.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { segmentFileLayout } from '../../shard-node/engine/segment-file/segment-codec.ts';

/** Inverts one byte inside the first `_source` block of the segment file at `path`. @throws when it is not a readable segment file */
export function flipSourceByte(path: string): void {
  const bytes = readFileSync(path);
  const at = segmentFileLayout(bytes, path).sourceBlocksAt + 8;
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.from([bytes[at] ^ 0xff]), 0, 1, at);
  } finally {
    closeSync(fd);
  }
}
