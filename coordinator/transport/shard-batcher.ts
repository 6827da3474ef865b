/**
 * Coalescing of shard calls: search rounds that several searches send to the same shard node in
 * the same event-loop turn leave as one `POST /_internal/v1/batch` (protocol/wire-batch.ts) instead
 * of one HTTP exchange each. A call alone in its turn goes out as a plain call, and a search that
 * finds nothing in flight sends its calls at once; under concurrency the per-call HTTP and
 * system-call cost, which dominates a small search on this design, is shared by the batch.
 * Every call keeps its own deadline and cancellation: it settles when its frame arrives, when its
 * `timeoutMs` passes, or when its signal aborts, whichever comes first. Which actions may travel in
 * a batch is the RPC table's `batchable` flag (protocol/rpc.ts: the search rounds).
 */
import type { AnyRpc } from '../../protocol/rpc.ts';
import type { CallOptions } from './shard-client.ts';

/** A call waiting for its turn's flush; {@link ShardCallBatcher} settles it exactly once. */
export interface QueuedCall {
  /** The action (a batchable one: `query`, `fetch`, …). */
  rpc: AnyRpc;
  body: unknown;
  opts: CallOptions;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Sends one call on its own (the plain path). */
export type SendOne = (node: number, rpc: AnyRpc, body: unknown, opts: CallOptions) => Promise<unknown>;
/** Sends several calls to one node as a batch and settles each of them (never rejects). */
export type SendMany = (node: number, calls: QueuedCall[]) => Promise<void>;

/** Queues calls per node and flushes every queue once per event-loop turn. */
export class ShardCallBatcher {
  private readonly queues: QueuedCall[][];
  private scheduled = false;
  /** Calls submitted and not settled yet. */
  private inFlight = 0;
  private readonly sendOne: SendOne;
  private readonly sendMany: SendMany;
  /** Batches sent and calls they carried (for `GET /_folio/stats`). */
  readonly counters = { batches: 0, batched_calls: 0 };

  constructor(nodeCount: number, sendOne: SendOne, sendMany: SendMany) {
    this.queues = Array.from({ length: nodeCount }, () => []);
    this.sendOne = sendOne;
    this.sendMany = sendMany;
  }

  /**
   * Queues a call to `node`; resolves with its reply or rejects as the plain call would. When no
   * call is in flight (a lone search), the queue is flushed at the end of the current microtask
   * run, so the search's own calls leave at once; otherwise at the next `setImmediate`, after
   * the other searches that arrived in the same I/O turn have queued theirs.
   */
  submit(node: number, rpc: AnyRpc, body: unknown, opts: CallOptions): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const settle =
        <T>(fn: (v: T) => void) =>
        (v: T): void => {
          this.inFlight--;
          fn(v);
        };
      this.queues[node].push({ rpc, body, opts, resolve: settle(resolve), reject: settle(reject) });
      if (!this.scheduled) {
        this.scheduled = true;
        if (this.inFlight === 0) queueMicrotask(() => this.flush());
        else setImmediate(() => this.flush());
      }
      this.inFlight++;
    });
  }

  private flush(): void {
    this.scheduled = false;
    this.queues.forEach((queue, node) => {
      if (queue.length === 0) return;
      this.queues[node] = [];
      if (queue.length === 1) {
        const [c] = queue;
        this.sendOne(node, c.rpc, c.body, c.opts).then(c.resolve, c.reject);
        return;
      }
      this.counters.batches++;
      this.counters.batched_calls += queue.length;
      void this.sendMany(node, queue);
    });
  }
}
