/**
 * Helpers of the StateStore contract suite (state-store.contract.ts): a fresh client and key
 * prefix per test, unconditional puts, polling with a deadline, and reading a watch until a
 * condition holds.
 */
import type { StateStoreFactory } from './state-store.contract.ts';
import type { StateStore, WatchBatch } from './types.ts';

let prefixCounter = 0;
/** A key prefix no other test (or earlier run against the same etcd) uses. */
export function freshPrefix(): string {
  return `contract/${process.pid}-${Date.now().toString(36)}-${prefixCounter++}/`;
}

/** Runs `body` with a fresh client of `factory` and a fresh key prefix; closes the client after. */
export async function withStore(factory: StateStoreFactory, body: (store: StateStore, prefix: string) => Promise<void>): Promise<void> {
  const store = await factory.open();
  try {
    await body(store, freshPrefix());
  } finally {
    await store.close();
  }
}

/** Puts one key unconditionally; returns the revision. */
export async function put(store: StateStore, key: string, value: string, lease?: string): Promise<number> {
  const r = await store.txn({ compare: [], ops: [{ op: 'put', key, value, ...(lease ? { lease } : {}) }] });
  if (!r.succeeded) throw new Error('an unconditional txn failed');
  return r.revision;
}

/** Polls `check` every 50 ms until it returns true; fails after `timeoutMs`. Returns the wait in ms. */
export async function waitUntil(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
  return performance.now() - started;
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads batches from a watch until `done(batches)` is true, then stops it. Fails after
 * `timeoutMs` with what was seen.
 */
export async function collect(
  iterable: AsyncIterable<WatchBatch>,
  controller: AbortController,
  done: (batches: WatchBatch[]) => boolean,
  timeoutMs: number,
): Promise<WatchBatch[]> {
  const batches: WatchBatch[] = [];
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    for await (const batch of iterable) {
      batches.push(batch);
      if (done(batches)) break;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  if (!done(batches)) throw new Error(`watch: condition not met within ${timeoutMs} ms; saw revisions ${batches.map((b) => b.revision).join(',')}`);
  return batches;
}
