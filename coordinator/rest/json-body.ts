/**
 * Request body JSON parsing with Elasticsearch's errors. ES parses bodies with Jackson in strict
 * duplicate-detection mode and reports syntax errors as `x_content_parse_exception`
 * `[line:col] <Jackson message>`; a top level that is not an object is rejected by
 * `SearchSourceBuilder.parseXContent` with `parsing_exception` `Expected [START_OBJECT] but found [X]`.
 *
 * `JSON.parse` gives neither positions (reliably) nor duplicate detection, so a small validating
 * scanner runs first and computes Jackson-style messages with 1-based line and column.
 * @see https://github.com/elastic/elasticsearch/blob/main/libs/x-content/impl/src/main/java/org/elasticsearch/xcontent/provider/json/JsonXContentParser.java
 */
import { EsError, parsingException } from '../../protocol/errors.ts';
import { DEFAULT_SLICE_MS, yieldToEventLoop } from '../../shared/event-loop-slices.ts';
import { parseJsonSliced } from '../../shared/json-parse-sliced.ts';
import { CLOCK_EVERY, runAtOnce, runSliced, type SliceClock, type Steps } from '../../shared/sliced-work.ts';
import { tokenName } from './params.ts';

/** Jackson's default `StreamReadConstraints.maxNestingDepth`. */
export const MAX_JSON_NESTING_DEPTH = 1000;

