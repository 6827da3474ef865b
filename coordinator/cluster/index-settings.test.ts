// Index settings as ES's create-index and update-settings services handle them: normalized keys,
// unknown and private keys refused with ES's texts, values checked, static settings on open
// indices, final settings, null resets, preserve_existing, and the typed fields derived from them.
import { describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { esErr } from '../../test/support/es-error.ts';
import {
  applySettingsChanges,
  checkStaticOnOpen,
  explicitSettings,
  parseCreateIndexBody,
  parseSettingsUpdate,
  readSetting,
  replicasChange,
  validateIndexName,
} from './index-settings.ts';

/** The metadata of an index created with `settings`. */
function created(name: string, settings: Record<string, unknown> = {}): IndexMetadata {
  const spec = parseCreateIndexBody({ settings });
  return { name, uuid: `u-${name}`, creationDate: 1, version: 1, ...spec, routingNumShards: spec.routingNumShards ?? 1024 };
}

describe('create index settings', () => {
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

  it('parses create bodies with ES defaults, keeping the settings as given (shards and replicas always)', () => {
    const spec = parseCreateIndexBody({ settings: { number_of_shards: '3', index: { translog: { durability: 'ASYNC' }, refresh_interval: '2s' } } });
    expect(spec).toMatchObject({ numberOfShards: 3, numberOfReplicas: 1, maxResultWindow: 10_000_000, refreshIntervalMs: 2000, translogDurability: 'async' });
    expect(spec.settings).toEqual({
      'index.number_of_replicas': '1',
      'index.number_of_shards': '3',
      'index.refresh_interval': '2s',
      'index.translog.durability': 'ASYNC',
    });
    expect(parseCreateIndexBody(undefined)).toMatchObject({
      settings: { 'index.number_of_shards': '1', 'index.number_of_replicas': '1' },
      translogDurability: undefined,
    });
    expect(
      parseCreateIndexBody({ settings: { index: { hidden: true, analysis: { analyzer: { a: { type: 'custom', filter: ['lowercase'] } } } } } }).settings,
    ).toMatchObject({
      'index.hidden': 'true',
      'index.analysis.analyzer.a.filter': ['lowercase'],
    });
  });

  it("refuses unknown settings (with a suggestion when one is close), private ones, and bad values, with ES's texts", () => {
    const reason = (settings: Record<string, unknown>) => esErr(() => parseCreateIndexBody({ settings })).message;
    expect(reason({ foo: 1 })).toBe(
      'unknown setting [index.foo] please check that any required plugins are installed, or check the breaking changes documentation for removed settings',
    );
    expect(reason({ 'index.numbe_of_replica': 1 })).toBe('unknown setting [index.numbe_of_replica] did you mean [index.number_of_replicas]?');
    expect(reason({ index: { uuid: 'x' } })).toBe('private index setting [index.uuid] can not be set explicitly');
    expect(reason({ 'index.translog.durability': 'sometimes' })).toBe('No enum constant org.elasticsearch.index.translog.Translog.Durability.SOMETIMES');
    expect(reason({ hidden: 'yes' })).toBe('Failed to parse value [yes] as only [true] or [false] are allowed.');
    expect(reason({ number_of_shards: 2, number_of_routing_shards: 3 })).toBe('the number of source shards [2] must be a factor of [3]');
    expect(reason({ number_of_shards: 4, number_of_routing_shards: 2 })).toBe('index.number_of_routing_shards [2] must be >= index.number_of_shards [4]');
    expect(parseCreateIndexBody({ settings: { number_of_shards: 2, number_of_routing_shards: 6 } }).routingNumShards).toBe(6);
  });

  it("bounds number_of_shards to 1…1024 and number_of_replicas to a non-negative Java int, with ES's texts", () => {
    const reason = (settings: Record<string, unknown>) => esErr(() => parseCreateIndexBody({ settings })).message;
    expect(reason({ number_of_shards: 0 })).toBe('Failed to parse value [0] for setting [index.number_of_shards] must be >= 1');
    expect(reason({ number_of_shards: 1025 })).toBe('Failed to parse value [1025] for setting [index.number_of_shards] must be <= 1024');
    expect(parseCreateIndexBody({ settings: { number_of_shards: 1024 } }).numberOfShards).toBe(1024);
    expect(reason({ number_of_replicas: -1 })).toBe('Failed to parse value [-1] for setting [index.number_of_replicas] must be >= 0');
    expect(reason({ number_of_replicas: 2_147_483_648 })).toBe('Failed to parse value [2147483648] for setting [index.number_of_replicas]');
  });

  it('index.gc_deletes: a time value down to -1, absent by default (the nodes keep 60s)', () => {
    expect(parseCreateIndexBody(undefined).gcDeletesMs).toBeUndefined();
    expect(parseCreateIndexBody({ settings: { index: { gc_deletes: '30s' } } }).gcDeletesMs).toBe(30_000);
    expect(esErr(() => parseCreateIndexBody({ settings: { index: { gc_deletes: '-2s' } } })).message).toBe(
      'failed to parse setting [index.gc_deletes] with value [-2s] as a time value: negative durations are not supported',
    );
  });

  it('validates index names as ES does', () => {
    expect(esErr(() => validateIndexName('Cities')).message).toBe('Invalid index name [Cities], must be lowercase');
    expect(esErr(() => validateIndexName('_x')).type).toBe('invalid_index_name_exception');
    expect(() => validateIndexName('cities-2')).not.toThrow();
  });
});

describe('settings updates', () => {
  it('reads the body with or without `settings`, normalizes keys, refuses unknown, private and empty updates', () => {
    expect([...parseSettingsUpdate({ index: { max_result_window: 10000, translog: { durability: 'request' } } })]).toEqual([
      ['index.max_result_window', '10000'],
      ['index.translog.durability', 'request'],
    ]);
    expect([...parseSettingsUpdate({ settings: { refresh_interval: null } })]).toEqual([['index.refresh_interval', null]]);
    expect(esErr(() => parseSettingsUpdate({ 'index.foo': 1 })).message).toMatch(/^unknown setting \[index.foo\] please check/);
    expect(esErr(() => parseSettingsUpdate({ 'index.creation_date': 1 })).message).toBe(
      'can not update private setting [index.creation_date]; this setting is managed by Elasticsearch',
    );
    expect(esErr(() => parseSettingsUpdate({}))).toMatchObject({
      type: 'action_request_validation_exception',
      message: 'Validation Failed: 1: no settings to update;',
    });
    expect(esErr(() => parseSettingsUpdate(undefined))).toMatchObject({ type: 'parse_exception', message: 'request body is required' });
  });

  it("refuses static settings while a target is open (ES's text, with each index as [name/uuid])", () => {
    const a = created('a');
    const b = created('b');
    expect(esErr(() => checkStaticOnOpen(parseSettingsUpdate({ number_of_shards: 2, refresh_interval: '2s' }), [a, b])).message).toBe(
      "Can't update non dynamic settings [[index.number_of_shards]] for open indices [[a/u-a], [b/u-b]]",
    );
    expect(() => checkStaticOnOpen(parseSettingsUpdate({ number_of_shards: 2 }), [])).not.toThrow();
    expect(() =>
      checkStaticOnOpen(parseSettingsUpdate({ refresh_interval: '2s', 'index.routing.allocation.include._tier_preference': 'data_hot' }), [a]),
    ).not.toThrow();
  });

  it('applies a change: values as given, typed fields derived, null resets (replicas back to 1), nothing changed → null', () => {
    const m = created('a', { number_of_replicas: 0 });
    const next = applySettingsChanges(m, parseSettingsUpdate({ refresh_interval: '1s', max_result_window: 50, hidden: true }))!;
    expect(next).toMatchObject({ refreshIntervalMs: 1000, maxResultWindow: 50, numberOfReplicas: 0 });
    expect(next.settings).toMatchObject({ 'index.refresh_interval': '1s', 'index.max_result_window': '50', 'index.hidden': 'true' });
    const reset = applySettingsChanges(next, parseSettingsUpdate({ refresh_interval: null, 'index.number_of_replicas': null, max_result_window: null }))!;
    expect(reset).toMatchObject({ refreshIntervalMs: 1000, maxResultWindow: 10_000_000, numberOfReplicas: 1 });
    expect(reset.settings!['index.refresh_interval']).toBeUndefined();
    expect(applySettingsChanges(reset, parseSettingsUpdate({ number_of_replicas: 1 }))).toBeNull();
    expect(esErr(() => applySettingsChanges(m, parseSettingsUpdate({ number_of_replicas: 'x' }))).message).toBe(
      'Failed to parse value [x] for setting [index.number_of_replicas]',
    );
    const noDurability = applySettingsChanges(
      applySettingsChanges(m, parseSettingsUpdate({ 'translog.durability': 'async' }))!,
      parseSettingsUpdate({ 'translog.durability': null }),
    )!;
    expect('translogDurability' in noDurability).toBe(false);
  });

  it('preserve_existing keeps the values already set; a wildcard null resets only what may be reset', () => {
    const m = applySettingsChanges(created('a'), parseSettingsUpdate({ refresh_interval: '5s', max_result_window: 7 }))!;
    const kept = applySettingsChanges(m, parseSettingsUpdate({ refresh_interval: '9s', gc_deletes: '1m' }), { preserveExisting: true })!;
    expect(kept.settings).toMatchObject({ 'index.refresh_interval': '5s', 'index.gc_deletes': '1m' });
    const wiped = applySettingsChanges(m, parseSettingsUpdate({ 'index.*': null }), { onlyDynamic: true })!;
    expect(wiped.settings).toEqual({ 'index.number_of_replicas': '1', 'index.number_of_shards': '1' });
  });

  it('a final setting is never updateable, even on a closed index; other static ones change there', () => {
    const m = created('a', { number_of_shards: 2 });
    expect(esErr(() => applySettingsChanges(m, parseSettingsUpdate({ number_of_shards: 2 }))).message).toBe(
      'final a setting [index.number_of_shards], not updateable',
    );
    expect(applySettingsChanges(m, parseSettingsUpdate({ 'index.codec': 'best_compression' }))!.settings).toMatchObject({ 'index.codec': 'best_compression' });
  });

  it('number_of_replicas asked by a change (1 when reset), for the shard limit', () => {
    expect(replicasChange(parseSettingsUpdate({ number_of_replicas: 3 }))).toBe(3);
    expect(replicasChange(parseSettingsUpdate({ number_of_replicas: null }))).toBe(1);
    expect(replicasChange(parseSettingsUpdate({ refresh_interval: '1s' }))).toBeUndefined();
  });

  it('rebuilds the explicit settings of an index stored before they were kept', () => {
    const { settings: _dropped, ...legacy } = created('old');
    expect(explicitSettings({ ...legacy, refreshIntervalMs: -1, maxResultWindow: 10_000_000, gcDeletesMs: 0 })).toEqual({
      'index.number_of_shards': '1',
      'index.number_of_replicas': '1',
      'index.refresh_interval': '-1',
      'index.gc_deletes': '0ms',
    });
  });
});
