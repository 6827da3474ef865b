/**
 * Folio's highlighter: one implementation for ES's `unified` and `plain` types. A field's values
 * are analyzed with offsets (the standard analyzer for text, the whole value for keyword), the
 * query's clauses (highlight-terms.ts) mark matching tokens, the text is cut into passages
 * (sentences, long ones cut at a token boundary near `fragment_size`, short neighbours joined up
 * to `fragment_size`), each passage with a match is scored as Lucene's `PassageScorer` scores it
 * (BM25 over passages), and the best `number_of_fragments` are returned in text order (or best
 * first with `order: score`), with the matches wrapped in the tags. docs/highlight.md describes the
 * rules and where they differ from ES's.
 *
 * `unified` with `require_field_match` (the default) highlights a matched phrase as one span, as
 * ES 8's unified highlighter does in its `Weight#matches` mode; `plain` (and `unified` without
 * `require_field_match`) wraps each of its terms.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/highlighting.html
 * @see https://github.com/apache/lucene/blob/main/lucene/highlighter/src/java/org/apache/lucene/search/uhighlight/PassageScorer.java
 * @see https://github.com/elastic/elasticsearch/pull/96068
 */
import type { ResolvedHighlightOptions } from '../../../protocol/highlight.ts';
import { forEachToken } from '../analyzer.ts';
import type { HighlightClause } from './highlight-terms.ts';

/** A token of a value with its offsets in the field content (all values joined by one separator). */
interface OffsetToken {
  term: string;
  start: number;
  end: number;
}

/** A marked range of the content and the text it scores as (a term, or a whole phrase). */
interface Span {
  start: number;
  end: number;
  key: string;
}

/** One field of one document to highlight. */
export interface FieldHighlight {
  values: readonly string[];
  /** Keyword field: each value is one token (values over `ignoreAbove` are not indexed, so not highlighted). */
  keyword: boolean;
  ignoreAbove?: number;
  clauses: readonly HighlightClause[];
  options: ResolvedHighlightOptions;
  encoder: 'default' | 'html';
  /** Analyze only this many characters (`max_analyzed_offset`): of the joined values (unified), of each value (plain). */
  analyzedLimit?: number;
}

/** Lucene `PassageScorer` defaults: BM25 k1, b, and the passage length pivot in characters. */
const K1 = 1.2;
const B = 0.75;
const PIVOT = 87;

/** Lucene `SimpleHTMLEncoder`: the characters it escapes. */
const HTML_ESCAPES: Record<string, string> = { '"': '&quot;', '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&#x27;', '/': '&#x2F;' };

/** `encoder: html`: escapes text as Lucene's `SimpleHTMLEncoder` (`" & < > ' /`). */
export function htmlEncode(text: string): string {
  return text.replace(/["&<>'/]/g, (c) => HTML_ESCAPES[c]);
}

/** A Lucene wildcard pattern (`*`, `?`) as an anchored regular expression. */
function wildcardRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  const body = [...pattern].map((c) => (c === '*' ? '[^]*' : c === '?' ? '[^]' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, caseInsensitive ? 'iu' : 'u');
}

/** Tokens of each value, offsets in the joined content; a value starts one character after the previous one ends. */
function tokenize(f: FieldHighlight, bases: number[]): OffsetToken[][] {
  return f.values.map((value, i) => {
    const base = bases[i];
    const tokens: OffsetToken[] = [];
    if (f.keyword) {
      if (f.ignoreAbove === undefined || value.length <= f.ignoreAbove) tokens.push({ term: value, start: base, end: base + value.length });
    } else forEachToken(value, (term, s, e) => tokens.push({ term, start: base + s, end: base + e }));
    const limit = f.analyzedLimit;
    if (limit === undefined) return tokens;
    const cut = f.options.type === 'plain' ? base + limit : limit;
    return tokens.filter((t) => t.end <= cut);
  });
}

/** A token-matching test for a single-token clause. */
function tokenTest(c: Exclude<HighlightClause, { kind: 'phrase' }>): (term: string) => boolean {
  switch (c.kind) {
    case 'terms':
      return c.caseInsensitive ? (t) => c.terms.has(t.toLowerCase()) : (t) => c.terms.has(t);
    case 'prefix': {
      const p = c.caseInsensitive ? c.prefix.toLowerCase() : c.prefix;
      return c.caseInsensitive ? (t) => t.toLowerCase().startsWith(p) : (t) => t.startsWith(p);
    }
    case 'wildcard': {
      const re = wildcardRegExp(c.pattern, c.caseInsensitive);
      return (t) => re.test(t);
    }
  }
}

/**
 * The phrase occurrences in one value's tokens: each start of `terms[0]` followed in order by the
 * other terms, the whole within `terms.length - 1 + slop` positions (exact runs for slop 0; an
 * in-order approximation of Lucene's sloppy phrase for slop > 0). Positions are token indexes.
 * @returns the token indexes of each occurrence's terms.
 */
export function phraseOccurrences(tokens: readonly { term: string }[], terms: readonly string[], slop: number): number[][] {
  const out: number[][] = [];
  const span = terms.length - 1 + Math.max(0, slop);
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].term !== terms[0]) continue;
    const hit = [i];
    let p = i;
    for (let j = 1; j < terms.length; j++) {
      let q = p + 1;
      while (q < tokens.length && q - i <= span && tokens[q].term !== terms[j]) q++;
      if (q >= tokens.length || q - i > span) break;
      hit.push(q);
      p = q;
    }
    if (hit.length === terms.length) out.push(hit);
  }
  return out;
}