/** A run of JSON whitespace (sticky: matches at `lastIndex`, possibly empty). */
const WHITESPACE_RUN = /[ \n\r\t]*/y;
/** A run of string characters that need no check: not a quote, backslash or control character. */
// eslint-disable-next-line no-control-regex -- U+0000–U+001F are exactly the characters JSON (RFC 8259 §7) requires escaped
const PLAIN_STRING_RUN = /[^"\\\u0000-\u001f]*/y;

class ScanError extends Error {
  readonly pos: number;
  readonly msg: string;
  constructor(pos: number, msg: string) {
    super(msg);
    this.pos = pos;
    this.msg = msg;
  }
}

function describe(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  const shown = code < 32 ? `CTRL-CHAR, code ${code}` : `'${String.fromCodePoint(code)}' (code ${code})`;
  return code < 32 ? `Illegal character ((${shown}))` : `Unexpected character (${shown})`;
}

const VALUE_EXPECTED = "expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')";

/** Validates `text` as one JSON value (plus trailing whitespace); throws ScanError at the first problem. */
class Scanner {
  readonly text: string;
  pos = 0;
  constructor(text: string) {
    this.text = text;
  }

  ws(): void {
    WHITESPACE_RUN.lastIndex = this.pos;
    WHITESPACE_RUN.test(this.text);
    this.pos = WHITESPACE_RUN.lastIndex;
  }

  fail(what: string, eofWhat: string): never {
    if (this.pos >= this.text.length) throw new ScanError(this.pos, `Unexpected end-of-input: ${eofWhat}`);
    throw new ScanError(this.pos, `${describe(this.text[this.pos])}: ${what}`);
  }

  /** Validates one value (and every value nested in it) at `pos`, in the calling task. */
  value(): void {
    runAtOnce((clock) => this.valueSteps(clock));
  }

  /**
   * {@link Scanner.value} as pausable steps (shared/sliced-work.ts): containers are tracked on an
   * explicit stack rather than by recursion, so the scan can pause between any two values and
   * resume, with the same errors at the same positions.
   */
  *valueSteps(clock: SliceClock): Steps<void> {
    /** The open containers: an object's keys seen so far, or null for an array. */
    const stack: (Set<string> | null)[] = [];
    let count = 0;
    for (;;) {
      // A value is expected at `pos`.
      this.ws();
      const c = this.text[this.pos];
      let opened = false;
      if (c === '{' || c === '[') {
        if (stack.length >= MAX_JSON_NESTING_DEPTH) {
          throw new ScanError(
            this.pos,
            `Document nesting depth (${stack.length + 1}) exceeds the maximum allowed (${MAX_JSON_NESTING_DEPTH}, from \`StreamReadConstraints.getMaxNestingDepth()\`)`,
          );
        }
        this.pos++;
        this.ws();
        if (this.text[this.pos] === (c === '{' ? '}' : ']'))
          this.pos++; // empty
        else {
          const seen = c === '{' ? new Set<string>() : null;
          stack.push(seen);
          if (seen) this.member(seen);
          opened = true;
        }
      } else if (c === '"') this.string();
      else if (c === '-' || (c >= '0' && c <= '9')) this.number();
      else if (c !== undefined && /[a-zA-Z]/.test(c)) this.literal();
      else this.fail(VALUE_EXPECTED, 'expected a value');
      if ((++count & (CLOCK_EVERY - 1)) === 0 && clock.due()) yield;
      if (opened) continue;
      // A value ended: a comma (next member) or the end of enclosing containers.
      for (;;) {
        if (stack.length === 0) return;
        const seen = stack[stack.length - 1];
        this.ws();
        const d = this.text[this.pos];
        if (d === ',') {
          this.pos++;
          if (seen) this.member(seen);
          break;
        }
        if (d === (seen ? '}' : ']')) {
          this.pos++;
          stack.pop();
          continue;
        }
        if (seen) this.fail('was expecting comma to separate Object entries', 'expected close marker for Object');
        this.fail('was expecting comma to separate Array entries', 'expected close marker for Array');
      }
    }
  }

  /** An object member's name and colon (the value follows), checking for a duplicate name. */
  private member(seen: Set<string>): void {
    this.ws();
    if (this.text[this.pos] !== '"') this.fail('was expecting double-quote to start field name', 'expected close marker for Object');
    const start = this.pos;
    this.string();
    const name = JSON.parse(this.text.slice(start, this.pos)) as string;
    if (seen.has(name)) throw new ScanError(start, `Duplicate field '${name}'`);
    seen.add(name);
    this.ws();
    if (this.text[this.pos] !== ':') this.fail('was expecting a colon to separate field name and value', 'expected a colon');
    this.pos++;
  }

  string(): void {
    const t = this.text;
    this.pos++;
    while (this.pos < t.length) {
      // Skip the run of plain characters in one native step: the scan then costs what the regex
      // engine costs per character, not a JavaScript loop iteration (a 32 MiB string: ~5x faster).
      PLAIN_STRING_RUN.lastIndex = this.pos;
      PLAIN_STRING_RUN.test(t);
      this.pos = PLAIN_STRING_RUN.lastIndex;
      if (this.pos >= t.length) break;
      const c = t[this.pos];
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === '\\') {
        const e = t[this.pos + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(t.slice(this.pos + 2, this.pos + 6))) {
            this.pos += 2;
            this.fail('expected a hex-digit for character escape sequence', 'was expecting closing quote for a string value');
          }
          this.pos += 6;
          continue;
        }
        if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          this.pos += 2;
          continue;
        }
        this.pos++;
        if (e === undefined) this.fail('', 'was expecting closing quote for a string value');
        throw new ScanError(this.pos, `Unrecognized character escape '${e}' (code ${e.codePointAt(0)})`);
      }
      if (c.charCodeAt(0) < 32) {
        throw new ScanError(
          this.pos,
          `Illegal unquoted character ((CTRL-CHAR, code ${c.charCodeAt(0)})): has to be escaped using backslash to be included in string value`,
        );
      }
      this.pos++;
    }
    this.fail('', 'was expecting closing quote for a string value');
  }

  number(): void {
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos));
    if (!m || m[0] === '-') {
      this.pos += m ? 1 : 0;
      this.fail('expected digit (0-9) to follow minus sign, for valid numeric value', 'expected digit');
    }
    this.pos += m[0].length;
  }

  literal(): void {
    const m = /^[a-zA-Z0-9_$]+/.exec(this.text.slice(this.pos)) as RegExpExecArray;
    if (m[0] !== 'true' && m[0] !== 'false' && m[0] !== 'null') {
      throw new ScanError(this.pos, `Unrecognized token '${m[0]}': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')`);
    }
    this.pos += m[0].length;
  }
}

/** 1-based line and column (Jackson's) of a UTF-16 offset. */
function lineCol(text: string, pos: number): [number, number] {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < pos && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return [line, pos - lineStart + 1];
}

/**
 * Parses a request body. Whitespace-only text is "no body" (`undefined`), as ES's
 * `hasContentOrSourceParam`.
 * @returns the parsed JSON object, or undefined for an empty body.
 * @throws EsError 400 `x_content_parse_exception` `[line:col] Unexpected character ('}' (code 125)): …`
 *   (also `Duplicate field 'x'`, `Unexpected end-of-input: …`, `Unrecognized token 'x': …`);
 *   400 `parsing_exception` `Expected [START_OBJECT] but found [START_ARRAY]` for a non-object top level,
 *   `Unexpected token [X] found after the main object.` for trailing values.
 * @example parseJsonBody('{"size": 3}') // {size: 3}
 */
