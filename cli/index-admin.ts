/**
 * Index housekeeping for the CLI: create the target index when absent, read an index's
 * definition (to create a copy on another cluster), refresh.
 */
import type { Agent } from 'undici';
import { indexExists } from '../scripts/samples/load.ts';
import { callOk } from './http.ts';

/** A create-index body (`PUT /{index}`). */
export interface IndexBody {
  settings?: Record<string, unknown>;
  mappings?: Record<string, unknown>;
}

/**
 * Creates `index` with `body` unless it exists. Returns true when it was created.
 * @example await ensureIndex(agent, base, 'books', { settings: { number_of_shards: 3 } })
 */
export async function ensureIndex(dispatcher: Agent, base: string, index: string, body: IndexBody): Promise<boolean> {
  if (await indexExists(base, index, dispatcher)) return false;
  await callOk(dispatcher, 'PUT', base, `/${encodeURIComponent(index)}`, body);
  return true;
}

/** `number_of_shards` and the mappings of `index` (for creating the same index elsewhere). */
export async function indexDefinition(dispatcher: Agent, base: string, index: string): Promise<IndexBody> {
  const reply = await callOk<Record<string, { settings?: { index?: Record<string, unknown> }; mappings?: Record<string, unknown> }>>(
    dispatcher,
    'GET',
    base,
    `/${encodeURIComponent(index)}`,
  );
  const def = reply[index] ?? Object.values(reply)[0];
  const shards = def?.settings?.index?.number_of_shards;
  return { settings: shards === undefined ? {} : { number_of_shards: Number(shards) }, mappings: def?.mappings ?? {} };
}

/** `POST /{index}/_refresh`. */
export async function refreshIndex(dispatcher: Agent, base: string, index: string): Promise<void> {
  await callOk(dispatcher, 'POST', base, `/${encodeURIComponent(index)}/_refresh`);
}
