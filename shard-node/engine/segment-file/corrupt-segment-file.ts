/**
 * The error a segment file or commit point that fails its checks throws: a wrong magic, an
 * unknown format version, a checksum mismatch, or a read past its end. Mirrors Lucene's
 * `CorruptIndexException` (ES: `corrupt_index_exception`), which names the resource and why.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/CorruptIndexException.java
 */

/** A file of a shard's segments or commit points that cannot be trusted. */
export class CorruptSegmentFileError extends Error {
  /** The file's path (or a name given by the caller). */
  readonly resource: string;

  constructor(reason: string, resource: string) {
    super(`${reason} (resource=${resource})`);
    this.name = 'CorruptSegmentFileError';
    this.resource = resource;
  }
}
