/**
 * Pattern matching under attack, end to end (issue 11): the `filter_path` of 120 `**` segments that
 * took the coordinator down with "JavaScript heap out of memory", a backtracking wildcard in an
 * index expression and a `_source` pattern, hostile `regexp` queries, a 200 KB unknown query name, and `?filter_path=%`. Each
 * answers within 1 s, and the coordinator's `/livez` still answers within 100 ms afterwards.
 */
import { describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
/** The time budget of one hostile request (issue 11). */
const REQUEST_BUDGET_MS = 1000;
/** How fast `/livez` must answer after each case. */
const LIVEZ_BUDGET_MS = 100;

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

async function expectAlive(): Promise<void> {
  const { ms, value } = await timed(() => http(url, 'GET', '/livez'));
  expect(value.status).toBe(200);
  expect(ms).toBeLessThan(LIVEZ_BUDGET_MS);
}

describe('hostile patterns and names', () => {
  it('answers the curl of issue 11 (120 ** segments) within 1 s, and the coordinator stays up', async () => {
    const fp = Array(120).fill('**').join('.') + '.x';
    const { ms, value } = await timed(() => http(url, 'GET', `/cities/_search?filter_path=${fp}`));
    expect(ms).toBeLessThan(REQUEST_BUDGET_MS);
    expect(value.status).toBe(200);
    expect(value.body).toEqual({}); // nothing in a search reply is 121 levels deep
    await expectAlive();
    // the same filter with a reachable leaf filters as ES does: `**` spans one or more levels
    const names = await http(url, 'GET', '/cities/_search?size=2&sort=population:desc&filter_path=**.**.name');
    expect(names.status).toBe(200);
    expect(Object.keys(names.body.hits.hits[0]._source)).toEqual(['name']);
  });

  it('refuses ?filter_path=% as ES does (bad_parameter_exception) and a filter_path over 4096 chars', async () => {
    const bad = await http(url, 'GET', '/cities/_search?filter_path=%');
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('bad_parameter_exception');
    expect(bad.body.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'unterminated escape sequence at end of string: %' });
    const long = await timed(() => http(url, 'GET', `/cities/_search?filter_path=${'**.'.repeat(1400)}x`));
    expect(long.value.status).toBe(400);
    expect(long.value.body.error.type).toBe('illegal_argument_exception');
    expect(long.ms).toBeLessThan(REQUEST_BUDGET_MS);
    await expectAlive();
  });

  it('matches backtracking wildcards in index expressions and _source patterns at once', async () => {
    const index = await timed(() => http(url, 'GET', `/${'*c'.repeat(60)}*x/_search?size=0`));
    expect(index.ms).toBeLessThan(REQUEST_BUDGET_MS);
    expect(index.value.status).toBe(200);
    expect(index.value.body.hits.total.value).toBe(0);
    const source = await timed(() =>
      http(url, 'POST', '/cities/_search', { size: 50, _source: { includes: ['*a'.repeat(40) + '*b', 'name'], excludes: ['*e'.repeat(40) + '*z'] } }),
    );
    expect(source.ms).toBeLessThan(REQUEST_BUDGET_MS);
    expect(source.value.status).toBe(200);
    expect(Object.keys(source.value.body.hits.hits[0]._source)).toEqual(['name']);
    await expectAlive();
  });

  it('answers hostile regexp queries within 1 s: backtracking patterns run in linear time, an explosive automaton is refused', async () => {
    for (const value of ['(a+)+b', '(.*a){20}', '(a|aa)*c', `${'a?'.repeat(30)}${'a'.repeat(30)}`]) {
      const r = await timed(() => http(url, 'POST', '/cities/_search', { size: 1, query: { regexp: { 'name.keyword': value } } }));
      expect(r.ms, value).toBeLessThan(REQUEST_BUDGET_MS);
      expect(r.value.status, value).toBe(200);
    }
    const explosive = await timed(() =>
      http(url, 'POST', '/cities/_search', { query: { regexp: { 'name.keyword': { value: '(a|b)*a(a|b){24}', max_determinized_states: 100 } } } }),
    );
    expect(explosive.ms).toBeLessThan(REQUEST_BUDGET_MS);
    expect(explosive.value.status).toBe(400);
    expect(explosive.value.body.error.root_cause[0].type).toBe('query_shard_exception');
    await expectAlive();
  });

  it('answers a 200 KB unknown query name with a 400 within 1 s', async () => {
    const name = 'q'.repeat(200_000);
    const { ms, value } = await timed(() => http(url, 'POST', '/cities/_search', `{"query": {"${name}": {}}}`));
    expect(ms).toBeLessThan(REQUEST_BUDGET_MS);
    expect(value.status).toBe(400);
    expect(value.body.error.type).toBe('parsing_exception');
    expect(value.body.error.reason).toBe(`unknown query [${name}]`);
    const near = await http(url, 'POST', '/cities/_search', '{"query": {"matchh": {"name": "x"}}}');
    expect(near.body.error.reason).toBe('unknown query [matchh] did you mean [match]?');
    await expectAlive();
  });
});
