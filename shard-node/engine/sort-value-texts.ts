/**
 * The JSON texts of sort values that a JavaScript number would print differently from ES, for the
 * coordinator to print in their place (coordinator/search/respond.ts; integral doubles it prints
 * itself from the mapping, plan.ts `doubleSortClauses`):
 * - integers above 2^53. Folio's numeric doc values are doubles, which order `long`,
 *   `unsigned_long` and `date_nanos` values correctly except between values closer than a double's
 *   spacing (2^11 near 2^64, 256 ns near today's dates); ES prints them as exact 64-bit integers
 *   (`9223372036854775807`, `1540815132987654321`). For the returned hits whose sort value of such a
 *   field is not a safe integer, the value is re-read from the hit's `_source` (parsed with big
 *   integers kept exact). Nothing is read when no such value is returned.
 * - computed integer sort values above 2^53 (`median`, `sum` of longs), printed with every digit of
 *   their double, as Java prints a long (`461168601842738880`, where JS prints `461168601842738900`).
 * - `ip` values, sorted in their hex form (shard-node/engine/ip-address.ts) and printed as addresses.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/number.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/date_nanos.html
 */
import { DEFAULT_DATE_NANOS_FORMAT, parseDateInstant } from '../../shared/date-format.ts';
import type { FieldMapping } from '../../protocol/mapping.ts';
import { INTEGER_TYPES } from '../../protocol/mapping.ts';
import { decodeIp } from './ip-address.ts';
import type { ShardHit } from '../../protocol/search.ts';
import type { SortField } from '../../protocol/sort.ts';

/** A JSON number kept as its text (its double would round). */
class NumberText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** `JSON.parse` reviver context (ES2025 JSON.parse source text access, Node 22+). */
type ReviverContext = { source?: string };

/** Parses a `_source` keeping numbers that are not safe integers as their text. */
function parseKeepingBigNumbers(text: string): unknown {
  const reviver = (_k: string, v: unknown, ctx?: ReviverContext): unknown =>
    typeof v === 'number' && !Number.isSafeInteger(v) && ctx?.source !== undefined ? new NumberText(ctx.source) : v;
  return (JSON.parse as (t: string, r: typeof reviver) => unknown)(text, reviver);
}

/** The values at a dotted path of a source (through objects, arrays and dotted keys). */
function valuesAt(node: unknown, path: string, out: unknown[]): void {
  if (Array.isArray(node)) {
    for (const x of node) valuesAt(x, path, out);
    return;
  }
  if (node === null || typeof node !== 'object' || node instanceof NumberText) return;
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (k === path) {
      if (Array.isArray(v)) out.push(...(v as unknown[]).flat(Infinity));
      else out.push(v);
    } else if (path.startsWith(k + '.')) valuesAt(v, path.slice(k.length + 1), out);
  }
}

/** An integer value as ES's long/unsigned_long parse reads it (a fraction truncated), or null. */
function integerOf(v: unknown): bigint | null {
  const text = v instanceof NumberText ? v.text : typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(Math.trunc(v)) : null;
  if (text === null) return null;
  const m = /^([+-]?\d+)(?:\.\d*)?$/.exec(text);
  return m ? BigInt(m[1]) : null;
}

/** A `date_nanos` value as epoch nanoseconds, or null. */
function nanosOf(v: unknown, fm: FieldMapping): bigint | null {
  const i = parseDateInstant(v instanceof NumberText ? v.text : v, fm.format ?? DEFAULT_DATE_NANOS_FORMAT);
  return i ? BigInt(i.ms) * 1_000_000n + BigInt(i.nanos) : null;
}

/**
 * The exact sort value of one clause from a parsed source, as ES computes it on longs
 * (`MultiValueMode`): min or max; `sum` wraps around 64 bits; `avg` is `Math.round((double) sum / n)`;
 * `median` the middle value, or `Math.round(((double) a + b) / 2)` of the two middle ones. Null
 * when the document has no value.
 */