export function parseJsonBody(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return undefined;
  const sc = new Scanner(text);
  try {
    sc.value();
    sc.ws();
  } catch (e) {
    throw located(text, e);
  }
  let root: unknown;
  try {
    root = JSON.parse(text.slice(0, sc.pos));
  } catch (e) {
    throw new EsError(400, 'x_content_parse_exception', `[1:1] ${(e as Error).message}`);
  }
  return checkRoot(text, sc, root);
}

/** Bodies from this many characters on are parsed by {@link parseJsonBodySliced} in slices. */
export const SLICED_BODY_CHARS = 256 * 1024;

/**
 * {@link parseJsonBody} for the coordinator's request bodies: a body of {@link SLICED_BODY_CHARS}
 * or more is checked for blanks, scanned and `JSON.parse`d in event-loop slices of about `sliceMs`
 * (shared/json-parse-sliced.ts), with the same result and the same errors. Scanning and parsing a
 * 750 KB search with a 60,000-value `terms` list took 15-50 ms per MiB in one task each and held
 * the coordinator's `/livez` that long (docs/reliability.md, the abuse suite).
 * @throws EsError as {@link parseJsonBody} (the promise rejects).
 */
export async function parseJsonBodySliced(text: string, sliceMs = DEFAULT_SLICE_MS): Promise<Record<string, unknown> | undefined> {
  if (text.length < SLICED_BODY_CHARS) return parseJsonBody(text);
  if (await isBlankSliced(text)) return undefined;
  const sc = new Scanner(text);
  try {
    await runSliced((clock) => sc.valueSteps(clock), sliceMs);
    sc.ws();
  } catch (e) {
    throw located(text, e);
  }
  let root: unknown;
  try {
    root = await parseJsonSliced(text.slice(0, sc.pos), sliceMs);
  } catch (e) {
    throw new EsError(400, 'x_content_parse_exception', `[1:1] ${(e as Error).message}`);
  }
  return checkRoot(text, sc, root);
}

/** A scan error as ES's `x_content_parse_exception` at its line and column; anything else as is. */
function located(text: string, e: unknown): unknown {
  if (!(e instanceof ScanError)) return e;
  const [line, col] = lineCol(text, e.pos);
  return new EsError(400, 'x_content_parse_exception', `[${line}:${col}] ${e.msg}`);
}

/** The parsed body when it is an object with nothing after it; else ES's `parsing_exception`. */
function checkRoot(text: string, sc: Scanner, root: unknown): Record<string, unknown> {
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw parsingException(`Expected [START_OBJECT] but found [${tokenName(root)}]`);
  }
  if (sc.pos < text.length) {
    const [line, col] = lineCol(text, sc.pos);
    const trailing = new Scanner(text.slice(sc.pos));
    let token: string;
    const c = text[sc.pos];
    if (c === '{') token = 'START_OBJECT';
    else if (c === '[') token = 'START_ARRAY';
    else if (c === '}') token = 'END_OBJECT';
    else if (c === ']') token = 'END_ARRAY';
    else {
      try {
        trailing.value();
      } catch (e) {
        if (!(e instanceof ScanError)) throw e;
        throw new EsError(400, 'x_content_parse_exception', `[${line}:${col}] ${e.msg}`);
      }
      token = tokenName(JSON.parse(text.slice(sc.pos, sc.pos + trailing.pos)));
    }
    throw parsingException(`Unexpected token [${token}] found after the main object.`, line, col);
  }
  return root as Record<string, unknown>;
}

/** Characters {@link isBlankSliced} checks per step. */
const BLANK_CHECK_CHARS = 1 << 20;
/** Any character `String.prototype.trim` keeps (`\s` is the same WhiteSpace and LineTerminator set). */
const NOT_WHITESPACE = /\S/;

/**
 * `text.trim() === ''` a window at a time, yielding to the event loop whenever about
 * {@link DEFAULT_SLICE_MS} has passed: a body of 4 MiB of blanks (an empty body to ES) is otherwise
 * scanned in one task, twice. Returns at the first character that is not whitespace.
 */
export async function isBlankSliced(text: string): Promise<boolean> {
  let started = performance.now();
  for (let i = 0; i < text.length; i += BLANK_CHECK_CHARS) {
    if (NOT_WHITESPACE.test(text.slice(i, i + BLANK_CHECK_CHARS))) return false;
    if (performance.now() - started >= DEFAULT_SLICE_MS) {
      await yieldToEventLoop();
      started = performance.now();
    }
  }
  return true;
}
