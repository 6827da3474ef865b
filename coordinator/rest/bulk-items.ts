/**
 * A `_bulk` request's items held as columns (issue 11): the fields every item has — its action,
 * its index (a number into one table of names), its `_id` (UTF-8 bytes in one growing buffer) — in
 * typed arrays, and the rare fields (a document, an update's body, routing, write parameters,
 * `require_alias`, a parse failure) only for the items that have them. 100,000 `delete` lines keep
 * ~33 bytes each outside V8's heap, where an object and an `_id` string per item kept ~110 bytes on
 * it, promoted by the scavenger for the whole write and growing the young generation
 * (docs/reliability.md). {@link BulkItems.get} builds an item's {@link BulkItem} object on demand.
 */
import type { BulkAction, BulkItem } from './bulk-parse.ts';

/** The fields an item may have beyond action, index and `_id`. */
export type BulkItemExtra = Partial<Pick<BulkItem, 'routing' | 'source' | 'sourceText' | 'params' | 'update' | 'requireAlias' | 'failure'>>;

const ACTIONS: readonly BulkAction[] = ['index', 'create', 'update', 'delete'];
const ACTION_CODE: Readonly<Record<BulkAction, number>> = { index: 0, create: 1, update: 2, delete: 3 };
const INITIAL_ITEMS = 256;
/** Bytes per piece of `_id` bytes (an `_id` is never split across pieces). */
const ID_PIECE_BITS = 16;
const ID_PIECE_BYTES = 1 << ID_PIECE_BITS;
/** `_id`s of more UTF-8 bytes than this (ES refuses over 512) are kept as strings. */
const MAX_PIECE_ID_BYTES = 1024;

/** A bulk's items by position, in columns; items are added in request order with {@link BulkItems.push}. */
export class BulkItems {
  #length = 0;
  #action = new Uint8Array(INITIAL_ITEMS);
  /** Each item's index as a position in {@link BulkItems.#names}, -1 for none. */
  #index = new Int32Array(INITIAL_ITEMS);
  #names: string[] = [];
  #nameNo = new Map<string, number>();
  /**
   * Each item's `_id` as the bytes `[#idStart[i], #idEnd[i])` of piece `#idStart[i] >>> ID_PIECE_BITS`
   * of `#idPieces` (offsets within it in the low bits); `#idStart[i]` -1 for none. Pieces are
   * filled and never copied to grow.
   */
  #idStart = new Int32Array(INITIAL_ITEMS);
  #idEnd = new Int32Array(INITIAL_ITEMS);
  #idPieces: Buffer[] = [];
  #idPiece = Buffer.alloc(0);
  #idUsed = 0;
  /** Whether every `_id` is ASCII (decoded as latin1, a faster path). */
  #idAscii = true;
  #extra = new Map<number, BulkItemExtra>();
  /** The `_id`s that UTF-8 cannot carry (a lone surrogate, which JSON's `\\ud800` can) or longer than {@link MAX_PIECE_ID_BYTES}, kept as strings. */
  #oddIds = new Map<number, string>();

  /** The items of `items`, in order. */
  static of(items: readonly BulkItem[]): BulkItems {
    const out = new BulkItems();
    for (const item of items) out.push(item);
    return out;
  }

  /** The number of items. */
  get length(): number {
    return this.#length;
  }

