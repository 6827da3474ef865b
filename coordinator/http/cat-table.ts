/**
 * The `_cat` table renderer, as ES's `RestTable` and `AbstractCatAction`: column selection with
 * `?h=` (names, aliases, `*` wildcards), sorting with `?s=col[:asc|:desc]`, `?v` headers, `?help`,
 * `?bytes=` units, and `?format=json` (an array of objects whose values are all strings, or null).
 * Text output pads each column to its widest cell, right-aligns numeric columns, separates columns
 * by one space and never pads the last column.
 * Pure: no I/O.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/rest/action/cat/RestTable.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/cat.html
 */
import { BYTE_SIZE_UNITS, formatByteSize } from '../../shared/byte-size.ts';
import { EsError } from '../../protocol/errors.ts';
import { wildcardMatch } from '../../shared/wildcard.ts';

/** A column of a cat table. */
export interface CatColumn {
  name: string;
  aliases?: readonly string[];
  desc: string;
  /** Shown without `?h=` (default true). */
  default?: boolean;
  /** Right-aligned in text output (numbers and sizes). */
  right?: boolean;
}

/** A size in bytes, rendered as ES's `ByteSizeValue` (`31.1mb`) or in the `?bytes=` unit. */
export interface ByteSize {
  bytes: number;
}

/** One cell: text, a number, a size, or empty. */
export type CatCell = string | number | ByteSize | null;

/** A table: columns and rows, each row one cell per column in column order. */
export interface CatTable {
  columns: readonly CatColumn[];
  rows: CatCell[][];
}

/** The rendered reply: a text body or a JSON array. */
export type CatOutput = { kind: 'text'; text: string } | { kind: 'json'; rows: Record<string, string | null>[] };

/** The `_cat` display parameters. */
export interface CatParams {
  format?: string;
  h?: string;
  s?: string;
  v?: string;
  help?: string;
  bytes?: string;
  /** The request's `Accept` header: a single JSON media type selects JSON when `format` is absent. */
  accept?: string;
}

const UNITS = BYTE_SIZE_UNITS;

/** ES `ByteSizeValue.toString()` (shared/byte-size.ts), re-exported for the `_cat` tables. */
export { formatByteSize };

/** ES `RestTable.renderValue`: a cell as text (`?bytes=b|kb|mb|gb|tb|pb` gives whole units). */
function render(cell: CatCell, bytesUnit: string | undefined): string | null {
  if (cell === null) return null;
  if (typeof cell === 'object') {
    const unit = bytesUnit === 'b' ? 1 : UNITS.find(([s]) => s === bytesUnit || s[0] === bytesUnit)?.[1];
    return unit === undefined ? formatByteSize(cell.bytes) : String(Math.floor(cell.bytes / unit));
  }
  return String(cell);
}

function isTrue(v: string | undefined): boolean {
  return v !== undefined && v !== 'false';
}

/** JSON when `format=json`, or when there is no `format` and `Accept` names one JSON media type. */
function wantsJson(p: CatParams): boolean {
  if (p.format !== undefined) return p.format.toLowerCase() === 'json';
  const accept = p.accept?.trim();
  if (!accept || accept.includes(',')) return false; // ES ignores media ranges (ParsedMediaType.isMediaRange)
  return /^application\/(json|vnd\.elasticsearch\+json)\b/i.test(accept);
}

/** `?s=`: ES's `RestTable.getRowOrder`; a key that names no column or alias is ES's (500) error. */
function rowOrder(table: CatTable, s: string | undefined, byName: Map<string, number>): number[] {
  const order = table.rows.map((_, i) => i);
  if (!s) return order;
  const keys = s
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k) => {
      const desc = k.endsWith(':desc');
      const name = desc ? k.slice(0, -5) : k.endsWith(':asc') ? k.slice(0, -4) : k;
      const col = byName.get(name);
      if (col === undefined) throw new EsError(400, 'unsupported_operation_exception', `Unable to sort by unknown sort key \`${name}\``);
      return { col, sign: desc ? -1 : 1 };
    });
  const cmp = (a: CatCell, b: CatCell): number => {
    if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'object' && typeof b === 'object') return a.bytes - b.bytes;
    const x = typeof a === 'object' ? formatByteSize(a.bytes) : String(a);
    const y = typeof b === 'object' ? formatByteSize(b.bytes) : String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return order.sort((i, j) => {
    for (const { col, sign } of keys) {
      const d = cmp(table.rows[i][col], table.rows[j][col]);
      if (d !== 0) return sign * d;
    }
    return 0;
  });
}

/** `?h=`: ES's `buildDisplayHeaders` (unknown names are skipped; an alias is displayed as given). */
function displayColumns(table: CatTable, h: string | undefined, byName: Map<string, number>): { col: number; display: string }[] {
  if (h === undefined) return table.columns.flatMap((c, col) => (c.default === false ? [] : [{ col, display: c.name }]));
  const out: { col: number; display: string }[] = [];
  const seen = new Set<string>();
  for (const want of h
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '')) {
    if (want.includes('*')) {
      table.columns.forEach((c, col) => {
        if ((wildcardMatch(want, c.name) || (c.aliases ?? []).some((a) => wildcardMatch(want, a))) && !seen.has(c.name)) {
          seen.add(c.name);
          out.push({ col, display: c.name });
        }
      });
    } else if (byName.has(want) && !seen.has(want)) {
      seen.add(want);
      out.push({ col: byName.get(want)!, display: want });
    }
  }
  return out;
}

function pad(value: string | null, width: number, right: boolean, last: boolean): string {
  const v = value ?? '';
  const left = width - v.length;
  if (left > 0 && right) return ' '.repeat(left) + v;
  return last ? v : v + ' '.repeat(Math.max(0, left));
}

/** `?help`: one line per column, `name | aliases | description`, as `AbstractCatAction`. */
function helpText(table: CatTable): string {
  const rows = table.columns.map((c) => [c.name, (c.aliases ?? []).join(','), c.desc]);
  const w = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => `${pad(r[0], w[0], false, false)} | ${pad(r[1], w[1], false, false)} | ${pad(r[2], w[2], false, false)}\n`).join('');
}

/**
 * Renders `table` as the cat parameters ask.
 * @throws EsError 400 `unsupported_operation_exception` for a `?s=` key that is no column (ES answers 500;
 *   Folio never answers bad input with a 5xx).
 */
export function renderCatTable(table: CatTable, p: CatParams): CatOutput {
  if (isTrue(p.help)) return { kind: 'text', text: helpText(table) };
  const byName = new Map<string, number>();
  table.columns.forEach((c, i) => {
    byName.set(c.name, i);
    for (const a of c.aliases ?? []) if (!byName.has(a)) byName.set(a, i);
  });
  const order = rowOrder(table, p.s, byName);
  const shown = displayColumns(table, p.h, byName);
  const cells = order.map((r) => shown.map(({ col }) => render(table.rows[r][col], p.bytes)));
  if (wantsJson(p)) {
    return { kind: 'json', rows: cells.map((row) => Object.fromEntries(shown.map(({ display }, i) => [display, row[i]]))) };
  }
  const verbose = isTrue(p.v);
  const width = shown.map(({ display }, i) => Math.max(verbose ? display.length : 0, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (values: (string | null)[]) =>
    values.map((v, i) => pad(v, width[i], table.columns[shown[i].col].right === true, i === shown.length - 1)).join(' ') + '\n';
  return { kind: 'text', text: (verbose ? line(shown.map((s) => s.display)) : '') + cells.map(line).join('') };
}
