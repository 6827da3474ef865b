/**
 * `JSON.parse` of a large text in pieces that yield to the event loop. One `JSON.parse` of a
 * 750 KB query holding a 60,000-value `terms` list took 45-145 ms on a loaded shard node (the
 * 70,000 strings it allocates set off garbage collection inside it), and held `/livez` that long
 * (docs/reliability.md, the abuse suite). Here the text is cut at the boundaries of its large
 * arrays and objects: runs of consecutive elements (or members) of about {@link PIECE_CHARS}
 * characters are parsed by `JSON.parse` each, and elements too large for a piece are cut the same
 * way, recursively. The result equals `JSON.parse(text)` (the same values, the same own keys in the
 * same order, `__proto__` an own property), and a text `JSON.parse` refuses is refused with a
 * `SyntaxError`.
 * @see https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/JSON/parse
 */
import { DEFAULT_SLICE_MS } from './event-loop-slices.ts';
import { runAtOnce, runSliced, type SliceClock, type Steps } from './sliced-work.ts';

/** Characters parsed by one `JSON.parse` call (a small fraction of a millisecond). */
export const PIECE_CHARS = 16 * 1024;
/** Past this many nested cut levels, the rest of a value is parsed whole (stack safety). */
const MAX_CUT_DEPTH = 32;

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** How a text is cut: the size of a piece, and the clock of the running slice. */
interface Cut {
  piece: number;
  clock: SliceClock;
}

const isSpace = (c: number): boolean => c === SPACE || c === LF || c === CR || c === TAB;

function syntaxError(at: number, what: string): SyntaxError {
  return new SyntaxError(`${what} in JSON at position ${at}`);
}

/** The index after the string whose opening quote is at `i` (escapes skipped; validity is JSON.parse's job). */
function skipString(text: string, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  throw syntaxError(end, 'Unterminated string');
}

/**
 * The index after the value starting at `i` (no leading space): a string, a nested array or
 * object (brackets balanced, strings skipped), or a literal up to the next separator.
 */
function skipValue(text: string, i: number, end: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return skipString(text, i, end);
  if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
    let depth = 0;
    for (let j = i; j < end; j++) {
      const d = text.charCodeAt(j);
      if (d === QUOTE) j = skipString(text, j, end) - 1;
      else if (d === OPEN_ARRAY || d === OPEN_OBJECT) depth++;
      else if (d === CLOSE_ARRAY || d === CLOSE_OBJECT) {
        if (--depth === 0) return j + 1;
      }
    }
    throw syntaxError(end, 'Unexpected end of input');
  }
  let j = i;
  while (j < end) {
    const d = text.charCodeAt(j);
    if (d === COMMA || d === CLOSE_ARRAY || d === CLOSE_OBJECT || isSpace(d)) break;
    j++;
  }
  if (j === i) throw syntaxError(i, 'Unexpected token');
  return j;
}

function skipSpace(text: string, i: number, end: number): number {
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * The value of the JSON string `text[start, end)` (quotes included) when it holds no escape and no
 * control character, else null. Such a string's value is its text between the quotes, so it is
 * cut out with `slice` instead of `JSON.parse`: V8's `JSON.parse` internalizes every string value
 * of at most 10 characters (`JsonParser::kMaxInternalizedStringValueLength`), so a `terms` list of
 * 60,000 short values put 60,000 strings in the isolate's string table per search, where they stay
 * until a full garbage collection; its growth made single 16 KB pieces take 60-300 ms
 * (docs/reliability.md, the abuse suite).
 * @see https://github.com/v8/v8/blob/main/src/json/json-parser.h
 */
function plainString(text: string, start: number, end: number): string | null {
  for (let j = start + 1; j < end - 1; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH || c < SPACE) return null;
  }
  return text.slice(start + 1, end - 1);
}

/** Copies the own properties of `from` onto `to` as JSON.parse defines them (plain data, `__proto__` included). */
function assign(to: Record<string, unknown>, from: Record<string, unknown>): void {
  for (const k of Object.keys(from)) Object.defineProperty(to, k, { value: from[k], writable: true, enumerable: true, configurable: true });
}

/**
 * The members (array elements, or object `key: value` pairs) of the container whose brackets are at
 * `open` and `close - 1`, parsed in pieces: consecutive small members are parsed together, a member
 * larger than a piece on its own (its value cut again while `depth` allows).
 */
