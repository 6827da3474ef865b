/**
 * Parses ES `fuzziness` (`Fuzziness.parse`) on the coordinator, with ES's errors, into the
 * {@link Fuzziness} the shards resolve per term (protocol/fuzziness.ts).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/common-options.html#fuzziness
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/common/unit/Fuzziness.java
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { AUTO, type Fuzziness } from '../../protocol/fuzziness.ts';
import { javaParseDouble, javaParseInt } from '../../shared/java-number.ts';
import { tokenName, xContentInt } from './params.ts';

/** `Fuzziness.fromEdits`. @throws EsError 400 `Valid edit distances are [0, 1, 2] but was [n]`. */
function fromEdits(n: number): Fuzziness {
  if (n === 0 || n === 1 || n === 2) return { auto: false, edits: n };
  throw illegalArgument(`Valid edit distances are [0, 1, 2] but was [${n}]`);
}

/** 400 `parse_exception` (ES's `ElasticsearchParseException`). */
const parseError = (reason: string) => new EsError(400, 'parse_exception', reason);

/** Java's `Float.toString` for the values `fuzziness` can hold (shortest text that reads back the same float). */
function javaFloatText(f: number): string {
  for (let p = 1; p <= 9; p++) {
    const s = Number(f.toPrecision(p));
    if (Math.fround(s) === f) return Number.isInteger(s) ? `${s}.0` : String(s);
  }
  return String(f);
}

/** `Fuzziness.parseCustomAuto` of an upper-cased `AUTO:low,high`. */
function parseCustomAuto(upper: string): Fuzziness {
  const parts = upper.slice('AUTO:'.length).split(',');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop(); // Java's split drops trailing empty strings
  if (parts.length !== 2) throw parseError('failed to find low and high distance values');
  const low = javaParseInt(parts[0]);
  const high = javaParseInt(parts[1]);
  if (low === null || high === null) throw parseError(`failed to parse [${upper}] as a "auto:int,int"`);
  if (low < 0 || high < 0 || low > high) throw parseError(`fuzziness wrongly configured [${upper}]. Must be 0 < lower value <= higher value.`);
  return { auto: true, low, high };
}

/**
 * `Fuzziness.parse`: a number is an edit count (`intValue`, so 1.5 is 1); a string is `AUTO`,
 * `AUTO:low,high` (any case) or a float with no fraction.
 * @throws EsError 400 `illegal_argument_exception` (`fuzziness cannot be [x].`, `fuzziness cannot be null or empty.`,
 *   `fuzziness needs to be one of 0.0, 1.0 or 2.0 but was 1.5`, `Valid edit distances are [0, 1, 2] but was [3]`,
 *   `Can't parse fuzziness on token: [VALUE_BOOLEAN]`) or `parse_exception` for a bad `AUTO:` form.
 * @example parseFuzziness('auto:2,5') // { auto: true, low: 2, high: 5 }
 */
export function parseFuzziness(v: unknown): Fuzziness {
  if (typeof v === 'number') return fromEdits(xContentInt(v));
  if (typeof v !== 'string') throw illegalArgument(`Can't parse fuzziness on token: [${v === true || v === false ? 'VALUE_BOOLEAN' : tokenName(v)}]`);
  if (v === '') throw illegalArgument('fuzziness cannot be null or empty.');
  const upper = v.toUpperCase();
  if (upper === 'AUTO') return AUTO;
  if (upper.startsWith('AUTO:')) return parseCustomAuto(upper);
  const d = javaParseDouble(upper);
  if (d === null) throw illegalArgument(`fuzziness cannot be [${v}].`);
  const f = Math.fround(d);
  if (f % 1 > 0) throw illegalArgument(`fuzziness needs to be one of 0.0, 1.0 or 2.0 but was ${javaFloatText(f)}`);
  return fromEdits(Number.isNaN(f) ? 0 : f >= 2147483647 ? 2147483647 : f <= -2147483648 ? -2147483648 : Math.trunc(f) + 0);
}
