/**
 * The Elasticsearch `standard` analyzer: the Unicode word-break tokenizer (an approximation of
 * UAX#29 as Lucene's StandardTokenizer implements it), then lowercasing. No stop words (ES default).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/analysis-standard-analyzer.html
 * @see https://unicode.org/reports/tr29/#Word_Boundaries
 */

/** One analyzed token: the lowercased term and its position (0-based, +1 per token). */
export interface Token {
  term: string;
  position: number;
}

/** Lucene `StandardAnalyzer.DEFAULT_MAX_TOKEN_LENGTH`: longer tokens are split every 255 UTF-16 units. */
export const MAX_TOKEN_LENGTH = 255;

/** ES `position_increment_gap` for text fields: the position gap between values of an array. */
export const POSITION_INCREMENT_GAP = 100;

// Han and Hiragana are single-character tokens (<IDEOGRAPHIC>, <HIRAGANA>); Katakana runs stay
// together (UAX#29 WB13, Lucene <KATAKANA>). Everything else that is a letter, mark, digit or
// connector punctuation forms word runs, joined across MidLetter/MidNumLet between two letters
// (`can't`, `u.s.a`) and across MidNum/MidNumLet between two digits (`3.14`, `1,000`).
const CJK = '[\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}]';
const X = `[[\\p{L}\\p{M}\\p{N}\\p{Pc}]--${CJK}]`;
const LETTER = `[\\p{L}--${CJK}]`;
const MID_LETTER = "[':.\\u2019\\u2018\\u00B7\\u0387\\u05F4\\u2027\\uFE13\\uFE55\\uFF1A\\u2024\\uFE52\\uFF07\\uFF0E]";
const MID_NUM = "[.,;'\\u2019\\u2018\\u037E\\u0589\\u060C\\u060D\\u066C\\u07F8\\u2044\\uFE10\\uFE14\\uFE50\\uFE54\\uFF0C\\uFF1B\\u2024\\uFE52\\uFF07\\uFF0E]";
const JOIN = `(?:(?<=${LETTER}\\p{M}*)${MID_LETTER}(?=${LETTER})|(?<=\\p{N})${MID_NUM}(?=\\p{N}))`;
const TOKEN_RE = new RegExp(`[\\p{sc=Han}\\p{sc=Hiragana}]|[\\p{sc=Katakana}\\u30FC]+|${X}+(?:${JOIN}${X}+)*`, 'gv');
const HAS_ALNUM = /[\p{L}\p{N}]/u;

/**
 * Calls `emit(term)` for each token of `text`, in order. The allocation-light core of {@link analyze}.
 * Tokens made only of connector punctuation or marks (`___`) are dropped, as Lucene emits no type for them.
 */
export function forEachTerm(text: string, emit: (term: string) => void): void {
  const re = TOKEN_RE;
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    let t = m[0];
    const c = t.charCodeAt(0);
    // Fast path: ASCII letters/digits need no alnum check.
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90)) && !HAS_ALNUM.test(t)) continue;
    t = t.toLowerCase();
    if (t.length <= MAX_TOKEN_LENGTH) emit(t);
    else for (let i = 0; i < t.length; i += MAX_TOKEN_LENGTH) emit(t.slice(i, i + MAX_TOKEN_LENGTH));
  }
}

/** The lowercased terms of `text` in order (positions are the array indexes). */
export function analyzeTerms(text: string): string[] {
  const out: string[] = [];
  forEachTerm(text, (t) => out.push(t));
  return out;
}

/**
 * Analyzes `text` like ES's `standard` analyzer (`POST _analyze {"analyzer":"standard"}`).
 * @param startPosition position of the first token (for array values after a gap).
 * @example analyze("Can't stop U.S.A 3.14") // can't/0, stop/1, u.s.a/2, 3.14/3
 */
export function analyze(text: string, startPosition = 0): Token[] {
  const out: Token[] = [];
  let pos = startPosition;
  forEachTerm(text, (term) => out.push({ term, position: pos++ }));
  return out;
}

const OFFSET_TOKEN_RE = new RegExp(TOKEN_RE.source, TOKEN_RE.flags); // its own lastIndex: `emit` may call forEachTerm

/**
 * Calls `emit(term, start, end)` for each token of `text` with its UTF-16 offsets in `text` (Lucene
 * `OffsetAttribute`): the same tokens as {@link forEachTerm}, for the highlighter, which marks
 * matches in the original text. A token split at {@link MAX_TOKEN_LENGTH} gives each piece its own offsets.
 */
export function forEachToken(text: string, emit: (term: string, start: number, end: number) => void): void {
  const re = OFFSET_TOKEN_RE;
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const raw = m[0];
    const c = raw.charCodeAt(0);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90)) && !HAS_ALNUM.test(raw)) continue;
    const start = m.index;
    if (raw.length <= MAX_TOKEN_LENGTH) emit(raw.toLowerCase(), start, start + raw.length);
    else
      for (let i = 0; i < raw.length; i += MAX_TOKEN_LENGTH)
        emit(raw.slice(i, i + MAX_TOKEN_LENGTH).toLowerCase(), start + i, start + Math.min(raw.length, i + MAX_TOKEN_LENGTH));
  }
}
