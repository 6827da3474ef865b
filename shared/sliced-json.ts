/**
 * JSON text of a large reply built in slices that yield to the event loop: a shard bulk of 33,000
 * ops answers 33,000 items (and as many replica ops), and one `JSON.stringify` of all of them held
 * the node's event loop for tens of milliseconds (docs/reliability.md). The text is the same as
 * `JSON.stringify` gives.
 * @see https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/JSON/stringify
 */
import { DEFAULT_SLICE_MS, yieldToEventLoop } from './event-loop-slices.ts';

/** Work per slice before yielding, in ms. */
const SLICE_MS = DEFAULT_SLICE_MS;
/** Array elements serialized per `JSON.stringify` call. */
const CHUNK_ITEMS = 1000;

/**
 * `JSON.stringify(obj)` for a flat object whose large values are arrays: each array longer than a
 * chunk is serialized chunk by chunk, yielding to the event loop (`setImmediate`) whenever about
 * {@link SLICE_MS} of work has passed. Keys with `undefined` values are left out, as
 * `JSON.stringify` does.
 * @example
 * const text = await stringifySliced({ items, took: 3 }); // same text as JSON.stringify
 */
export async function stringifySliced(obj: Record<string, unknown>): Promise<string> {
  const parts: string[] = ['{'];
  let started = performance.now();
  let first = true;
  for (const [key, value] of Object.entries(obj)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    parts.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (!Array.isArray(value) || value.length <= CHUNK_ITEMS) {
      parts.push(JSON.stringify(value));
      continue;
    }
    parts.push('[');
    for (let i = 0; i < value.length; i += CHUNK_ITEMS) {
      const chunk = JSON.stringify(value.slice(i, i + CHUNK_ITEMS));
      parts.push(i > 0 ? ',' : '', chunk.slice(1, -1));
      if (performance.now() - started >= SLICE_MS) {
        await yieldToEventLoop();
        started = performance.now();
      }
    }
    parts.push(']');
  }
  parts.push('}');
  return parts.join('');
}