/** Every span the clauses mark, sorted and with overlaps merged. */
function markSpans(f: FieldHighlight, tokens: OffsetToken[][], content: string): Span[] {
  const spans: Span[] = [];
  const wholePhrase = f.options.type !== 'plain' && f.options.requireFieldMatch;
  for (const c of f.clauses) {
    if (c.kind === 'phrase') {
      for (const vt of tokens) {
        for (const occ of phraseOccurrences(vt, c.terms, c.slop)) {
          if (wholePhrase) {
            const start = vt[occ[0]].start;
            const end = vt[occ[occ.length - 1]].end;
            spans.push({ start, end, key: content.slice(start, end).toLowerCase() });
          } else for (const i of occ) spans.push({ start: vt[i].start, end: vt[i].end, key: vt[i].term });
        }
      }
      continue;
    }
    const test = tokenTest(c);
    const found: Span[] = [];
    for (const vt of tokens) for (const t of vt) if (test(t.term)) found.push({ start: t.start, end: t.end, key: t.term });
    if (c.kind === 'terms' && c.all) {
      const seen = new Set(found.map((s) => (c.caseInsensitive ? s.key.toLowerCase() : s.key)));
      if ([...c.terms].some((t) => !seen.has(t))) continue; // `operator: and` does not match this field
    }
    spans.push(...found);
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const s of spans) {
    const last = merged.at(-1);
    if (last && s.start < last.end) {
      if (s.end > last.end) last.end = s.end;
    } else merged.push({ ...s });
  }
  return merged;
}

/** Sentence ends: after `.`, `!`, `?` (and closing quotes or brackets) plus spaces before anything but a lower-case letter; after a line break. */
const SENTENCE_END = /[.!?]+["')\]]*\s+(?![\s\p{Ll}])|\r\n|[\n\r\u0085\u2028\u2029]/gu;

/**
 * The passages of one value `[start, end)` (offsets within the value): sentences, a sentence longer
 * than `fragmentSize` cut before the first token that would end past `fragmentSize` from the cut
 * before it, then neighbours joined while the result stays within `fragmentSize`.
 * @example passageBounds('One. Two.', [...tokens], 100) // [[0, 9]]
 */
export function passageBounds(value: string, tokens: readonly { start: number; end: number }[], fragmentSize: number): [number, number][] {
  const units: [number, number][] = [];
  let s = 0;
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(value); m !== null; m = SENTENCE_END.exec(value)) {
    const e = m.index + m[0].length;
    if (e > s) units.push([s, e]);
    s = e;
  }
  if (s < value.length || units.length === 0) units.push([s, value.length]);
  const pieces: [number, number][] = [];
  let t = 0;
  for (const [us, ue] of units) {
    if (ue - us <= fragmentSize) {
      pieces.push([us, ue]);
      continue;
    }
    let cs = us;
    while (t < tokens.length && tokens[t].start < us) t++;
    for (; t < tokens.length && tokens[t].start < ue; t++) {
      const tok = tokens[t];
      if (tok.end - cs > fragmentSize && tok.start > cs) {
        pieces.push([cs, tok.start]);
        cs = tok.start;
      }
    }
    pieces.push([cs, ue]);
  }
  const out: [number, number][] = [];
  for (const p of pieces) {
    const last = out.at(-1);
    if (last && p[1] - last[0] <= fragmentSize) last[1] = p[1];
    else out.push([p[0], p[1]]);
  }
  return out;
}

/**
 * Lucene `PassageScorer.score` of a passage: `norm(start) × Σ weight(term) × tf(freq, length)`
 * with BM25's k1 = 1.2 and b = 0.75, the field content as the collection (`numDocs = 1 + length / 87`).
 */
