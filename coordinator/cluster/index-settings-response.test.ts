// GET _settings shapes: ES's per-index settings (explicit plus uuid, creation_date, provided_name,
// version.created), nested or flat, filtered by name patterns, and defaults with include_defaults.
import { describe, expect, it } from 'vitest';
import type { IndexMetadata } from '../../protocol/metadata.ts';
import { getSettingsEntry, settingNames, settingsTree } from './index-settings-response.ts';
import { parseCreateIndexBody } from './index-settings.ts';

const m: IndexMetadata = {
  name: 'test_1',
  uuid: 'abc',
  creationDate: 1700000000000,
  version: 1,
  ...parseCreateIndexBody({
    settings: { number_of_shards: 5, number_of_replicas: 1, refresh_interval: '1s', analysis: { analyzer: { a: { filter: ['lowercase', 'asciifolding'] } } } },
  }),
  routingNumShards: 640,
};

describe('getSettingsEntry', () => {
  it('prints every setting nested and sorted, values as strings, lists as lists', () => {
    expect(getSettingsEntry(m, { flat: false, includeDefaults: false })).toEqual({
      settings: {
        index: {
          analysis: { analyzer: { a: { filter: ['lowercase', 'asciifolding'] } } },
          creation_date: '1700000000000',
          number_of_replicas: '1',
          number_of_shards: '5',
          provided_name: 'test_1',
          refresh_interval: '1s',
          uuid: 'abc',
          version: { created: '8500000' },
        },
      },
    });
  });

  it('prints flat keys with flat_settings, and filters by name patterns (the index left out when nothing matches)', () => {
    expect(getSettingsEntry(m, { flat: true, includeDefaults: false, names: ['index.number_of_s*', 'index.uuid'] })).toEqual({
      settings: { 'index.number_of_shards': '5', 'index.uuid': 'abc' },
    });
    expect(getSettingsEntry(m, { flat: true, includeDefaults: false, names: ['number_of_shards'] })).toBeNull();
  });

  it('adds the known settings not set under defaults with include_defaults (filtered too)', () => {
    const e = getSettingsEntry(m, { flat: true, includeDefaults: true, names: ['index.max_*', 'index.refresh_interval'] })!;
    expect(e.settings).toEqual({ 'index.refresh_interval': '1s' });
    expect(e.defaults).toMatchObject({ 'index.max_result_window': '10000000', 'index.max_regex_length': '1000' });
    expect(Object.keys(e.defaults as object)).not.toContain('index.refresh_interval');
    expect(getSettingsEntry(m, { flat: false, includeDefaults: true, names: ['index.hidden'] })).toEqual({
      settings: {},
      defaults: { index: { hidden: 'false' } },
    });
  });
});

describe('settingNames and settingsTree', () => {
  it('reads {name}: a comma list, _all for every setting', () => {
    expect(settingNames('index.a,index.b*')).toEqual(['index.a', 'index.b*']);
    expect(settingNames('_all')).toEqual([]);
    expect(settingNames(undefined)).toEqual([]);
  });

  it('nests dotted keys', () => {
    expect(
      settingsTree(
        [
          ['index.a.b', '1'],
          ['index.a.c', '2'],
          ['index.d', ['x']],
        ],
        false,
      ),
    ).toEqual({ index: { a: { b: '1', c: '2' }, d: ['x'] } });
  });
});
