import { describe, expect, it } from 'vitest';
import { esErr } from '../test/support/es-error.ts';
import { parseCreateIndexBody, parseSettingsUpdate, readSetting, validateIndexName } from './index-settings.ts';

describe('index settings', () => {
  it('reads a setting in every ES spelling', () => {
    for (const settings of [
      { index: { translog: { durability: 'async' } } },
      { 'index.translog.durability': 'async' },
      { translog: { durability: 'async' } },
      { index: { 'translog.durability': 'async' } },
    ]) {
      expect(readSetting(settings, 'translog.durability')).toBe('async');
    }
  });

  it('parses create bodies with ES defaults', () => {
    const spec = parseCreateIndexBody({ settings: { number_of_shards: '3', index: { translog: { durability: 'ASYNC' } } } });
    expect(spec).toMatchObject({ numberOfShards: 3, numberOfReplicas: 1, maxResultWindow: 10_000_000, refreshIntervalMs: 1000, translogDurability: 'async' });
    expect(parseCreateIndexBody(undefined).translogDurability).toBeUndefined();
    expect(esErr(() => parseCreateIndexBody({ settings: { 'index.translog.durability': 'sometimes' } })).message).toBe(
      'No enum constant org.elasticsearch.index.translog.Translog.Durability.SOMETIMES',
    );
    expect(esErr(() => parseCreateIndexBody({ settings: { number_of_shards: 0 } })).status).toBe(400);
  });

  it('accepts dynamic settings and refuses static ones', () => {
    expect(parseSettingsUpdate({ index: { max_result_window: 10000, translog: { durability: 'request' } } })).toEqual({ maxResultWindow: 10000, translogDurability: 'request' });
    expect(esErr(() => parseSettingsUpdate({ index: { number_of_shards: 2 } })).message).toMatch(/non dynamic settings/);
  });

  it('bounds number_of_shards to 1…1024 and number_of_replicas to a non-negative Java int, with ES\'s texts', () => {
    const reason = (settings: Record<string, unknown>) => esErr(() => parseCreateIndexBody({ settings })).message;
    expect(reason({ number_of_shards: 0 })).toBe('Failed to parse value [0] for setting [index.number_of_shards] must be >= 1');
    expect(reason({ number_of_shards: 1025 })).toBe('Failed to parse value [1025] for setting [index.number_of_shards] must be <= 1024');
    expect(parseCreateIndexBody({ settings: { number_of_shards: 1024 } }).numberOfShards).toBe(1024);
    expect(reason({ number_of_replicas: -1 })).toBe('Failed to parse value [-1] for setting [index.number_of_replicas] must be >= 0');
    expect(reason({ number_of_replicas: 2_147_483_648 })).toBe('Failed to parse value [2147483648] for setting [index.number_of_replicas]');
    expect(esErr(() => parseSettingsUpdate({ index: { number_of_replicas: '99999999999' } })).message).toBe('Failed to parse value [99999999999] for setting [index.number_of_replicas]');
  });

  it('index.gc_deletes: a time value down to -1, dynamic, absent by default (the nodes keep 60s)', () => {
    expect(parseCreateIndexBody(undefined).gcDeletesMs).toBeUndefined();
    expect(parseCreateIndexBody({ settings: { index: { gc_deletes: '30s' } } }).gcDeletesMs).toBe(30_000);
    expect(parseSettingsUpdate({ 'index.gc_deletes': '-1' })).toEqual({ gcDeletesMs: -1 });
    expect(parseSettingsUpdate({ index: { gc_deletes: '0' } })).toEqual({ gcDeletesMs: 0 });
    expect(esErr(() => parseSettingsUpdate({ index: { gc_deletes: '-2s' } })).message).toBe(
      'failed to parse setting [index.gc_deletes] with value [-2s] as a time value: negative durations are not supported',
    );
    expect(esErr(() => parseSettingsUpdate({ index: { gc_deletes: 'soon' } })).message).toBe(
      'failed to parse setting [index.gc_deletes] with value [soon] as a time value: unit is missing or unrecognized',
    );
  });

  it('validates index names as ES does', () => {
    expect(esErr(() => validateIndexName('Cities')).message).toBe('Invalid index name [Cities], must be lowercase');
    expect(esErr(() => validateIndexName('_x')).type).toBe('invalid_index_name_exception');
    expect(() => validateIndexName('cities-2')).not.toThrow();
  });
});
