/**
 * Append-only typed-array buffers for building segments without one JS object per value, the role
 * Lucene's `ByteBlockPool`/`IntBlockPool` play in its indexing chain. Capacity doubles on growth;
 * `seal()` returns an exact-size copy so a segment keeps no slack.
 * @see https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/IntBlockPool.java
 */

/** A growable `Int32Array`: `push` appends, `set` writes at any index (growing with zeros). */
export class IntBuffer {
  /** Backing array; valid entries are `[0, length)`. */
  a: Int32Array;
  length = 0;

  constructor(capacity = 16) {
    this.a = new Int32Array(capacity);
  }

  /** Appends one value. */
  push(v: number): void {
    if (this.length === this.a.length) this.grow(this.length + 1);
    this.a[this.length++] = v;
  }

  /** Writes `v` at `i`, extending the length to `i + 1` when needed (gaps read as 0). */
  set(i: number, v: number): void {
    if (i >= this.a.length) this.grow(i + 1);
    this.a[i] = v;
    if (i >= this.length) this.length = i + 1;
  }

  private grow(min: number): void {
    const b = new Int32Array(Math.max(min, this.a.length * 2, 16));
    b.set(this.a.subarray(0, this.length));
    this.a = b;
  }

  /** An exact-size copy of `[0, n)` (n defaults to the length; entries past the length are 0). */
  seal(n = this.length): Int32Array {
    const out = new Int32Array(n);
    out.set(this.a.subarray(0, Math.min(n, this.length)));
    return out;
  }
}

/** A growable `Float64Array` written by index (gaps read as 0). */
export class FloatBuffer {
  a: Float64Array;
  length = 0;

  constructor(capacity = 16) {
    this.a = new Float64Array(capacity);
  }

  /** Writes `v` at `i`, extending the length to `i + 1` when needed. */
  set(i: number, v: number): void {
    if (i >= this.a.length) {
      const b = new Float64Array(Math.max(i + 1, this.a.length * 2));
      b.set(this.a.subarray(0, this.length));
      this.a = b;
    }
    this.a[i] = v;
    if (i >= this.length) this.length = i + 1;
  }

  /** An exact-size copy of `[0, n)`. */
  seal(n: number): Float64Array {
    const out = new Float64Array(n);
    out.set(this.a.subarray(0, Math.min(n, this.length)));
    return out;
  }
}

/** A growable `Uint8Array` written by index (gaps read as 0): norms and presence flags. */
export class ByteBuffer {
  a: Uint8Array;
  length = 0;

  constructor(capacity = 16) {
    this.a = new Uint8Array(capacity);
  }

  /** Writes `v` at `i`, extending the length to `i + 1` when needed. */
  set(i: number, v: number): void {
    if (i >= this.a.length) {
      const b = new Uint8Array(Math.max(i + 1, this.a.length * 2));
      b.set(this.a.subarray(0, this.length));
      this.a = b;
    }
    this.a[i] = v;
    if (i >= this.length) this.length = i + 1;
  }

  /** An exact-size copy of `[0, n)`. */
  seal(n: number): Uint8Array {
    const out = new Uint8Array(n);
    out.set(this.a.subarray(0, Math.min(n, this.length)));
    return out;
  }
}
