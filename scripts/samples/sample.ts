/**
 * The shape of a sample data set: an ES index definition plus a generator of bulk documents.
 */

/** One document for `_bulk`: its `_id` and `_source`. */
export interface BulkDoc {
  _id: string;
  source: Record<string, unknown>;
}

/** The body of `PUT /{index}` (ES create-index request). */
export interface IndexDefinition {
  settings: { number_of_shards: number; number_of_replicas?: number; [k: string]: unknown };
  mappings: { properties: Record<string, unknown>; [k: string]: unknown };
}

/** A sample data set that `loadSample` can index. */
export interface Sample {
  /** Default index name (`cities`, `mails`). */
  name: string;
  /** The index definition, with `number_of_shards: 3` by default. */
  index: IndexDefinition;
  /** Number of documents `docs()` yields (loads the data set on first call). */
  count(): number;
  /** Yields every document, in a stable order. */
  docs(): Iterable<BulkDoc>;
}