function exactValue(source: unknown, sf: SortField, fm: FieldMapping): bigint | null {
  const raw: unknown[] = [];
  valuesAt(source, sf.field, raw);
  const values: bigint[] = [];
  for (const v of raw) {
    const x = fm.type === 'date_nanos' ? nanosOf(v, fm) : integerOf(v);
    if (x !== null) values.push(x);
  }
  if (values.length === 0) return null;
  values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const n = values.length;
  switch (sf.mode) {
    case 'min':
      return values[0];
    case 'max':
      return values[n - 1];
    case 'sum':
      return BigInt.asIntN(
        64,
        values.reduce((a, b) => a + b, 0n),
      );
    case 'avg':
      return BigInt(
        Math.round(
          Number(
            BigInt.asIntN(
              64,
              values.reduce((a, b) => a + b, 0n),
            ),
          ) / n,
        ),
      );
    case 'median':
      return n % 2 === 1 ? values[(n - 1) / 2] : BigInt(Math.round((Number(values[n / 2 - 1]) + Number(values[n / 2])) / 2));
    default:
      return null;
  }
}

const EXACT_TYPES: ReadonlySet<string> = new Set(['long', 'unsigned_long', 'date_nanos']);
/** Types whose sort values ES prints as Java longs (every digit, where a JS number prints its shortest form). */
const LONG_SORT_TYPES: ReadonlySet<string> = new Set([...INTEGER_TYPES, 'date', 'date_nanos']);

/**
 * The JSON texts of the sort values of `hits` that ES prints differently from `JSON.stringify`,
 * keyed by hit position (one entry per clause, null where the number prints as ES prints it);
 * undefined when there are none. `sourceOf` reads a hit's stored `_source` (called only for hits
 * with an integer sort value above 2^53).
 */
export function sortValueTexts(
  hits: readonly ShardHit[],
  sort: readonly SortField[],
  fields: Map<string, FieldMapping>,
  sourceOf: (id: string) => string | null,
): Record<number, (string | null)[]> | undefined {
  const clauses: number[] = [];
  const longs: number[] = [];
  const ips: number[] = [];
  sort.forEach((sf, j) => {
    const fm = sf.kind === 'field' ? fields.get(sf.field) : undefined;
    if (fm?.type === 'ip') ips.push(j);
    if (!fm || (sf.numericType !== undefined && sf.numericType !== 'long' && sf.numericType !== 'date' && sf.numericType !== 'date_nanos')) return;
    // Values of the document, read back exactly: min and max; for signed longs also the long
    // arithmetic of sum, avg and median (unsigned_long's is unsigned: its computed values keep their doubles).
    const exactMode = sf.mode === 'min' || sf.mode === 'max' || (fm.type !== 'unsigned_long' && fm.type !== 'date_nanos');
    if (EXACT_TYPES.has(fm.type) && exactMode && sf.numericType === undefined) clauses.push(j);
    else if (LONG_SORT_TYPES.has(fm.type)) longs.push(j);
  });
  if (clauses.length === 0 && longs.length === 0 && ips.length === 0) return undefined;
  let out: Record<number, (string | null)[]> | undefined;
  hits.forEach((hit, i) => {
    let source: unknown;
    let texts: (string | null)[] | undefined;
    for (const j of longs) {
      // A computed long above 2^53 (a median, a sum) printed with every digit of its double, as Java prints the long.
      const v = hit.sort[j];
      if (typeof v !== 'number' || !Number.isInteger(v) || Number.isSafeInteger(v)) continue;
      texts ??= new Array<string | null>(sort.length).fill(null);
      texts[j] = BigInt(v).toString();
    }
    for (const j of ips) {
      const v = hit.sort[j];
      if (typeof v !== 'string' || !/^[0-9a-f]{32}$/.test(v)) continue;
      texts ??= new Array<string | null>(sort.length).fill(null);
      texts[j] = JSON.stringify(decodeIp(v));
    }
    for (const j of clauses) {
      const v = hit.sort[j];
      if (typeof v !== 'number' || Number.isSafeInteger(v) || !Number.isFinite(v)) continue;
      if (source === undefined) {
        const text = sourceOf(hit._id);
        source = text === null ? null : parseKeepingBigNumbers(text);
      }
      const exact = exactValue(source, sort[j], fields.get(sort[j].field)!);
      // Not this hit's value (no value, or another double): keep the double. date_nanos doubles are
      // computed as ms * 1e6 + ns, which may differ from the rounded exact value by an ulp.
      texts ??= new Array<string | null>(sort.length).fill(null);
      texts[j] = exact === null || Math.abs(Number(exact) - v) > Math.abs(v) * 2 ** -51 ? BigInt(v).toString() : exact.toString();
    }
    if (texts) (out ??= {})[i] = texts;
  });
  return out;
}
