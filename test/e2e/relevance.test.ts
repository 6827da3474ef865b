/**
 * Full-text ranking over the SpamAssassin mails: the index in 3 shards ranks exactly as the same
 * documents in 1 shard, because scoring uses global term statistics (dfs), so BM25's idf and avgdl
 * do not depend on how documents split over shards.
 */
import { describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');

interface Hit {
  _id: string;
  _score: number | null;
}

async function top(index: string, body: unknown, size = 100): Promise<{ total: unknown; hits: Hit[]; max: number | null }> {
  const res = await http(url, 'POST', `/${index}/_search?size=${size}&_source=false&track_total_hits=true`, body);
  expect(res.status, JSON.stringify(res.body).slice(0, 400)).toBe(200);
  return { total: res.body.hits.total, hits: res.body.hits.hits.map((h: Hit) => ({ _id: h._id, _score: h._score })), max: res.body.hits.max_score };
}

const queries: [string, unknown][] = [
  ['match on body', { query: { match: { body: 'free money offer' } } }],
  ['match with operator and', { query: { match: { body: { query: 'mortgage rate', operator: 'and' } } } }],
  ['multi_match over subject and body', { query: { multi_match: { query: 'linux kernel patch', fields: ['subject^2', 'body'] } } }],
  [
    'bool must + should + filter',
    { query: { bool: { must: [{ match: { body: 'click' } }], should: [{ match: { subject: 'money' } }], filter: [{ term: { spam: true } }] } } },
  ],
  ['term on a keyword field', { query: { term: { group: 'spam-2' } } }],
];

describe('ranking does not depend on the shard count', () => {
  for (const [name, body] of queries) {
    it(name, async () => {
      const three = await top('mails', body);
      const one = await top('mails-1shard', body);
      expect(three.hits.length).toBeGreaterThan(0);
      expect(three.total).toEqual(one.total);
      expect(three.max).toBe(one.max);
      expect(three.hits).toEqual(one.hits);
      for (let i = 1; i < three.hits.length; i++) expect(three.hits[i - 1]._score!).toBeGreaterThanOrEqual(three.hits[i]._score!);
    });
  }

  it('q= over all fields ranks the same, page by page', async () => {
    for (const from of [0, 20, 40]) {
      const a = await http(url, 'GET', `/mails/_search?q=money&from=${from}&size=20&_source=false`);
      const b = await http(url, 'GET', `/mails-1shard/_search?q=money&from=${from}&size=20&_source=false`);
      expect(a.body.hits.hits.length).toBe(20);
      expect(a.body.hits.hits.map((h: Hit) => [h._id, h._score])).toEqual(b.body.hits.hits.map((h: Hit) => [h._id, h._score]));
    }
  });
});
