/**
 * The durable persistent cluster settings of one shard node (`FOLIO_DATA/cluster-settings.sqlite`):
 * one row holding the version and the flat settings. Each write is one fsynced transaction before
 * the internal call answers, so a restarted node reports the same persistent settings (ES writes
 * its cluster metadata to disk the same way). Transient settings are never written here.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/modules-gateway.html
 */
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { ScopedClusterSettings } from '../../protocol/cluster-settings.ts';
import { openDurableDatabase } from './sqlite.ts';

/** Where a node keeps its persistent cluster settings. */
export interface PersistentSettingsStore {
  /** The stored scope; version 0 and no settings when nothing was stored. */
  load(): ScopedClusterSettings;
  /** Replaces the stored scope; durable on return. */
  save(scope: ScopedClusterSettings): void;
  close(): void;
}

/** {@link PersistentSettingsStore} in `<dataDir>/cluster-settings.sqlite`. */
export class SqlitePersistentSettingsStore implements PersistentSettingsStore {
  private readonly db: DatabaseSync;

  /** Opens (or creates) `<dataDir>/cluster-settings.sqlite`. */
  constructor(dataDir: string) {
    this.db = openDurableDatabase(join(dataDir, 'cluster-settings.sqlite'));
    this.db.exec('CREATE TABLE IF NOT EXISTS persistent_settings (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, settings TEXT NOT NULL)');
  }

  load(): ScopedClusterSettings {
    const row = this.db.prepare('SELECT version, settings FROM persistent_settings WHERE id = 1').get() as { version: number; settings: string } | undefined;
    return row ? { version: row.version, settings: JSON.parse(row.settings) as Record<string, string> } : { version: 0, settings: {} };
  }

  save(scope: ScopedClusterSettings): void {
    this.db
      .prepare(
        'INSERT INTO persistent_settings (id, version, settings) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, settings = excluded.settings',
      )
      .run(scope.version, JSON.stringify(scope.settings));
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}
