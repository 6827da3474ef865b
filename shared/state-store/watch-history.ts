/**
 * The watch side of the embedded state store: the write batches of recent revisions, kept for
 * watches that start in the past, and the open watches, each with its queue of batches. A batch
 * goes to every watch whose prefix one of its keys has, in revision order, with no gap. History
 * holds at most `retain` revisions (etcd's revision-mode auto-compaction); a watch that starts
 * before the compacted revision fails with `compacted`, as etcd's `mvcc.ErrCompacted`.
 * @see https://etcd.io/docs/v3.4/learning/api/#watch-api
 * @see https://github.com/etcd-io/etcd/blob/release-3.4/mvcc/watchable_store.go
 */
import { StateStoreError } from './errors.ts';
import type { Revision, WatchBatch } from './types.ts';

/** One open watch: its prefix, the batches it has not taken yet, and how to wake its reader. */
interface Watcher {
  prefix: string;
  queue: WatchBatch[];
  wake: (() => void) | undefined;
  ended: boolean;
}

/** See the module comment. */
export class WatchHistory {
  private readonly retain: number;
  private readonly watchers = new Set<Watcher>();
  /** Batches of the revisions from `compactRevision` on (only revisions that changed something exist). */
  private history: WatchBatch[] = [];
  private compacted: Revision = 0;

  /** @param retain revisions of history kept before the oldest is compacted away */
  constructor(retain: number) {
    this.retain = retain;
  }

  /** The oldest revision a watch may start at. */
  get compactRevision(): Revision {
    return this.compacted;
  }

  /** Records the batch of a new revision and hands it to the watches; compacts past `retain` revisions. */
  append(batch: WatchBatch): void {
    this.history.push(batch);
    if (this.history.length > this.retain) this.compactTo(this.history[this.history.length - this.retain].revision);
    for (const w of this.watchers) this.deliver(w, batch);
  }

  /** Drops the history before `revision` (a lower revision than the compacted one changes nothing). */
  compactTo(revision: Revision): void {
    this.compacted = Math.max(this.compacted, revision);
    const keep = this.history.findIndex((b) => b.revision >= this.compacted);
    this.history = keep < 0 ? [] : this.history.slice(keep);
  }

  /** Forgets all history: watches may start at `revision` or later (after a restart, history is gone). */
  restart(revision: Revision): void {
    this.history = [];
    this.compacted = revision;
  }

  /**
   * The batches touching `prefix` from revision `start` on: history first, then each new revision,
   * until `signal` aborts or {@link endAll}.
   * @throws StateStoreError `compacted` (with `compactRevision`) when `start` is compacted away
   */
  async *watch(prefix: string, start: Revision, signal: AbortSignal | undefined): AsyncGenerator<WatchBatch> {
    if (start < this.compacted) {
      throw new StateStoreError('compacted', 'mvcc: required revision has been compacted', { compactRevision: this.compacted });
    }
    const w: Watcher = { prefix, queue: [], wake: undefined, ended: false };
    for (const batch of this.history) if (batch.revision >= start) this.deliver(w, batch);
    this.watchers.add(w);
    const onAbort = () => w.wake?.();
    signal?.addEventListener('abort', onAbort);
    try {
      while (true) {
        if (signal?.aborted || w.ended) return;
        const next = w.queue.shift();
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((resolve) => (w.wake = resolve));
        w.wake = undefined;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.watchers.delete(w);
    }
  }

  /** Ends every open watch (the store closes). */
  endAll(): void {
    for (const w of this.watchers) {
      w.ended = true;
      w.wake?.();
    }
  }

  private deliver(w: Watcher, batch: WatchBatch): void {
    const events = batch.events.filter((e) => e.kv.key.startsWith(w.prefix));
    if (events.length === 0) return;
    w.queue.push(events.length === batch.events.length ? batch : { revision: batch.revision, events });
    w.wake?.();
  }
}
