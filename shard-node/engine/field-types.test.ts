import { describe, expect, it } from 'vitest';
import type { Query } from '../../protocol/query-ast.ts';
import { parseMapping } from '../../coordinator/rest/mapping-parse.ts';
import { SCORE_SORT } from '../../protocol/sort.ts';
import { toHalfFloat } from './field-value-parse.ts';
import { compileHitFetch } from './hit-fetch.ts';
import { sortValueTexts } from './sort-value-texts.ts';
import type { Shard } from './shard.ts';
import { byField, load, newShard, q } from '../../test/support/engine-shard.ts';
import { jsonNumber } from '../../test/support/json-number.ts';
import { searcherOf } from './searcher.ts';

const search = (shard: Shard, query: Query, sort = [byField('_id')]) => searcherOf(shard.acquire()).query({ query, sort, k: 100, trackTotalHits: 1e9 }).hits;
const ids = (shard: Shard, query: Query) => search(shard, query).map((h) => h._id);
const range = (field: string, b: Record<string, unknown>): Query => ({ kind: 'range', field, boost: 1, ...b });
const terms = (field: string, values: (string | number)[]): Query => ({ kind: 'terms', field, values, boost: 1 });

function indexError(shard: Shard, source: unknown): unknown {
  return shard.apply([{ op: 'index', _id: 'bad', source: JSON.stringify(source), create: false }])[0].error;
}

describe('date formats', () => {
  const { shard } = newShard(parseMapping({ properties: { d: { type: 'date', format: 'yyyy-MM-dd HH:mm:ss.SSS||yyyy/MM/dd||epoch_second' } } }));
  load(shard, [
    { _id: 'a', d: '2018-10-29 12:12:12.123' },
    { _id: 'b', d: '2018/10/30' },
    { _id: 'c', d: 1540944000 },
  ]);
  it('parses each alternative on index', () => {
    expect(search(shard, q.all(), [byField('d')]).map((h) => h.sort[0])).toEqual([
      Date.UTC(2018, 9, 29, 12, 12, 12, 123),
      Date.UTC(2018, 9, 30),
      1540944000000,
    ]);
  });
  it('refuses a value no alternative takes', () => {
    expect(indexError(shard, { d: '2018-10-29' })).toMatchObject({
      type: 'document_parsing_exception',
      reason: "[1:2] failed to parse field [d] of type [date] in document with id 'bad'. Preview of field's value: '2018-10-29'",
      caused_by: {
        type: 'illegal_argument_exception',
        reason: 'failed to parse date field [2018-10-29] with format [yyyy-MM-dd HH:mm:ss.SSS||yyyy/MM/dd||epoch_second]',
      },
    });
  });
  it('term queries on dates are ranges: a day matches the whole day', () => {
    expect(ids(shard, q.term('d', '2018/10/29'))).toEqual(['a']);
    expect(ids(shard, terms('d', ['2018/10/29', '2018/10/30']))).toEqual(['a', 'b']); // c is 2018-10-31T00:00:00Z
    expect(ids(shard, q.term('d', '2018-10-29 12:12:12.123'))).toEqual(['a']);
    expect(ids(shard, q.term('d', '2018-10-29 12:12:12.124'))).toEqual([]);
  });
  it('parses range bounds with the field format, the query format, date math and time zones', () => {
    expect(ids(shard, range('d', { gte: '2018/10/30' }))).toEqual(['b', 'c']);
    expect(ids(shard, range('d', { gte: '30.10.2018', format: 'dd.MM.yyyy' }))).toEqual(['b', 'c']);
    expect(ids(shard, range('d', { gte: '2018/10/29||/d', lt: '2018/10/29||+1d' }))).toEqual(['a']);
    expect(ids(shard, range('d', { lte: '2018/10/29||/d' }))).toEqual(['a']); // lte rounds up to the day's end
    expect(ids(shard, { ...range('d', { lt: '2018/10/30' }), timeZone: '-01:00' } as Query)).toEqual(['a', 'b']);
    expect(ids(shard, range('d', { gte: 'now-1000d' }))).toEqual([]);
  });
});

