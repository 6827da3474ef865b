/**
 * Shard call bodies as UTF-8 JSON bytes, with the `query` member of a body encoded once per
 * synchronous run: a search's fan-out sends the same query object (`plan.req.query`) to every
 * shard, one body per node, all within one task (the batcher's flush, or the fan-out loop). A
 * 60,000-term `terms` query is ~0.7 MB of JSON: `JSON.stringify` and the UTF-8 write of each
 * copy held the coordinator ~7 ms apiece (the abuse suite's large-terms case, docs/reliability.md);
 * now the query is serialized and encoded once and each body is a concatenation of bytes.
 * A memo lives until the current task's microtasks run, so an object changed after the fan-out
 * (none is: the query AST is never mutated) could not be sent stale by a later round.
 */
import type { BatchCall } from '../../protocol/wire-batch.ts';

/** The `query` members encoded during the current synchronous run, by object identity. */
let encodedQueries: WeakMap<object, Buffer> | null = null;

/** The JSON bytes of `query`, from the memo when the same object was encoded in this run. */
function encodedQuery(query: object): Buffer {
  if (encodedQueries === null) {
    const memo = new WeakMap<object, Buffer>();
    encodedQueries = memo;
    queueMicrotask(() => {
      if (encodedQueries === memo) encodedQueries = null;
    });
  }
  let bytes = encodedQueries.get(query);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(query), 'utf8');
    encodedQueries.set(query, bytes);
  }
  return bytes;
}

/** Whether `v` is a plain JSON object (not an array, not a value with its own `toJSON`). */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * The UTF-8 bytes of `JSON.stringify(body)` as an equivalent JSON document: a plain object with an
 * object-valued `query` member is written with `query` first (JSON members are unordered), its
 * value encoded once per synchronous run ({@link encodedQuery}). Any other body is
 * `JSON.stringify` as is. Throws what `JSON.stringify` throws (a cycle, a BigInt).
 */
export function callBodyBytes(body: unknown): Buffer {
  if (!isPlainObject(body) || !isPlainObject(body.query)) return Buffer.from(JSON.stringify(body), 'utf8');
  const { query, ...rest } = body;
  const restText = JSON.stringify(rest);
  const tail = restText === '{}' ? '}' : ',' + restText.slice(1);
  return Buffer.concat([Buffer.from('{"query":', 'latin1'), encodedQuery(query), Buffer.from(tail, 'utf8')]);
}

/**
 * The UTF-8 bytes of a `POST /_internal/v1/batch` body (`{calls: [{path, body, hits}]}`,
 * protocol/wire-batch.ts), each call's body written by {@link callBodyBytes}; a call without a
 * body has no `body` member, as `JSON.stringify` omits an undefined one.
 */
export function batchBodyBytes(calls: readonly BatchCall[]): Buffer {
  const parts: Buffer[] = [Buffer.from('{"calls":[', 'latin1')];
  calls.forEach((c, i) => {
    parts.push(
      Buffer.from(`${i > 0 ? ',' : ''}{"path":${JSON.stringify(c.path)},"hits":${c.hits ? 'true' : 'false'}${c.body === undefined ? '}' : ',"body":'}`, 'utf8'),
    );
    if (c.body !== undefined) parts.push(callBodyBytes(c.body), Buffer.from('}', 'latin1'));
  });
  parts.push(Buffer.from(']}', 'latin1'));
  return Buffer.concat(parts);
}