  /** Adds an item at the end; its rare fields are kept as given (by reference). */
  push(item: BulkItem): void {
    const i = this.#length;
    if (i === this.#action.length) this.#grow();
    this.#length++;
    this.#action[i] = ACTION_CODE[item.action];
    this.#index[i] = this.#nameNumber(item.index);
    this.#setId(i, item.id);
    const { routing, source, sourceText, params, update, requireAlias, failure } = item;
    if (routing === undefined && source === undefined && params === undefined && requireAlias === undefined && failure === undefined) return;
    const extra: BulkItemExtra = {};
    if (routing !== undefined) extra.routing = routing;
    if (source !== undefined) extra.source = source;
    if (sourceText !== undefined) extra.sourceText = sourceText;
    if (params !== undefined) extra.params = params;
    if (update !== undefined) extra.update = update;
    if (requireAlias !== undefined) extra.requireAlias = requireAlias;
    if (failure !== undefined) extra.failure = failure;
    this.#extra.set(i, extra);
  }

  /** The action of item `i`. */
  action(i: number): BulkAction {
    return ACTIONS[this.#action[i]];
  }

  /** The index item `i` names, or undefined. */
  index(i: number): string | undefined {
    const n = this.#index[i];
    return n < 0 ? undefined : this.#names[n];
  }

  /** The `_id` of item `i` (a new string on each call), or undefined. */
  id(i: number): string | undefined {
    const start = this.#idStart[i];
    if (start < 0) return this.#oddIds.get(i);
    const piece = this.#idPieces[start >>> ID_PIECE_BITS];
    const offset = start & (ID_PIECE_BYTES - 1);
    return piece.toString(this.#idAscii ? 'latin1' : 'utf8', offset, offset + this.#idEnd[i] - start);
  }

  /** The UTF-8 byte length of item `i`'s `_id`, or -1 when it has none. */
  idByteLength(i: number): number {
    const start = this.#idStart[i];
    if (start >= 0) return this.#idEnd[i] - start;
    const odd = this.#oddIds.get(i);
    return odd === undefined ? -1 : Buffer.byteLength(odd);
  }

  /** Item `i`'s rare fields, or undefined when it has none. */
  extra(i: number): Readonly<BulkItemExtra> | undefined {
    return this.#extra.get(i);
  }

  /** Item `i`'s custom routing, or undefined. */
  routing(i: number): string | undefined {
    return this.#extra.get(i)?.routing;
  }

  /** Item `i` as an object (a new one on each call; its rare fields shared with the columns). */
  get(i: number): BulkItem {
    const extra = this.#extra.get(i);
    return { action: this.action(i), index: this.index(i), id: this.id(i), routing: undefined, source: undefined, ...extra };
  }

  /** A copy of the columns (the rare fields' objects shared) whose items can be retargeted with {@link BulkItems.retarget}. */
  copy(): BulkItems {
    const out = new BulkItems();
    out.#length = this.#length;
    out.#action = this.#action.slice();
    out.#index = this.#index.slice();
    out.#names = [...this.#names];
    out.#nameNo = new Map(this.#nameNo);
    out.#idStart = this.#idStart.slice();
    out.#idEnd = this.#idEnd.slice();
    out.#idPieces = this.#idPieces; // filled pieces are never written again; the copy starts a new one
    out.#idPiece = Buffer.alloc(0);
    out.#idUsed = 0;
    out.#idAscii = this.#idAscii;
    out.#extra = new Map([...this.#extra].map(([i, e]) => [i, { ...e }]));
    out.#oddIds = new Map(this.#oddIds);
    return out;
  }

  /** Sets item `i`'s index and routing (an alias resolved to its write index). */
  retarget(i: number, index: string, routing: string | undefined): void {
    this.#index[i] = this.#nameNumber(index);
    const extra = this.#extra.get(i) ?? {};
    if (routing === undefined) delete extra.routing;
    else extra.routing = routing;
    this.#extra.set(i, extra);
  }

  /** Sets `require_alias` on every item that does not set its own (the URL's, ES `BulkRequest.requireAlias`). */
  requireAliasByDefault(): void {
    for (let i = 0; i < this.#length; i++) {
      const extra = this.#extra.get(i) ?? {};
      extra.requireAlias ??= true;
      this.#extra.set(i, extra);
    }
  }

  /** Gives each item without an `_id` the one `generate()` makes (ES's auto-generated ids). */
  fillIds(generate: () => string): void {
    for (let i = 0; i < this.#length; i++) if (this.#idStart[i] < 0 && !this.#oddIds.has(i)) this.#setId(i, generate());
  }

  #nameNumber(name: string | undefined): number {
    if (name === undefined) return -1;
    let n = this.#nameNo.get(name);
    if (n === undefined) {
      n = this.#names.push(name) - 1;
      this.#nameNo.set(name, n);
    }
    return n;
  }

  #setId(i: number, id: string | undefined): void {
    if (id === undefined || id.length * 3 > MAX_PIECE_ID_BYTES) {
      this.#idStart[i] = -1;
      this.#idEnd[i] = -1;
      if (id !== undefined) this.#oddIds.set(i, id);
      return;
    }
    if (this.#idPiece.length === 0 || this.#idUsed + id.length * 3 > this.#idPiece.length) {
      this.#idPiece = Buffer.allocUnsafe(ID_PIECE_BYTES);
      this.#idPieces = [...this.#idPieces, this.#idPiece];
      this.#idUsed = 0;
    }
    const bytes = this.#idPiece.write(id, this.#idUsed, 'utf8');
    if (bytes !== id.length) {
      if (!id.isWellFormed()) {
        this.#idStart[i] = -1;
        this.#idEnd[i] = -1;
        this.#oddIds.set(i, id);
        return;
      }
      this.#idAscii = false;
    }
    const base = (this.#idPieces.length - 1) << ID_PIECE_BITS;
    this.#idStart[i] = base + this.#idUsed;
    this.#idEnd[i] = base + (this.#idUsed += bytes);
  }

  #grow(): void {
    const n = this.#action.length * 2;
    const grown = <T extends Uint8Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.#action = grown(this.#action, (k) => new Uint8Array(k));
    this.#index = grown(this.#index, (k) => new Int32Array(k));
    this.#idStart = grown(this.#idStart, (k) => new Int32Array(k));
    this.#idEnd = grown(this.#idEnd, (k) => new Int32Array(k));
  }
}
