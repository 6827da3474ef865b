/**
 * The coordinator's JSON writer: `JSON.stringify` plus a verbatim splice of every {@link RawJson}
 * (a document's stored `_source` text), so replies carry each `_source` byte for byte as it was
 * indexed, as Elasticsearch copies the stored source bytes into its replies.
 *
 * How: while `JSON.stringify` runs, each RawJson's `toJSON` returns one placeholder string that
 * carries a random per-reply nonce (a client cannot put it in its documents) and records its text;
 * the quoted placeholders are then replaced, in order, by the texts. Measured against a small
 * recursive serializer on search replies of 10 and 1,000 hits (bench/json-writer.ts): the splice
 * is faster, since the native `JSON.stringify` does all the other work (see docs/performance.md).
 *
 * `?pretty` re-indents a spliced text token by token (numbers and strings stay byte-exact; ES
 * re-renders the source with pretty too). `?filter_path` sees each RawJson as a lazy object view:
 * a path that keeps a whole `_source` keeps its exact text, one that reaches inside parses it.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-source-field.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/common-options.html#common-options-response-filtering
 */
import { randomBytes } from 'node:crypto';
import { parseExact } from '../../shared/exact-json.ts';
import { RawJson, withRawJsonCollector } from '../../shared/raw-json.ts';

/** Spaces per level of `?pretty` output (JSON.stringify's and ES's pretty printer's). */
export const PRETTY_INDENT_SPACES = 2;

/**
 * The placeholder's secret part: random per process, never written out (every placeholder is
 * replaced), with a counter per reply; a UUID per reply cost ~1 % of a page-1 search's coordinator CPU.
 */
const TOKEN_PREFIX = `folio-raw-${randomBytes(16).toString('hex')}-`;
let tokenCounter = 0;

/**
 * Serializes `value` as JSON, splicing each {@link RawJson} in verbatim (re-indented when
 * `pretty`). Other values serialize exactly as `JSON.stringify` does.
 * @example writeJson({ hit: new RawJson('{"n": 1.10}') }) // '{"hit":{"n": 1.10}}'
 */
export function writeJson(value: unknown, pretty = false): string {
  const token = TOKEN_PREFIX + (tokenCounter = (tokenCounter + 1) % Number.MAX_SAFE_INTEGER).toString(36);
  const raws: string[] = [];
  const collector = { collect: (text: string): string => (raws.push(text), token) };
  const indent = pretty ? PRETTY_INDENT_SPACES : undefined;
  const out = withRawJsonCollector(collector, () => JSON.stringify(value, null, indent));
  if (raws.length === 0) return out;
  const parts = out.split(`"${token}"`);
  // Only a reply that guessed the random nonce could break this; it then gets parsed values.
  if (parts.length !== raws.length + 1) return JSON.stringify(value, null, indent);
  let s = parts[0];
  // In pretty output each placeholder's part starts with the line it sits on (its key's line).
  for (let i = 0; i < raws.length; i++) s += (pretty ? reindentJson(raws[i], lineIndent(parts[i])) : raws[i]) + parts[i + 1];
  return s;
}

/** The indentation (spaces) of the last line of `s` (a part, never the joined output: that would be quadratic). */
function lineIndent(s: string): number {
  const start = s.lastIndexOf('\n') + 1;
  let i = start;
  while (s.charCodeAt(i) === 32) i++;
  return i - start;
}

/**
 * Re-indents valid JSON `text` as `JSON.stringify(v, null, 2)` lays out a value whose first line
 * sits at `baseIndent` spaces, without parsing it: tokens (strings, numbers, literals) are copied
 * unchanged, whitespace between them is replaced.
 * @example reindentJson('{"a":[1.10, 2]}', 0) // '{\n  "a": [\n    1.10,\n    2\n  ]\n}'
 */
export function reindentJson(text: string, baseIndent: number): string {
  const pad = (depth: number): string => '\n' + ' '.repeat(baseIndent + depth * PRETTY_INDENT_SPACES);
  let out = '';
  let depth = 0;
  const n = text.length;
  const skipWs = (j: number): number => {
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
      j++;
    }
    return j;
  };
  for (let i = skipWs(0); i < n; i = skipWs(i)) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      const next = skipWs(i + 1);
      if (text[next] === close) {
        out += c + close;
        i = next + 1;
      } else {
        depth++;
        out += c + pad(depth);
        i++;
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += pad(depth) + c;
      i++;
    } else if (c === ',') {
      out += ',' + pad(depth);
      i++;
    } else if (c === ':') {
      out += ': ';
      i++;
    } else {
      let j = i;
      while (j < n && !' \t\r\n,:]}'.includes(text[j])) j++;
      out += text.slice(i, j);
      i = j;
    }
  }
  return out;
}

/**
 * A copy of `body` for `filter_path` (coordinator/rest/filter-path.ts): each {@link RawJson} object becomes
 * a lazy view that serializes as the raw text while it is kept whole, and parses the text only when
 * a path enumerates its fields. Other values are shared, not copied.
 */
export function lazyRawForFilter(body: unknown): unknown {
  if (body instanceof RawJson) return rawView(body);
  if (Array.isArray(body)) return body.map(lazyRawForFilter);
  if (body === null || typeof body !== 'object' || Object.getPrototypeOf(body) !== Object.prototype) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) out[k] = lazyRawForFilter(v);
  return out;
}

/**
 * The lazy view of one RawJson: enumerating it parses the text (once, numbers kept exact:
 * shared/exact-json.ts); until then, `toJSON` is the RawJson's own (the exact text). A raw array or scalar is parsed at once (`_source` is an object).
 */
function rawView(raw: RawJson): unknown {
  if (raw.text.trimStart()[0] !== '{') return raw.parse();
  let enumerated = false;
  const fields = (): Record<string, unknown> => {
    enumerated = true;
    return (parsed ??= parseExact(raw.text) as Record<string, unknown>);
  };
  let parsed: Record<string, unknown> | undefined;
  return new Proxy(
    {},
    {
      get: (_t, key) =>
        key === 'toJSON' && !enumerated ? () => raw.toJSON() : typeof key === 'string' && Object.hasOwn(fields(), key) ? fields()[key] : undefined,
      has: (_t, key) => typeof key === 'string' && Object.hasOwn(fields(), key),
      ownKeys: () => Object.keys(fields()),
      getOwnPropertyDescriptor: (_t, key) => {
        const f = fields();
        return typeof key === 'string' && Object.hasOwn(f, key) ? { value: f[key], writable: true, enumerable: true, configurable: true } : undefined;
      },
    },
  );
}
