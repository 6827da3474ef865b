import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { NO_COPY } from '../cluster/copy-preference.ts';
import { searchPreference, withoutUnavailable } from './preference-plan.ts';
import type { ShardFailure } from './shard-failures.ts';

const view = (calls: { n: number }) => ({
  nodeIdentities: () => {
    calls.n++;
    return [{ id: 'shard-0', host: 'h' }];
  },
});

describe('searchPreference', () => {
  it('is undefined without a preference or without an index to apply it to (ES parses it per shard)', () => {
    const calls = { n: 0 };
    expect(searchPreference(null, ['a'], view(calls))).toBeUndefined();
    expect(searchPreference('', ['a'], view(calls))).toBeUndefined();
    expect(searchPreference('_bad', [], view(calls))).toBeUndefined();
    expect(calls.n).toBe(0);
  });

  it('asks for the nodes only when the preference names nodes', () => {
    const calls = { n: 0 };
    expect(searchPreference('_shards:1|x', ['a'], view(calls))?.shards).toEqual(new Set([1]));
    expect(calls.n).toBe(0);
    expect(searchPreference('_only_nodes:shard-0', ['a'], view(calls))?.copies).toEqual({ kind: 'only_nodes', nodes: new Set([0]), specs: ['shard-0'] });
    expect(calls.n).toBe(1);
  });

  it("throws ES's 400 for an unknown _ preference", () => {
    expect(() => searchPreference('_xxx', ['a'], view({ n: 0 }))).toThrow('no Preference for [_xxx]');
  });
});

describe('withoutUnavailable', () => {
  const targets = [
    { index: 'i', shard: 0, node: NO_COPY, alternates: [] },
    { index: 'i', shard: 1, node: 2, alternates: [] },
    { index: 'j', shard: 0, node: NO_COPY, alternates: [] },
  ];

  it('keeps the same array when every target has a copy', () => {
    const all = [targets[1]];
    const failures: ShardFailure[] = [];
    expect(withoutUnavailable(all, failures, true)).toBe(all);
    expect(failures).toEqual([]);
  });

  it('fails each shard without a copy as no_shard_available_action_exception (503, null reason)', () => {
    const failures: ShardFailure[] = [];
    expect(withoutUnavailable(targets, failures, true)).toEqual([targets[1]]);
    expect(failures).toEqual([
      { shard: 0, index: 'i', node: null, reason: { type: 'no_shard_available_action_exception', reason: null }, status: 503 },
      { shard: 0, index: 'j', node: null, reason: { type: 'no_shard_available_action_exception', reason: null }, status: 503 },
    ]);
  });

  it('refuses the search without partial results (ES doCheckNoMissingShards)', () => {
    let err: unknown;
    try {
      withoutUnavailable(targets, [], false);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EsError);
    expect((err as EsError).toBody()).toEqual({
      error: {
        root_cause: [],
        type: 'search_phase_execution_exception',
        reason: 'Search rejected due to missing shards [[i][0], [j][0]]. Consider using `allow_partial_search_results` setting to bypass this error.',
        phase: 'query',
        grouped: true,
        failed_shards: [],
      },
      status: 503,
    });
  });
});
