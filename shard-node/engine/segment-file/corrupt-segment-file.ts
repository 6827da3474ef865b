/**
 * The error a segment file or commit point that fails its checks throws: a wrong magic, an
 * unknown format version, a checksum mismatch, a read past its end, or a failed read of a block
 * read on demand. Mirrors Lucene's `CorruptIndexException` (ES: a 500 `corrupt_index_exception`),
 * which names the resource and why; thrown by a search or fetch, it fails that shard's part of the
 * request (a shard failure in the response), never the process.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/index/CorruptIndexException.java
 */
import { EsError } from '../../../protocol/errors.ts';

/** A file of a shard's segments or commit points that cannot be trusted. */
export class CorruptSegmentFileError extends EsError {
  /** The file's path (or a name given by the caller). */
  readonly resource: string;

  constructor(reason: string, resource: string) {
    super(500, 'corrupt_index_exception', `${reason} (resource=${resource})`);
    this.name = 'CorruptSegmentFileError';
    this.resource = resource;
  }
}