describe('date_nanos', () => {
  const { shard } = newShard(parseMapping({ properties: { d: { type: 'date_nanos' } } }));
  load(shard, [
    { _id: 'first', d: '2018-10-29T12:12:12.123456789Z' },
    { _id: 'second', d: '2018-10-29T12:12:12.987654321Z' },
  ]);
  it('sorts on nanoseconds since the epoch', () => {
    const hits = search(shard, q.all(), [byField('d', 'desc')]);
    expect(hits.map((h) => h._id)).toEqual(['second', 'first']);
    expect(hits[0].sort[0]).toBe(jsonNumber('1540815132987654321'));
  });
  it('refuses dates before 1970 and after 2262', () => {
    expect(indexError(shard, { d: '1969-10-28T12:12:12.123456789Z' })).toMatchObject({
      caused_by: { reason: 'date[1969-10-28T12:12:12.123456789Z] is before the epoch in 1970 and cannot be stored in nanosecond resolution' },
    });
    expect(indexError(shard, { d: '2263-10-29T12:12:12.123456789Z' })).toMatchObject({
      caused_by: { reason: 'date[2263-10-29T12:12:12.123456789Z] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution' },
    });
  });
  it('ranges compare nanoseconds', () => {
    expect(ids(shard, range('d', { gt: '2018-10-29T12:12:12.123456789Z' }))).toEqual(['second']);
  });
});

describe('numeric types', () => {
  const { shard } = newShard(
    parseMapping({
      properties: {
        h: { type: 'half_float' },
        s: { type: 'scaled_float', scaling_factor: 10 },
        u: { type: 'unsigned_long' },
        b: { type: 'byte' },
        n: { type: 'long', ignore_malformed: true },
      },
    }),
  );
  load(shard, [
    { _id: '1', h: 1.1, s: 1.26, u: '10223372036854775807.23', b: 1, n: 'abc' },
    { _id: '2', h: 2, s: 3, u: 1, b: 2, n: 5 },
  ]);
  it('half_float and scaled_float index and sort their rounded values', () => {
    expect(toHalfFloat(1.1)).toBe(1.099609375);
    expect(toHalfFloat(65519)).toBe(65504);
    expect(search(shard, q.all(), [byField('h')]).map((h) => h.sort[0])).toEqual([1.099609375, 2]);
    expect(search(shard, q.all(), [byField('s')]).map((h) => h.sort[0])).toEqual([1.3, 3]);
    expect(ids(shard, q.term('h', 1.1))).toEqual(['1']);
    expect(ids(shard, q.term('s', 1.3))).toEqual(['1']);
  });
  it('unsigned_long takes values above 2^63 and refuses negative ones', () => {
    expect(ids(shard, q.term('u', jsonNumber('10223372036854775807')))).toEqual(['1']);
    expect(indexError(shard, { u: -1 })).toMatchObject({
      type: 'document_parsing_exception',
      caused_by: { reason: 'Value [-1] is out of range for an unsigned long' },
    });
    expect(indexError(shard, { u: '18446744073709551616' })).toMatchObject({ type: 'document_parsing_exception' });
  });
  it('integer types refuse values out of their range', () => {
    expect(indexError(shard, { b: 128 })).toMatchObject({
      reason: "[1:2] failed to parse field [b] of type [byte] in document with id 'bad'. Preview of field's value: '128'",
      caused_by: { type: 'illegal_argument_exception', reason: 'Value [128] is out of range for a byte' },
    });
  });
  it('ignore_malformed skips the value and keeps the document', () => {
    expect(ids(shard, { kind: 'exists', field: 'n', boost: 1 })).toEqual(['2']);
  });
});

