/**
 * What the fault suite's clients did and what the cluster answered: every operation, every
 * acknowledged write with its `_version`, `_seq_no` and `_primary_term` (as ES's write responses
 * carry them), and per `_id` the state the cluster must hold. Each `_id` belongs to one client, which
 * sends one op at a time on it, so the model is exact: after an acknowledged write the document is
 * that write; after a write whose outcome is unknown (an error, a timeout, a lost connection) the
 * `_id` is frozen, and either the last acknowledged state or one of the unknown writes applied
 * wholly is allowed (ES promises nothing about an unacknowledged write, but never half of one).
 * Jepsen's "set" and ES `testAckedIndexing` keep the same kind of record.
 */

/** A document body as the clients write it. */
export type Source = Record<string, unknown>;

/** JSON with object keys sorted, so two documents compare equal whatever their key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return `{${Object.keys(obj)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** One acknowledged write. */
export interface AckedWrite {
  id: string;
  shard: number;
  op: 'index' | 'update' | 'delete';
  version: number;
  seqNo: number;
  term: number;
  /** The coordinator it went through. */
  coordinator: number;
  /** Ms since the schedule started: sent and acknowledged. */
  sentMs: number;
  ackedMs: number;
}

/** What the model knows about one `_id`. */
export interface IdState {
  shard: number;
  /** Version of the last acknowledged write (0: none). */
  version: number;
  /** Its `_seq_no` (-1: none). */
  seqNo: number;
  /** The document after it, or null (deleted, or nothing acknowledged yet). */
  source: Source | null;
  /** Writes sent after it whose outcome is unknown, in order. */
  doubt: { source: Source | null }[];
  /** Every document ever sent for it (canonical JSON), for checking search hits. */
  everSent: Set<string>;
}

/** A document as one copy holds it (an internal real-time get). */
export interface SeenDoc {
  found: boolean;
  _version?: number;
  _seq_no?: number;
  _source?: Source;
}

/** The whole record of one schedule's clients. */
export class History {
  readonly ids = new Map<string, IdState>();
  readonly acks: AckedWrite[] = [];
  /** Writes sent (each bulk item counts). */
  writes = 0;
  /** Writes with an unknown outcome (their `_id` is frozen). */
  doubtful = 0;
  /** Writes refused before they were sent (connection refused): surely not applied. */
  refused = 0;
  /** Reads through a coordinator. */
  reads = 0;
  /** Reads that answered neither the acknowledged state nor an allowed unknown write. */
  readonly staleReads: string[] = [];
  readonly searches = { total: 0, complete: 0, partial: 0, errors: 0, wrong: [] as string[] };

  /** Notes a write about to be sent on `id` (routed to `shard`). */
  sending(id: string, shard: number, source: Source | null): IdState {
    this.writes++;
    let s = this.ids.get(id);
    if (!s) {
      s = { shard, version: 0, seqNo: -1, source: null, doubt: [], everSent: new Set() };
      this.ids.set(id, s);
    }
    if (source) s.everSent.add(canonical(source));
    return s;
  }

  /** Records an acknowledged write (the `_id`'s new state). */
  acknowledged(write: AckedWrite, source: Source | null): void {
    const s = this.ids.get(write.id)!;
    this.acks.push(write);
    s.version = write.version;
    s.seqNo = write.seqNo;
    s.source = source;
    s.doubt = [];
  }

  /** Records a write whose outcome is unknown: the `_id` is frozen from now on. */
  unknown(id: string, source: Source | null): void {
    this.ids.get(id)!.doubt.push({ source });
    this.doubtful++;
  }

  /** True when `id` may take another write (nothing unknown pending on it). */
  settled(id: string): boolean {
    return (this.ids.get(id)?.doubt.length ?? 0) === 0;
  }

  /**
   * Why `seen` is not an allowed state of `id`, or null. Allowed: the last acknowledged write with
   * its `_version`, `_seq_no` and `_source`; or, after unknown writes, one of them applied wholly
   * (its `_source`, a version above the acknowledged one and at most one per unknown write).
   */
  problemOf(id: string, seen: SeenDoc): string | null {
    const k = this.ids.get(id)!;
    const same = (source: Source | null) => canonical(seen._source) === canonical(source);
    if (k.source === null ? !seen.found : seen.found && seen._version === k.version && seen._seq_no === k.seqNo && same(k.source)) return null;
    const laterVersion = seen.found && seen._version! > k.version && seen._version! <= k.version + k.doubt.length;
    if (k.doubt.some((d) => (d.source === null ? !seen.found : laterVersion && same(d.source)))) return null;
    const acked = { version: k.version, seq_no: k.seqNo, source: k.source };
    return `${id}: acknowledged ${JSON.stringify(acked)}${k.doubt.length ? ` then ${k.doubt.length} unknown` : ''}, found ${JSON.stringify({ found: seen.found, version: seen._version, seq_no: seen._seq_no, source: seen._source })}`;
  }
}
