/**
 * The durable index metadata of one shard node (`FOLIO_DATA/node-state.sqlite`): for every index the
 * node knows, its {@link IndexMetadata} (settings, mappings, copies and their in-sync state, version),
 * the shards with a copy here, and the node's ordinal in the coordinator's FOLIO_NODES.
 * Every change is one fsynced transaction before the internal call answers, so a restarted node
 * reports the same indices, mappings and placement (ES keeps cluster state on disk the same way).
 * Also knows the data directory layout.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-gateway.html
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { NodeIndexEntry } from '../../protocol/metadata.ts';
import { fsyncDir } from './durable-dir.ts';
import { openDurableDatabase } from './sqlite.ts';

/** Directory of an index's shard stores: `<dataDir>/<index-uuid>`. */
export function indexDataDir(dataDir: string, uuid: string): string {
  return join(dataDir, uuid);
}

/** SQLite file of one shard: `<dataDir>/<index-uuid>/<shard>/shard.sqlite`. */
export function shardStorePath(dataDir: string, uuid: string, shard: number): string {
  return join(dataDir, uuid, String(shard), 'shard.sqlite');
}

/** Removes one shard's directory (a replica copy dropped by a `number_of_replicas` change); missing is fine. */
export function removeShardData(dataDir: string, uuid: string, shard: number): void {
  rmSync(join(dataDir, uuid, String(shard)), { recursive: true, force: true });
  fsyncDir(join(dataDir, uuid));
}

/** Removes an index's directory (all its shard stores); missing directories are fine. */
export function removeIndexData(dataDir: string, uuid: string): void {
  rmSync(indexDataDir(dataDir, uuid), { recursive: true, force: true });
  fsyncDir(dataDir);
}

/** The persisted list of indices of a node. */
export class MetadataStore {
  private readonly db: DatabaseSync;

  /** Opens (or creates) `<dataDir>/node-state.sqlite`. */
  constructor(dataDir: string) {
    this.db = openDurableDatabase(join(dataDir, 'node-state.sqlite'));
    this.db.exec('CREATE TABLE IF NOT EXISTS indices (name TEXT PRIMARY KEY, uuid TEXT NOT NULL, metadata TEXT NOT NULL, shards TEXT NOT NULL)');
    // Files from before replicas have no ordinal column: add it (NULL = unknown).
    const columns = this.db.prepare('PRAGMA table_info(indices)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'node')) this.db.exec('ALTER TABLE indices ADD COLUMN node INTEGER');
  }

  /** Stores (replaces) an index's entry; durable on return. */
  put(entry: NodeIndexEntry): void {
    this.db
      .prepare(
        'INSERT INTO indices (name, uuid, metadata, shards, node) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET uuid = excluded.uuid, metadata = excluded.metadata, shards = excluded.shards, node = excluded.node',
      )
      .run(entry.metadata.name, entry.metadata.uuid, JSON.stringify(entry.metadata), JSON.stringify(entry.shards), entry.node ?? null);
  }

  /** Forgets an index; durable on return. Unknown names are ignored. */
  delete(name: string): void {
    this.db.prepare('DELETE FROM indices WHERE name = ?').run(name);
  }

  /** Every stored entry, by name. */
  list(): NodeIndexEntry[] {
    const rows = this.db.prepare('SELECT metadata, shards, node FROM indices ORDER BY name').all() as {
      metadata: string;
      shards: string;
      node: number | null;
    }[];
    return rows.map((r) => ({
      metadata: JSON.parse(r.metadata) as NodeIndexEntry['metadata'],
      shards: JSON.parse(r.shards) as number[],
      ...(r.node !== null ? { node: r.node } : {}),
    }));
  }

  /** Closes the file. */
  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