describe('ip', () => {
  const { shard } = newShard(parseMapping({ properties: { ip: { type: 'ip' } } }));
  load(shard, [
    { _id: 'a', ip: '192.168.0.1' },
    { _id: 'b', ip: '10.1.2.3' },
    { _id: 'c', ip: '2001:db8::1' },
  ]);
  it('term, CIDR, terms and range queries', () => {
    expect(ids(shard, q.term('ip', '192.168.0.1'))).toEqual(['a']);
    expect(ids(shard, q.term('ip', '192.168.0.0/16'))).toEqual(['a']);
    expect(ids(shard, q.term('ip', '2001:db8::/32'))).toEqual(['c']);
    expect(ids(shard, q.term('ip', '2001:0db8:0:0:0:0:0:1'))).toEqual(['c']);
    expect(ids(shard, terms('ip', ['10.1.2.3', '192.168.0.1']))).toEqual(['a', 'b']);
    expect(ids(shard, range('ip', { gte: '10.0.0.0', lt: '192.168.0.1' }))).toEqual(['b']);
  });
  it('sorts by address and prints addresses, search_after takes one', () => {
    const sort = [byField('ip')];
    const hits = search(shard, q.all(), sort);
    expect(hits.map((h) => h._id)).toEqual(['b', 'a', 'c']);
    expect(sortValueTexts(hits, sort, shard.acquire().fields(), () => null)).toEqual({ 0: ['"10.1.2.3"'], 1: ['"192.168.0.1"'], 2: ['"2001:db8::1"'] });
    const after = searcherOf(shard.acquire()).query({ query: q.all(), sort, k: 10, trackTotalHits: 1e9, searchAfter: { sort: ['10.1.2.3'] } });
    expect(after.hits.map((h) => h._id)).toEqual(['a', 'c']);
  });
  it('refuses what is not an address', () => {
    expect(indexError(shard, { ip: 'foo' })).toMatchObject({ type: 'document_parsing_exception', caused_by: { reason: "'foo' is not an IP string literal." } });
  });
});

describe('other types', () => {
  const { shard, mapping } = newShard(
    parseMapping({
      properties: {
        bin: { type: 'binary' },
        flat: { type: 'flattened' },
        ck: { type: 'constant_keyword' },
        mot: { type: 'match_only_text' },
        w: { type: 'wildcard' },
        off: { type: 'keyword', index: false },
        none: { type: 'keyword', index: false, doc_values: false },
        txt: { type: 'text', index: false },
        disabled: { type: 'object', enabled: false },
      },
    }),
  );
  load(shard, [
    { _id: '1', bin: 'YWJjZGUxMjM0', flat: { a: { b: 'x' }, c: 'y' }, ck: 'foo', mot: 'quick brown fox', w: 'abc', off: 'o', disabled: { k: 1 } },
    { _id: '2', mot: 'brown quick fox jumps over', w: 'abd' },
  ]);
  it('binary has values but is not searchable', () => {
    expect(ids(shard, { kind: 'exists', field: 'bin', boost: 1 })).toEqual(['1']);
    expect(() => ids(shard, q.term('bin', 'YWJjZGUxMjM0'))).toThrow('Binary fields do not support searching');
    expect(indexError(shard, { bin: 'not base64!' })).toMatchObject({ type: 'document_parsing_exception' });
  });
  it('flattened leaves are keywords of the field and of their keyed paths', () => {
    expect(ids(shard, q.term('flat', 'x'))).toEqual(['1']);
    expect(ids(shard, q.term('flat.a.b', 'x'))).toEqual(['1']);
    expect(ids(shard, q.term('flat.c', 'x'))).toEqual([]);
    expect(ids(shard, { kind: 'exists', field: 'flat.c', boost: 1 })).toEqual(['1']);
  });
  it('constant_keyword takes its value from the first document and matches every document', () => {
    expect(mapping().properties.ck).toEqual({ type: 'constant_keyword', value: 'foo' });
    expect(ids(shard, q.term('ck', 'foo'))).toEqual(['1', '2']);
    expect(ids(shard, q.term('ck', 'bar'))).toEqual([]);
    expect(indexError(shard, { ck: 'bar' })).toMatchObject({
      caused_by: { reason: '[constant_keyword] field [ck] only accepts values that are equal to the value defined in the mappings [foo], but got [bar]' },
    });
  });
  it('match_only_text matches phrases and scores every hit alike', () => {
    expect(search(shard, q.match('mot', 'quick fox'), [...SCORE_SORT]).map((h) => h._score)).toEqual([2, 2]);
    expect(search(shard, q.match('mot', 'jumps'), [...SCORE_SORT]).map((h) => h._score)).toEqual([1]);
    expect(ids(shard, { kind: 'match_phrase', field: 'mot', query: 'quick brown', slop: 0, boost: 1 })).toEqual(['1']);
  });
  it('wildcard fields sort and match as keywords', () => {
    expect(search(shard, q.all(), [byField('w', 'desc')]).map((h) => h._id)).toEqual(['2', '1']);
    expect(ids(shard, { kind: 'prefix', field: 'w', value: 'ab', caseInsensitive: false, boost: 1 })).toEqual(['1', '2']);
  });
  it('index: false fields are searched through doc values, else refused as ES does', () => {
    expect(ids(shard, q.term('off', 'o'))).toEqual(['1']);
    expect(() => ids(shard, q.term('none', 'o'))).toThrow('failed to create query: Cannot search on field [none] since it is not indexed nor has doc values.');
    expect(() => ids(shard, q.match('txt', 'o'))).toThrow('failed to create query: Cannot search on field [txt] since it is not indexed.');
  });
  it('enabled: false objects are kept in _source only', () => {
    expect(mapping().properties.disabled).toEqual({ type: 'object', enabled: false, properties: {} });
  });
});

