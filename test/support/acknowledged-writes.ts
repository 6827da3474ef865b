/**
 * The write load of the crash tests (test/e2e/durability.test.ts, write-kill.test.ts) and its model:
 * bulks of new documents plus overwrites, partial updates and deletes of documents acknowledged
 * before, sent by any number of concurrent writers, with what each item's reply said recorded per
 * `_id`. Afterwards {@link AcknowledgedWrites.problemOf} says whether a state read back is allowed:
 * the last acknowledged write exactly (version and `_source`), or one of the unacknowledged writes
 * after it applied wholly (ES promises nothing about those, but never half of one).
 */
import { http } from '../e2e/http.ts';

/** A document as a read returns it (GET `_doc`, `_mget` entry, an internal get on one copy). */
export interface SeenDoc {
  found: boolean;
  _version?: number;
  _source?: Record<string, unknown>;
}

/** What the model knows about one `_id`. */
export interface KnownWrite {
  /** Version of the last acknowledged write (0: none). */
  version: number;
  /** Its `_source`, or null for a delete (or nothing acknowledged yet). */
  source: Record<string, unknown> | null;
  /** Writes after it that were not acknowledged, in order: each may or may not be there. */
  doubt: { source: Record<string, unknown> | null }[];
}

/** One item of a `_bulk` reply, as far as the model reads it. */
export interface BulkItemReply {
  status: number;
  _version?: number;
  _primary_term?: number;
}

/** How a load writes: its index, bulk path, how many new docs per bulk, and the documents. */
export interface WriteLoadOptions {
  coordinatorUrl: () => string;
  index: string;
  /** `/_bulk` with its parameters (e.g. `/_bulk?refresh=false`). */
  bulkPath: string;
  newDocsPerBulk: number;
  newSource(n: number, round: number): Record<string, unknown>;
  rewrittenSource(round: number): Record<string, unknown>;
  /** Called for each acknowledged item (e.g. to note the first write in a new primary term). */
  onAcknowledged?(item: BulkItemReply): void;
}

/** The load and its model of acknowledged and doubtful writes. */
export class AcknowledgedWrites {
  readonly known = new Map<string, KnownWrite>();
  acked = 0;
  failed = 0;
  private readonly opts: WriteLoadOptions;
  private nextDoc = 0;
  /** Ids of a bulk in flight: concurrent writers never touch the same id at once, so the model stays exact. */
  private readonly inFlight = new Set<string>();

  constructor(opts: WriteLoadOptions) {
    this.opts = opts;
  }

  /** Ids with at least one unacknowledged write after the acknowledged state. */
  get doubtful(): number {
    let n = 0;
    for (const k of this.known.values()) if (k.doubt.length > 0) n++;
    return n;
  }

  /** Sends one bulk (new docs, then up to 6 rewrites/updates/deletes of settled ids) and records each item's outcome. */
  async writeBatch(round: number): Promise<void> {
    const { index } = this.opts;
    const lines: string[] = [];
    const planned: { id: string; source: Record<string, unknown> | null }[] = [];
    for (let i = 0; i < this.opts.newDocsPerBulk; i++) {
      const id = `d${this.nextDoc++}`;
      const source = this.opts.newSource(this.nextDoc, round);
      lines.push(JSON.stringify({ index: { _index: index, _id: id } }), JSON.stringify(source));
      planned.push({ id, source });
    }
    const live = [...this.known].filter(([id, k]) => k.source !== null && k.doubt.length === 0 && !this.inFlight.has(id)).map(([id]) => id);
    for (let i = 0; i < 6 && live.length > 0; i++) {
      const id = live[(round * 7 + i * 13) % live.length];
      if (planned.some((p) => p.id === id)) continue;
      const prev = this.known.get(id)!.source!;
      if (i % 3 === 0) {
        lines.push(JSON.stringify({ delete: { _index: index, _id: id } }));
        planned.push({ id, source: null });
      } else if (i % 3 === 1) {
        lines.push(JSON.stringify({ update: { _index: index, _id: id } }), JSON.stringify({ doc: { round } }));
        planned.push({ id, source: { ...prev, round } });
      } else {
        const source = this.opts.rewrittenSource(round);
        lines.push(JSON.stringify({ index: { _index: index, _id: id } }), JSON.stringify(source));
        planned.push({ id, source });
      }
    }
    for (const p of planned) this.inFlight.add(p.id);
    const res = await http(this.opts.coordinatorUrl(), 'POST', this.opts.bulkPath, lines.join('\n') + '\n', 'application/x-ndjson').catch(() => null);
    for (const p of planned) this.inFlight.delete(p.id);
    planned.forEach((p, i) => {
      const item = res?.status === 200 ? (Object.values(res.body.items[i])[0] as BulkItemReply) : undefined;
      const k = this.known.get(p.id) ?? { version: 0, source: null, doubt: [] };
      if (item && item.status < 300) {
        this.opts.onAcknowledged?.(item);
        this.known.set(p.id, { version: item._version!, source: p.source, doubt: [] });
        this.acked++;
      } else {
        k.doubt.push({ source: p.source });
        this.known.set(p.id, k);
        this.failed++;
      }
    });
  }

  /**
   * Why `seen` is not an allowed state of `id`, or null: allowed are the last acknowledged write
   * (version and `_source` exactly) and an unacknowledged later write applied wholly (its `_source`,
   * with a version after the acknowledged one and at most one per doubtful write above it).
   */
  problemOf(id: string, seen: SeenDoc): string | null {
    const k = this.known.get(id)!;
    const same = (source: Record<string, unknown> | null): boolean => JSON.stringify(seen._source) === JSON.stringify(source);
    if (k.source === null ? !seen.found : seen.found && seen._version === k.version && same(k.source)) return null;
    const laterVersion = seen.found && seen._version! > k.version && seen._version! <= k.version + k.doubt.length;
    if (k.doubt.some((d) => (d.source === null ? !seen.found : laterVersion && same(d.source)))) return null;
    return `${id}: acknowledged ${JSON.stringify({ version: k.version, source: k.source })}${k.doubt.length ? ` then ${k.doubt.length} unacknowledged` : ''}, found ${JSON.stringify({ found: seen.found, version: seen._version, source: seen._source })}`;
  }
}