function passageScore(spans: readonly Span[], start: number, length: number, contentLength: number, totalFreq: ReadonlyMap<string, number>): number {
  const freq = new Map<string, number>();
  for (const s of spans) freq.set(s.key, (freq.get(s.key) ?? 0) + 1);
  const numDocs = 1 + Math.floor(contentLength / PIVOT);
  let score = 0;
  for (const [key, f] of freq) {
    const docFreq = Math.min(numDocs, totalFreq.get(key) ?? 1);
    const weight = (K1 + 1) * Math.log(1 + (numDocs + 0.5) / (docFreq + 0.5));
    const norm = K1 * (1 - B + B * (length / PIVOT));
    score += weight * (f / (f + norm));
  }
  return score * (1 + 1 / Math.log(PIVOT + start));
}

/** `content[start, end)` with the spans inside it wrapped in the tags, every piece encoded. */
function render(content: string, start: number, end: number, spans: readonly Span[], f: FieldHighlight): string {
  const enc = f.encoder === 'html' ? htmlEncode : (t: string) => t;
  const pre = f.options.preTags[0] ?? '';
  const post = f.options.postTags[0] ?? '';
  let out = '';
  let pos = start;
  for (const s of spans) {
    const a = Math.max(s.start, start);
    const b = Math.min(s.end, end);
    if (b <= a) continue;
    out += enc(content.slice(pos, a)) + pre + enc(content.slice(a, b)) + post;
    pos = b;
  }
  return out + enc(content.slice(pos, end));
}

/** Narrows `[start, end)` of `content` past leading and trailing white space. */
function trimmed(content: string, start: number, end: number): [number, number] {
  while (start < end && /\s/.test(content[start])) start++;
  while (end > start && /\s/.test(content[end - 1])) end--;
  return [start, end];
}

/**
 * The fragments of one field, or null when it has none (no match and `no_match_size` 0, or no value).
 * @example highlightField({values: ['The quick brown fox.'], keyword: false, clauses: [{kind: 'terms', terms: new Set(['fox']), all: false}], options, encoder: 'default'})
 *   // ['The quick brown <em>fox</em>.']
 */
export function highlightField(f: FieldHighlight): string[] | null {
  if (f.values.length === 0) return null;
  const bases: number[] = [];
  let len = 0;
  for (const v of f.values) {
    bases.push(len);
    len += v.length + 1;
  }
  const content = f.values.join('\u2029');
  const tokens = tokenize(f, bases);
  const spans = markSpans(f, tokens, content);
  const o = f.options;
  if (spans.length === 0) return noMatchFragment(f, tokens[0], content);
  if (o.numberOfFragments === 0) {
    // Each value with a match, whole, in value order (fragment_size has no effect).
    const out: string[] = [];
    f.values.forEach((v, i) => {
      const inside = spans.filter((s) => s.start >= bases[i] && s.end <= bases[i] + v.length);
      if (inside.length > 0) out.push(render(content, bases[i], bases[i] + v.length, inside, f));
    });
    return out;
  }
  const totalFreq = new Map<string, number>();
  for (const s of spans) totalFreq.set(s.key, (totalFreq.get(s.key) ?? 0) + 1);
  const passages: { start: number; end: number; spans: Span[]; score: number }[] = [];
  let si = 0;
  f.values.forEach((v, i) => {
    const local = tokens[i].map((t) => ({ start: t.start - bases[i], end: t.end - bases[i] }));
    for (const [ps, pe] of passageBounds(v, local, o.fragmentSize)) {
      const [start, end] = trimmed(content, bases[i] + ps, bases[i] + pe);
      while (si < spans.length && spans[si].end <= start) si++;
      const inside: Span[] = [];
      for (let k = si; k < spans.length && spans[k].start < end; k++) inside.push(spans[k]);
      if (inside.length > 0) passages.push({ start, end, spans: inside, score: passageScore(inside, start, end - start, content.length, totalFreq) });
    }
  });
  const best = [...passages].sort((a, b) => b.score - a.score || a.start - b.start).slice(0, o.numberOfFragments);
  if (o.order !== 'score') best.sort((a, b) => a.start - b.start);
  return best.map((p) => render(content, p.start, p.end, p.spans, f));
}

/** ES `no_match_size`: the first value up to the end of its last token within that many characters. */
function noMatchFragment(f: FieldHighlight, tokens: readonly OffsetToken[], content: string): string[] | null {
  const size = f.options.noMatchSize;
  if (size <= 0) return null;
  const value = f.values[0];
  let end = value.length;
  if (value.length > size) {
    end = 0;
    for (const t of tokens) if (t.end <= size) end = t.end;
    if (end === 0) end = size;
  }
  const [s, e] = trimmed(content, 0, end);
  return e > s ? [render(content, s, e, [], f)] : null;
}
