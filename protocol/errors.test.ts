import { describe, expect, it } from 'vitest';
import { allShardsFailed, EsError, illegalArgument, indexNotFound, toEsError, validationFailed } from './errors.ts';

describe('the ES error envelope', () => {
  it('puts an error with no explicit root cause as its own root cause, without caused_by', () => {
    const err = illegalArgument('bad', { type: 'number_format_exception', reason: 'For input string: "x"' });
    expect(err.toBody()).toEqual({
      error: {
        root_cause: [{ type: 'illegal_argument_exception', reason: 'bad' }],
        type: 'illegal_argument_exception',
        reason: 'bad',
        caused_by: { type: 'number_format_exception', reason: 'For input string: "x"' },
      },
      status: 400,
    });
  });

  it('carries metadata such as index_not_found_exception resource fields', () => {
    const body = indexNotFound('nope').toBody();
    expect(body.status).toBe(404);
    expect(body.error).toMatchObject({
      type: 'index_not_found_exception',
      reason: 'no such index [nope]',
      'resource.type': 'index_or_alias',
      'resource.id': 'nope',
      index_uuid: '_na_',
      index: 'nope',
    });
    expect(body.error.root_cause[0]).toMatchObject({ 'resource.id': 'nope' });
  });

  it('numbers validation messages as ES does', () => {
    expect(validationFailed(['a', 'b']).message).toBe('Validation Failed: 1: a;2: b;');
  });

  it('groups identical shard failures per index into all shards failed', () => {
    const cause = { type: 'illegal_argument_exception', reason: 'Result window is too large' };
    const err = allShardsFailed(
      'query',
      [0, 1, 2].map((shard) => ({ shard, index: 'i', node: null, reason: cause })),
      400,
    );
    const body = err.toBody();
    expect(body.error).toMatchObject({ type: 'search_phase_execution_exception', reason: 'all shards failed', phase: 'query', grouped: true });
    expect(body.error.failed_shards).toHaveLength(1);
    expect(body.error.root_cause).toEqual([{ ...cause, index_uuid: 'i', index: 'i' }]);
    expect(body.error.caused_by).toEqual(cause);
    expect(body.status).toBe(400);
  });

  it('writes root causes without their caused_by, and keeps it in the shard failure', () => {
    const inner = { type: 'illegal_argument_exception', reason: 'bad' };
    const cause = { type: 'query_shard_exception', reason: 'failed to create query: bad', caused_by: inner };
    const body = allShardsFailed('query', [{ shard: 0, index: 'i', node: null, reason: cause }], 400).toBody();
    expect(body.error.root_cause).toEqual([{ type: 'query_shard_exception', reason: 'failed to create query: bad', index_uuid: 'i', index: 'i' }]);
    expect((body.error.failed_shards as { reason: unknown }[])[0].reason).toEqual(cause);
  });

  it('turns unknown throwables into a 500 exception, and passes EsErrors through', () => {
    const es = new EsError(409, 'version_conflict_engine_exception', 'x');
    expect(toEsError(es)).toBe(es);
    expect(toEsError(new TypeError('boom')).toBody()).toMatchObject({ status: 500, error: { type: 'exception', reason: 'boom' } });
  });
});
