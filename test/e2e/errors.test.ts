/**
 * Bad input gets Elasticsearch's status, error type and reason, never a 500 or a crash.
 */
import { describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');

async function expectError(method: string, path: string, status: number, type: string, reason: string | RegExp, body?: unknown, contentType?: string) {
  const res = await http(url, method, path, body, contentType);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.status).toBe(status);
  expect(res.body.error.type).toBe(type);
  if (typeof reason === 'string') expect(res.body.error.reason).toBe(reason);
  else expect(res.body.error.reason).toMatch(reason);
  expect(Array.isArray(res.body.error.root_cause)).toBe(true);
  expect(res.headers['x-elastic-product']).toBe('Elasticsearch');
  return res.body;
}

describe('search rejections', () => {
  it('negative from and size', async () => {
    await expectError('GET', '/mails/_search?from=-1', 400, 'illegal_argument_exception', '[from] parameter cannot be negative but was [-1]');
    await expectError('GET', '/mails/_search?size=-5', 400, 'illegal_argument_exception', '[size] parameter cannot be negative, found [-5]');
    await expectError('POST', '/mails/_search', 400, 'illegal_argument_exception', '[from] parameter cannot be negative but was [-3]', { from: -3 });
  });

  it('from/size that are not integers', async () => {
    const body = await expectError(
      'GET',
      '/mails/_search?size=abc',
      400,
      'illegal_argument_exception',
      'Failed to parse int parameter [size] with value [abc]',
    );
    expect(body.error.caused_by).toMatchObject({ type: 'number_format_exception', reason: 'For input string: "abc"' });
    await expectError('GET', '/mails/_search?from=1.5', 400, 'illegal_argument_exception', 'Failed to parse int parameter [from] with value [1.5]');
  });

  it('a result window that is too large, on every shard (ES limit set explicitly)', async () => {
    const created = await http(url, 'PUT', '/window-10k', { settings: { number_of_shards: 3, max_result_window: 10000 } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const body = await expectError('GET', '/window-10k/_search?from=9991&size=10', 400, 'search_phase_execution_exception', 'all shards failed');
    expect(body.error.root_cause[0].type).toBe('illegal_argument_exception');
    expect(body.error.root_cause[0].reason).toMatch(/^Result window is too large, from \+ size must be less than or equal to: \[10000\] but was \[10001\]\./);
    expect(body.error.phase).toBe('query');
    const ok = await http(url, 'GET', '/window-10k/_search?from=9990&size=10');
    expect(ok.status).toBe(200);
    // Folio's default window is far larger (deep pages are exact and cheap by selection).
    const deep = await http(url, 'GET', '/mails/_search?from=9991&size=10');
    expect(deep.status).toBe(200);
  });

  it('a missing index', async () => {
    const body = await expectError('GET', '/nope/_search', 404, 'index_not_found_exception', 'no such index [nope]');
    expect(body.error['resource.id']).toBe('nope');
    await expectError('GET', '/nope/_doc/1', 404, 'index_not_found_exception', 'no such index [nope]');
  });

  it('malformed JSON, an unknown query, an unknown body key, an unknown parameter', async () => {
    const malformed = await http(url, 'POST', '/mails/_search', '{"query": {"match_all": {}', 'application/json');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.root_cause.length).toBeGreaterThan(0);
    await expectError('POST', '/mails/_search', 400, 'parsing_exception', /unknown query \[no_such_query\]/, { query: { no_such_query: {} } });
    await expectError('POST', '/mails/_search', 400, 'parsing_exception', 'Unknown key for a VALUE_NUMBER in [fromm].', { fromm: 1 });
    await expectError(
      'GET',
      '/mails/_search?fromm=1',
      400,
      'illegal_argument_exception',
      /^request \[\/mails\/_search\] contains unrecognized parameter: \[fromm\]/,
    );
  });

  it('sorting on a text field, and on an unmapped field', async () => {
    const body = await expectError('GET', '/mails/_search?sort=subject:asc', 400, 'search_phase_execution_exception', 'all shards failed');
    expect(body.error.root_cause[0].reason).toMatch(/^Text fields are not optimised for operations that require per-document field data/);
    const unmapped = await expectError('GET', '/mails/_search?sort=nosuchfield', 400, 'search_phase_execution_exception', 'all shards failed');
    expect(unmapped.error.root_cause[0].reason).toBe('No mapping found for [nosuchfield] in order to sort on');
  });

  it('a body with a refused content type gets 406', async () => {
    const res = await http(url, 'POST', '/mails/_search', '{}', 'text/plain');
    expect(res.status).toBe(406);
  });
});

describe('write rejections', () => {
  it('malformed NDJSON', async () => {
    await expectError(
      'POST',
      '/_bulk',
      400,
      'illegal_argument_exception',
      /^Malformed action\/metadata line \[1\]/,
      '{"bogus":{}}\n{}\n',
      'application/x-ndjson',
    );
    await expectError(
      'POST',
      '/_bulk',
      400,
      'illegal_argument_exception',
      'The bulk request must be terminated by a newline [\\n]',
      '{"index":{"_index":"x"}}\n{}',
      'application/x-ndjson',
    );
  });

  it('creating an index twice, with a bad name', async () => {
    await expectError('PUT', '/mails', 400, 'resource_already_exists_exception', /^index \[mails\/.+\] already exists$/);
    await expectError('PUT', '/BadName', 400, 'invalid_index_name_exception', 'Invalid index name [BadName], must be lowercase');
  });

  it('an unknown route', async () => {
    const res = await http(url, 'GET', '/mails/_nope/x/y');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('no handler found for uri [/mails/_nope/x/y] and method [GET]');
  });
});
