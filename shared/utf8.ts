/**
 * Strict UTF-8 decoding of request bodies, refusing invalid bytes as Elasticsearch does: its JSON
 * parser (Jackson's UTF8StreamJsonParser) stops at the first bad byte with "Invalid UTF-8 start
 * byte 0x…" or "Invalid UTF-8 middle byte 0x…", which ES reports as a 400 `x_content_parse_exception`
 * `[line:col] …` (JsonXContentParser wraps Jackson's message with its location). Nothing is ever
 * replaced by U+FFFD.
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/x-content/impl/src/main/java/org/elasticsearch/xcontent/provider/json/JsonXContentParser.java
 * @see https://github.com/FasterXML/jackson-core/blob/2.17/src/main/java/com/fasterxml/jackson/core/json/UTF8StreamJsonParser.java
 */
import { isUtf8 } from 'node:buffer';
import { EsError } from '../protocol/errors.ts';
import { DEFAULT_SLICE_MS, yieldToEventLoop } from './event-loop-slices.ts';

/** The first invalid byte of a UTF-8 text: its 1-based line and column (bytes) and Jackson's message. */
export interface Utf8Problem {
  line: number;
  column: number;
  message: string;
}

/** `0x` + lower-case hex without padding, as Jackson prints a byte (`Integer.toHexString`). */
function hex(b: number): string {
  return '0x' + b.toString(16);
}

/**
 * Finds the first invalid UTF-8 sequence of `bytes` (WHATWG rules: no overlongs, surrogates or
 * code points above U+10FFFF), or null when all of it is valid. With `from` (the start of a UTF-8
 * sequence, the bytes before it known valid) the check starts there; lines and columns still count
 * from the first byte.
 */
export function findInvalidUtf8(bytes: Uint8Array, from = 0): Utf8Problem | null {
  let line = 1;
  let lineStart = 0;
  for (let nl = bytes.indexOf(0x0a); nl >= 0 && nl < from; nl = bytes.indexOf(0x0a, nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  const at = (i: number, message: string): Utf8Problem => ({ line, column: i - lineStart + 1, message });
  for (let i = from; i < bytes.length;) {
    const b = bytes[i];
    if (b < 0x80) {
      if (b === 0x0a) {
        line++;
        lineStart = i + 1;
      }
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return at(i, `Invalid UTF-8 start byte ${hex(b)}`);
    for (let k = 1; k <= need; k++) {
      if (i + k >= bytes.length) return at(i + k, 'Unexpected end-of-input in VALUE_STRING');
      const c = bytes[i + k];
      if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return at(i + k, `Invalid UTF-8 middle byte ${hex(c)}`);
    }
    i += need + 1;
  }
  return null;
}

/** The 400 ES answers for `problem` in a request body (`x_content_parse_exception` `[line:col] …`). */
export function invalidUtf8Error(problem: Utf8Problem): EsError {
  return new EsError(400, 'x_content_parse_exception', `[${problem.line}:${problem.column}] ${problem.message}`);
}

/**
 * Decodes a request body as UTF-8 (a leading BOM is dropped), refusing any invalid byte.
 * @throws EsError 400 `x_content_parse_exception` `[1:12] Invalid UTF-8 start byte 0xff`
 */
export function decodeUtf8Strict(bytes: Uint8Array): string {
  // node:buffer's isUtf8 validates with simdutf (GB/s); Buffer#toString then decodes without a second
  // check. A strict TextDecoder does both in one pass but at a tenth of the speed (127 ms for 32 MiB here).
  if (!isUtf8(bytes)) throw invalidUtf8Error(findInvalidUtf8(bytes) ?? { line: 1, column: 1, message: 'Invalid UTF-8' });
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hasBom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  return buf.toString('utf8', hasBom ? 3 : 0);
}

/** Bytes validated and decoded per piece by {@link decodeUtf8StrictSliced} (a fraction of a ms each). */
export const DECODE_PIECE_BYTES = 256 * 1024;

/** Bytes of the UTF-8 sequence that starts with `lead` (1 for ASCII and for a byte no sequence starts with). */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

/**
 * Where a piece of `bytes` that would end at `end` ends so that no UTF-8 sequence is cut: `end`,
 * or the start of the sequence that `end` falls inside (at most 3 bytes back). A valid text is
 * then valid piece by piece, and the first invalid piece holds the text's first invalid byte.
 */
export function pieceEnd(bytes: Uint8Array, end: number): number {
  if (end >= bytes.length) return bytes.length;
  if ((bytes[end] & 0xc0) !== 0x80) return end; // not a continuation byte: a sequence starts here
  for (let j = end - 1; j >= 0 && j >= end - 3; j--) {
    if ((bytes[j] & 0xc0) === 0x80) continue;
    return j + sequenceLength(bytes[j]) > end ? j : end;
  }
  return end;
}

/**
 * {@link decodeUtf8Strict} in pieces of {@link DECODE_PIECE_BYTES} that yield to the event loop
 * (`setImmediate`) whenever about {@link DEFAULT_SLICE_MS} of work has passed: a 4 MiB body is
 * validated and decoded in one task otherwise, and several such bodies finishing together hold
 * every other request of the service (docs/reliability.md, the abuse suite). Same text, same error
 * (the first invalid byte's line and column in the whole body).
 * @throws EsError 400 `x_content_parse_exception` `[3:12] Invalid UTF-8 start byte 0xff`
 */
export async function decodeUtf8StrictSliced(bytes: Uint8Array, pieceBytes = DECODE_PIECE_BYTES): Promise<string> {
  if (bytes.byteLength <= pieceBytes) return decodeUtf8Strict(bytes);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  let started = performance.now();
  const hasBom = buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  for (let start = 0; start < buf.length;) {
    const end = pieceEnd(buf, start + pieceBytes);
    const piece = buf.subarray(start, end);
    if (!isUtf8(piece)) throw invalidUtf8Error(findInvalidUtf8(buf, start) ?? { line: 1, column: 1, message: 'Invalid UTF-8' });
    parts.push(piece.toString('utf8', start === 0 && hasBom ? 3 : 0));
    start = end;
    if (performance.now() - started >= DEFAULT_SLICE_MS) {
      await yieldToEventLoop();
      started = performance.now();
    }
  }
  return parts.join('');
}

/**
 * Whether `bytes` are valid UTF-8, checked in pieces of {@link DECODE_PIECE_BYTES} that yield to
 * the event loop whenever about {@link DEFAULT_SLICE_MS} of work has passed, without decoding them
 * (a caller that decodes line by line: coordinator/rest/bulk-parse.ts).
 */
export async function isUtf8Sliced(bytes: Uint8Array, pieceBytes = DECODE_PIECE_BYTES): Promise<boolean> {
  let started = performance.now();
  for (let start = 0; start < bytes.length;) {
    const end = pieceEnd(bytes, start + pieceBytes);
    if (!isUtf8(bytes.subarray(start, end))) return false;
    start = end;
    if (performance.now() - started >= DEFAULT_SLICE_MS) {
      await yieldToEventLoop();
      started = performance.now();
    }
  }
  return true;
}
