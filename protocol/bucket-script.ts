/**
 * The scripts of `bucket_script` and `bucket_selector` as they travel in the aggregation tree
 * (protocol/agg-request.ts): a small, safe expression language, the part of Painless these
 * pipelines are written in (`params.a / params.b * 100`, `params.total > 200 && params.count < 5`).
 * Folio runs no general scripts. The coordinator parses the source once
 * (coordinator/rest/aggs/bucket-script-parse.ts) into the plain-JSON tree below and evaluates it at
 * reduce (coordinator/search/aggs/bucket-script-run.ts); both fail with {@link scriptError}, ES's
 * `ScriptException` body.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/search-aggregations-pipeline-bucket-script-aggregation.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/script/ScriptException.java
 */
import { EsError, type ErrorCause } from './errors.ts';

/** The binary operators of the subset, Painless's spelling. */
export type BinaryOp = '+' | '-' | '*' | '/' | '%' | '<' | '<=' | '>' | '>=' | '==' | '!=' | '&&' | '||';

/**
 * A parsed expression (plain JSON). `num.int` is true for an integer literal (Painless int/long);
 * `at` is the offset in the source an error points at.
 */
export type ScriptExpr =
  | { k: 'num'; v: number; int: boolean }
  | { k: 'bool'; v: boolean }
  | { k: 'null' }
  | { k: 'var'; name: string; at: number }
  | { k: 'un'; op: '!' | '-' | '+'; e: ScriptExpr; at: number }
  | { k: 'bin'; op: BinaryOp; l: ScriptExpr; r: ScriptExpr; at: number }
  | { k: 'cond'; c: ScriptExpr; t: ScriptExpr; f: ScriptExpr; at: number };

/** A compiled script: its source and language (for error bodies), tree and `params`. */
export interface BucketScript {
  source: string;
  lang: 'painless' | 'expression';
  expr: ScriptExpr;
  /** `script.params`: numbers and booleans the expression may read beside the buckets_path variables. */
  params: Record<string, number | boolean | null>;
}

/** ES's `script_stack` and `position` for an offset in `source` (Painless prints the text around it). */
function where(source: string, offset: number): Record<string, unknown> {
  const start = Math.max(0, offset - 25);
  const end = Math.min(source.length, offset + 25);
  return {
    script_stack: [source.slice(start, end), `${' '.repeat(offset - start)}^---- HERE`],
    script: source,
    position: { offset, start, end },
  };
}

/**
 * ES's `ScriptException` for a script that does not compile or fails as it runs: 400
 * `script_exception` with reason `compile error` or `runtime error`, metadata `script_stack` (the
 * source around `offset` and a `^---- HERE` marker), `script`, `lang`, `position`, and `cause` as
 * its `caused_by`.
 */
export function scriptError(reason: 'compile error' | 'runtime error', source: string, lang: string, offset: number, cause: ErrorCause): EsError {
  const { script_stack, script, position } = where(source, offset);
  return new EsError(400, 'script_exception', reason, { metadata: { script_stack, script, lang, position }, causedBy: cause });
}
