/**
 * ES's local checkpoint (`LocalCheckpointTracker`): the highest seq_no below which every op has
 * been processed by this copy. A replica processes ops out of order (concurrent replicated bulks,
 * live writes during a recovery), so seq_nos above the checkpoint are kept in a set until the gap
 * below them closes. A recovery's copy phase {@link LocalCheckpointTracker.fastForward}s it: the
 * copied state holds every op up to the primary's seq_no at that moment. A peer recovery finishes
 * only once the target's checkpoint has reached the primary's max seq_no, so a live write the
 * target missed keeps it out of sync.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/seqno/LocalCheckpointTracker.java
 */

/** Tracks processed seq_nos of one shard copy. Starts at -1 (nothing known to be processed). */
export class LocalCheckpointTracker {
  private cp: number;
  /** Processed seq_nos above the checkpoint (there is a gap below each). */
  private readonly above = new Set<number>();

  constructor(checkpoint = -1) {
    this.cp = checkpoint;
  }

  /** Every op with seq_no ≤ this has been processed here. */
  get checkpoint(): number {
    return this.cp;
  }

  /** Seq_nos processed above the checkpoint, waiting for a gap below them to close. */
  get pending(): number {
    return this.above.size;
  }

  /** Records that op `seqNo` is processed (applied, or skipped as superseded) and advances the checkpoint. */
  markProcessed(seqNo: number): void {
    if (seqNo <= this.cp) return;
    this.above.add(seqNo);
    this.advance();
  }

  /** Everything up to `seqNo` is processed (a recovery's copy phase, a start-up replay of a contiguous log). */
  fastForward(seqNo: number): void {
    if (seqNo <= this.cp) return;
    this.cp = seqNo;
    for (const s of this.above) if (s <= seqNo) this.above.delete(s);
    this.advance();
  }

  /** Forgets everything (a copy emptied for a full recovery). */
  reset(): void {
    this.cp = -1;
    this.above.clear();
  }

  private advance(): void {
    while (this.above.delete(this.cp + 1)) this.cp++;
  }
}
