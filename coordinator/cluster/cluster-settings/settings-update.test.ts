// ES's PUT /_cluster/settings rules: nested or flat keys, null resets (also by a trailing `*`),
// unknown keys refused with ES's text per scope, values validated by their setting, and the
// nested/flat shapes of replies.
import { describe, expect, it } from 'vitest';
import { esErr } from '../../../test/support/es-error.ts';
import { applyScopeChanges, parseSettingsChanges, settingsObject } from './settings-update.ts';

/** The thrown EsError as `{status, type, reason}`. */
const err = (fn: () => unknown) => {
  const e = esErr(fn);
  return { status: e.status, type: e.type, reason: e.message };
};

describe('parseSettingsChanges', () => {
  it('reads nested and flat keys per scope, values as ES stores them (strings), null as a reset', () => {
    const c = parseSettingsChanges({
      persistent: { search: { max_keep_alive: '1h' }, 'action.destructive_requires_name': false },
      transient: { 'cluster.max_shards_per_node': 5, x: null },
    });
    expect([...c.persistent]).toEqual([
      ['search.max_keep_alive', '1h'],
      ['action.destructive_requires_name', 'false'],
    ]);
    expect([...c.transient]).toEqual([
      ['cluster.max_shards_per_node', '5'],
      ['x', null],
    ]);
  });

  it('refuses an empty update, an unknown top-level field and a non-object, as ES', () => {
    expect(err(() => parseSettingsChanges({}))).toMatchObject({
      status: 400,
      type: 'action_request_validation_exception',
      reason: 'Validation Failed: 1: no settings to update;',
    });
    expect(err(() => parseSettingsChanges({ persistent: {} }))).toMatchObject({ reason: 'Validation Failed: 1: no settings to update;' });
    expect(err(() => parseSettingsChanges({ persistant: { a: 1 } }))).toMatchObject({
      status: 400,
      type: 'x_content_parse_exception',
      reason: '[cluster_update_settings_request] unknown field [persistant]',
    });
    expect(err(() => parseSettingsChanges([1]))).toMatchObject({ status: 400, type: 'parsing_exception' });
    expect(err(() => parseSettingsChanges({ persistent: { 'search.max_keep_alive': ['1h'] } }))).toMatchObject({ type: 'illegal_argument_exception' });
  });
});

describe('applyScopeChanges', () => {
  const changes = (o: Record<string, string | null>) => new Map(Object.entries(o));

  it('sets known keys after validating them and echoes only what it set', () => {
    const { next, updated } = applyScopeChanges(
      'persistent',
      { 'search.max_keep_alive': '1h' },
      changes({ 'action.destructive_requires_name': 'false', 'search.max_keep_alive': null }),
    );
    expect(next).toEqual({ 'action.destructive_requires_name': 'false' });
    expect([...updated]).toEqual([['action.destructive_requires_name', 'false']]);
  });

  it("refuses an unknown key with ES's text for its scope, even with a null value", () => {
    expect(err(() => applyScopeChanges('persistent', {}, changes({ 'search.nope': '1' })))).toMatchObject({
      status: 400,
      type: 'illegal_argument_exception',
      reason: 'persistent setting [search.nope], not recognized',
    });
    expect(err(() => applyScopeChanges('transient', {}, changes({ 'search.nope': null })))).toMatchObject({
      reason: 'transient setting [search.nope], not recognized',
    });
  });

  it("validates values with ES's texts", () => {
    expect(err(() => applyScopeChanges('persistent', {}, changes({ 'action.destructive_requires_name': 'yes' })))).toMatchObject({
      reason: 'Failed to parse value [yes] as only [true] or [false] are allowed.',
    });
    expect(err(() => applyScopeChanges('persistent', {}, changes({ 'cluster.max_shards_per_node': '0' })))).toMatchObject({
      reason: 'Failed to parse value [0] for setting [cluster.max_shards_per_node] must be >= 1',
    });
    expect(err(() => applyScopeChanges('persistent', {}, changes({ 'cluster.max_shards_per_node': '3000000000' })))).toMatchObject({
      reason: 'Failed to parse value [3000000000] for setting [cluster.max_shards_per_node]',
    });
    expect(err(() => applyScopeChanges('persistent', {}, changes({ 'search.max_keep_alive': '1x' })))).toMatchObject({
      reason: 'failed to parse setting [search.max_keep_alive] with value [1x] as a time value: unit is missing or unrecognized',
    });
    expect(err(() => applyScopeChanges('persistent', {}, changes({ 'search.max_keep_alive': '-1' })))).toMatchObject({
      reason: 'failed to parse value [-1] for setting [search.max_keep_alive], must be >= [0ms]',
    });
  });

  it('resets every matching key for a null key ending in *, but never a key the same request sets', () => {
    const current = { 'search.max_keep_alive': '1h', 'search.max_open_pit_context': '5', 'cluster.max_shards_per_node': '7' };
    expect(applyScopeChanges('persistent', current, changes({ 'search.*': null })).next).toEqual({ 'cluster.max_shards_per_node': '7' });
    expect(applyScopeChanges('persistent', current, changes({ '*': null, 'search.max_open_scroll_context': '9' })).next).toEqual({
      'search.max_open_scroll_context': '9',
    });
  });
});

describe('settingsObject', () => {
  it('nests dotted keys, or keeps them flat with flat_settings, sorted', () => {
    const flat: [string, string][] = [
      ['search.max_keep_alive', '1h'],
      ['action.destructive_requires_name', 'false'],
      ['search.max_open_pit_context', '3'],
    ];
    expect(settingsObject(flat, false)).toEqual({
      action: { destructive_requires_name: 'false' },
      search: { max_keep_alive: '1h', max_open_pit_context: '3' },
    });
    expect(JSON.stringify(settingsObject(flat, true))).toBe(
      '{"action.destructive_requires_name":"false","search.max_keep_alive":"1h","search.max_open_pit_context":"3"}',
    );
  });
});