function* parseContainer(text: string, open: number, close: number, depth: number, cut: Cut): Steps<unknown> {
  const isArray = text.charCodeAt(open) === OPEN_ARRAY;
  const out: unknown[] | Record<string, unknown> = isArray ? [] : {};
  const inner = close - 1;
  let i = skipSpace(text, open + 1, inner);
  if (i === inner) return JSON.parse(text.slice(open, close)) as unknown; // empty
  // The group: consecutive small members in `text[groupStart, groupEnd)` (commas included), none while groupStart < 0.
  let groupStart = -1;
  let groupEnd = -1;
  /** Characters of plain string elements taken since the last yield check. */
  let plainChars = 0;
  let plain: string | null;
  const flush = (): void => {
    if (groupStart < 0) return;
    const part: unknown = JSON.parse((isArray ? '[' : '{') + text.slice(groupStart, groupEnd) + (isArray ? ']' : '}'));
    if (isArray) for (const v of part as unknown[]) (out as unknown[]).push(v);
    else assign(out as Record<string, unknown>, part as Record<string, unknown>);
    groupStart = -1;
  };
  for (;;) {
    const memberStart = i;
    let valueStart = i;
    if (!isArray) {
      if (text.charCodeAt(i) !== QUOTE) throw syntaxError(i, 'Expected property name');
      const keyEnd = skipString(text, i, inner);
      valueStart = skipSpace(text, keyEnd, inner);
      if (text.charCodeAt(valueStart) !== COLON) throw syntaxError(valueStart, "Expected ':' after property name");
      valueStart = skipSpace(text, valueStart + 1, inner);
    }
    if (valueStart >= inner) throw syntaxError(valueStart, 'Unexpected token');
    const valueEnd = skipValue(text, valueStart, inner);
    if (valueEnd - valueStart > cut.piece) {
      flush();
      const value = yield* parseValue(text, valueStart, valueEnd, depth + 1, cut);
      if (isArray) (out as unknown[]).push(value);
      else
        Object.defineProperty(out, JSON.parse(text.slice(memberStart, skipString(text, memberStart, inner))) as string, {
          value,
          writable: true,
          enumerable: true,
          configurable: true,
        });
    } else if (isArray && text.charCodeAt(valueStart) === QUOTE && (plain = plainString(text, valueStart, valueEnd)) !== null) {
      // A string element without escapes: its text, not an internalized copy (see plainString).
      flush();
      (out as unknown[]).push(plain);
      plainChars += valueEnd - valueStart + 1;
      if (plainChars >= cut.piece) {
        plainChars = 0;
        if (cut.clock.due()) yield;
      }
    } else {
      if (groupStart < 0) groupStart = memberStart;
      groupEnd = valueEnd;
      if (groupEnd - groupStart >= cut.piece) {
        flush();
        if (cut.clock.due()) yield;
      }
    }
    i = skipSpace(text, valueEnd, inner);
    if (i === inner) break;
    if (text.charCodeAt(i) !== COMMA) throw syntaxError(i, "Expected ',' or end of container");
    i = skipSpace(text, i + 1, inner);
    if (i === inner) throw syntaxError(i, 'Unexpected trailing comma');
  }
  flush();
  return out;
}

/** The value in `text[start, end)` (no surrounding space), cut into pieces when it is large. */
function* parseValue(text: string, start: number, end: number, depth: number, cut: Cut): Steps<unknown> {
  const c = text.charCodeAt(start);
  if (end - start <= cut.piece || depth > MAX_CUT_DEPTH || (c !== OPEN_ARRAY && c !== OPEN_OBJECT)) return JSON.parse(text.slice(start, end)) as unknown;
  const close = text.charCodeAt(end - 1);
  if (close !== (c === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT)) throw syntaxError(end - 1, 'Unexpected token');
  return yield* parseContainer(text, start, end, depth, cut);
}

/** The steps of parsing all of `text` (one value, surrounding space allowed). */
function* parseText(text: string, cut: Cut): Steps<unknown> {
  const start = skipSpace(text, 0, text.length);
  if (start === text.length) return JSON.parse(text) as unknown; // JSON.parse's own error
  const end = skipValue(text, start, text.length);
  if (skipSpace(text, end, text.length) !== text.length) throw syntaxError(end, 'Unexpected non-whitespace character after JSON');
  return yield* parseValue(text, start, end, 0, cut);
}

/**
 * `JSON.parse(text)` in slices of about `sliceMs`, yielding to the event loop (`setImmediate`)
 * between them; a text of at most {@link PIECE_CHARS} characters is parsed at once.
 * @throws SyntaxError (the promise rejects) where `JSON.parse` would throw.
 * @example const body = await parseJsonSliced(text); // deep-equals JSON.parse(text)
 */
export function parseJsonSliced(text: string, sliceMs = DEFAULT_SLICE_MS): Promise<unknown> {
  if (text.length <= PIECE_CHARS) {
    // Parsed at once, synchronously: an executor that throws rejects the promise with the SyntaxError.
    return new Promise((resolve) => resolve(JSON.parse(text)));
  }
  return runSliced((clock) => parseText(text, { piece: PIECE_CHARS, clock }), sliceMs);
}

/** {@link parseJsonSliced} in the calling task, cut into pieces of at most `pieceChars` (no yields; for tests). */
export function parseJsonInPieces(text: string, pieceChars = PIECE_CHARS): unknown {
  return runAtOnce((clock) => parseText(text, { piece: pieceChars, clock }));
}
