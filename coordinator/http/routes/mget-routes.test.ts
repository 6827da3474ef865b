import { describe, expect, it } from 'vitest';
import { esErr } from '../../../test/support/es-error.ts';
import { parseMgetBody, type MgetDefaults } from './mget-routes.ts';

const none: MgetDefaults = { index: null, routing: undefined, source: true };

describe('_mget body', () => {
  it('reads docs with their own index, routing and _source, and ids with the defaults', () => {
    const items = parseMgetBody(
      {
        docs: [
          { _index: 'a', _id: 1, routing: 'r', _source: ['x'] },
          { _id: '2', _source: { includes: 'y', excludes: ['z'] } },
        ],
        ids: ['3'],
      },
      { index: 'dflt', routing: 'u', source: false },
    );
    expect(items).toEqual([
      { index: 'a', id: '1', routing: 'r', source: { includes: ['x'], excludes: [] } },
      { index: 'dflt', id: '2', routing: 'u', source: { includes: ['y'], excludes: ['z'] } },
      { index: 'dflt', id: '3', routing: 'u', source: false },
    ]);
  });

  it('fails as ES: nothing to get, missing index or id, bad keys', () => {
    expect(esErr(() => parseMgetBody(undefined, none)).message).toBe('Validation Failed: 1: no documents to get;');
    expect(esErr(() => parseMgetBody({ docs: [{ _id: '1' }, { _index: 'a' }] }, none)).message).toBe(
      'Validation Failed: 1: index is missing for doc 0;2: id is missing for doc 1;',
    );
    const unknown = esErr(() => parseMgetBody({ foo: [] }, none));
    expect([unknown.type, unknown.message]).toEqual(['parsing_exception', 'unknown key [foo] for a START_ARRAY, expected [docs] or [ids]']);
    expect(esErr(() => parseMgetBody({ docs: [{ _id: '1', nope: 1 }] }, none)).message).toBe('failed to parse multi get request. unknown field [nope]');
    expect(esErr(() => parseMgetBody({ docs: ['x'] }, none)).message).toBe('docs array element should include an object');
    expect(esErr(() => parseMgetBody({ ids: [{}] }, none)).message).toBe('ids array element should only contain ids');
  });
});