describe('_ignored', () => {
  const { shard } = newShard(parseMapping({ properties: { d: { type: 'date', ignore_malformed: true }, k: { type: 'keyword', ignore_above: 3 } } }));
  load(shard, [
    { _id: '1', d: 'bar', k: 'long value' },
    { _id: '2', d: '2018-05-11', k: 'abc' },
  ]);
  it('names the fields whose values were not indexed, searchable as a keyword', () => {
    expect(ids(shard, { kind: 'exists', field: '_ignored', boost: 1 })).toEqual(['1']);
    expect(ids(shard, q.term('_ignored', 'd'))).toEqual(['1']);
    expect(ids(shard, terms('_ignored', ['k']))).toEqual(['1']);
    expect(ids(shard, q.term('k', 'long value'))).toEqual([]);
  });
  it('are shown in the hit of the document', () => {
    const gen = shard.acquire();
    expect(gen.hasHitMetadata).toBe(true);
    expect(gen.extrasOf(['1', '2'], compileHitFetch(undefined, gen.mapping(), 'idx', 1))).toEqual([{ _ignored: ['d', 'k'] }, null]);
  });
});

describe('exact sort values above 2^53', () => {
  const { shard } = newShard(parseMapping({ properties: { n: { type: 'long' }, u: { type: 'unsigned_long' }, d: { type: 'date_nanos' } } }));
  // Source texts as a client sends them: JSON numbers above 2^53 written out exactly.
  shard.apply([
    { op: 'index', _id: '1', source: '{"n": [9223372036854775807, 1], "u": 10223372036854775807.23, "d": "2018-10-29T12:12:12.987654321Z"}', create: false },
    { op: 'index', _id: '2', source: '{"n": 5, "u": 3, "d": "2018-10-29T12:12:12.123456789Z"}', create: false },
  ]);
  shard.refresh();
  const sources = new Map(['1', '2'].map((id) => [id, shard.get(id)._source!]));
  const texts = (sort: ReturnType<typeof byField>[]) =>
    sortValueTexts(search(shard, q.all(), sort), sort, shard.acquire().fields(), (id) => sources.get(id) ?? null);
  it('reads the exact values of the hits whose doubles round', () => {
    expect(texts([byField('n', 'desc'), byField('u', 'desc'), byField('d', 'desc')])).toEqual({
      0: ['9223372036854775807', '10223372036854775807', '1540815132987654321'],
      1: [null, null, '1540815132123456789'],
    });
    expect(texts([byField('n', 'asc')])).toBeUndefined();
    // Computed as ES computes on longs: median rounds the doubles' mean, sum wraps around 64 bits.
    expect(texts([byField('n', 'desc', { mode: 'median' })])).toEqual({ 0: ['4611686018427387904'] });
    expect(texts([byField('n', 'asc', { mode: 'sum' })])).toEqual({ 0: ['-9223372036854775808'] });
  });
});

describe('copy_to', () => {
  const { shard } = newShard(
    parseMapping({
      properties: {
        first: { type: 'text', copy_to: 'full' },
        last: { type: 'text', copy_to: ['full', 'tags'] },
        full: { type: 'text' },
        tags: { type: 'keyword' },
      },
    }),
  );
  load(shard, [{ _id: '1', first: 'John', last: 'Smith' }]);
  it('indexes the values in the target fields too', () => {
    expect(ids(shard, q.match('full', 'john smith', { operator: 'and' }))).toEqual(['1']);
    expect(ids(shard, q.term('tags', 'Smith'))).toEqual(['1']);
  });
});
