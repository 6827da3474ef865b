/**
 * Property-based fuzzing of the public API beyond search bodies (test/e2e/bad-input.test.ts):
 * random NDJSON for `_bulk`, invalid UTF-8 bodies, wrong content types, random paths and methods,
 * and random documents for `PUT /{index}/_doc/{id}`. No reply is 5xx, every error body is ES-shaped,
 * and afterwards the sample indices hold exactly their counts and the scratch index exactly the
 * documents whose writes were acknowledged. Each property is bounded in runs and time.
 */
import fc from 'fast-check';
import { request } from 'undici';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { http } from './http.ts';

const url = inject('coordinatorUrl');
const nodes = inject('nodeUrls');
const SCRATCH = 'fuzz-scratch';
/** Each property: at most this many runs, and stopped (not failed) after this long. */
const LIMITS = { numRuns: 150, interruptAfterTimeLimit: 15_000 };
/** Ids of SCRATCH documents whose last acknowledged write left them present. */
const acked = new Set<string>();

/** A raw request: any method, any bytes, any content type; the reply's body parsed when JSON. */
async function raw(method: string, path: string, body?: string | Buffer, contentType?: string): Promise<{ status: number; body: any; text: string }> {
  const headers: Record<string, string> = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  const res = await request(url + path, { method: method as 'GET', headers, body, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.statusCode, body: parsed, text };
}

/** No 5xx; a 4xx carries an ES error body: `{error: {type, reason, root_cause}, status}` or ES's `{error: "…"}`. */
function checkReply(method: string, path: string, res: { status: number; body: any; text: string }): void {
  expect([method, path, res.status, res.text.slice(0, 300)]).toEqual([method, path, expect.toSatisfy((s: number) => s < 500), expect.anything()]);
  // `?filter_path` trims error bodies too (as ES), so their shape is only checked without it.
  if (res.status < 400 || method === 'HEAD' || path.includes('filter_path=')) return;
  // A missing document is a 404 with the document envelope, not an error (ES's GET and DELETE).
  if (res.status === 404 && (res.body?.found === false || res.body?.result === 'not_found')) return;
  expect([path, typeof res.body]).toEqual([path, 'object']);
  if (typeof res.body.error === 'object') {
    expect([path, res.body.status]).toEqual([path, res.status]);
    expect([path, typeof res.body.error.type, typeof res.body.error.reason, Array.isArray(res.body.error.root_cause)]).toEqual([
      path,
      'string',
      'string',
      true,
    ]);
  } else {
    // ES's RestController answers unknown URIs with `{"error": "no handler found for uri …"}` (no `status`).
    expect([path, typeof res.body.error]).toEqual([path, 'string']);
  }
}

/** Applies a `_bulk` reply to the model of SCRATCH. */
function applyBulk(body: any): void {
  if (!Array.isArray(body?.items)) return;
  for (const item of body.items) {
    const op = Object.keys(item)[0];
    const r = item[op];
    if (r._index !== SCRATCH || typeof r._id !== 'string') continue;
    if (op === 'delete' && (r.status === 200 || r.status === 404)) acked.delete(r._id);
    else if (op !== 'delete' && r.status >= 200 && r.status < 300) acked.add(r._id);
  }
}

const id = fc.constantFrom('a', 'b', 'c', '1', '2', 'ü', 'x/y', 'with space', '%41', '');
const hugeNumbers = fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '1e-400', '-0', '9007199254740993', '0.1e99999');
const deep = fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('{"a":', '['), fc.boolean()).map(([d, open, closed]) => {
  const close = open === '[' ? ']' : '}';
  return open.repeat(d) + '1' + (closed ? close.repeat(d) : '');
});
const jsonDoc = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }).map((d) => JSON.stringify(d));
const docText = fc.oneof(
  jsonDoc,
  hugeNumbers.map((n) => `{"n":${n}}`),
  deep,
  fc.constantFrom('{', 'null', '[]', '"s"', '42', '{"a":1}{"b":2}', '{"_id":"x"}', '{"_source":{}}', '{"a":NaN}', '{"a":1,}', ''),
);
const meta = fc.record(
  {
    _index: fc.constantFrom(SCRATCH, SCRATCH, 'UPPER', '_bad', 'fuzz scratch', 5, null),
    _id: fc.oneof(id, fc.integer(), fc.constant(null), fc.constant({})),
    // No `routing`: with custom routing ES keeps one _id per shard, so the id model below would not be exact.
    if_seq_no: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constant('x'), fc.constant(1e300)),
    if_primary_term: fc.integer({ min: 0, max: 2 }),
    version: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.constant(Number.MAX_SAFE_INTEGER + 2)),
    version_type: fc.constantFrom('internal', 'external', 'external_gte', 'force', 'x'),
    retry_on_conflict: fc.constantFrom(1, -1, 'x'),
  },
  { requiredKeys: [] },
);
const action = fc.oneof(
  fc.tuple(fc.constantFrom('index', 'create', 'delete', 'update', 'upsert', 'indx', ''), meta).map(([op, m]) => JSON.stringify({ [op]: m })),
  fc.constantFrom(
    '{',
    '}',
    '{"index":',
    'null',
    '[]',
    '{"index":{}}{"x":1}',
    '"str"',
    '{"index":{"_id":"a"},"delete":{}}',
    '   ',
    '{"index":[]}',
    '{"delete":{"_id":"a","_index":"fuzz-scratch","x":1}}',
    '{"index":{"_id":1e400}}',
    '{"index":{"_id":"big","if_seq_no":99999999999999999999,"if_primary_term":1}}',
    '{"index":{"_id":"v","version":1e400,"version_type":"external"}}',
    '{"index":{"_id":"v","version":-1e400,"version_type":"external_gte"}}',
  ),
  deep,
);
const updateDoc = fc.oneof(
  jsonDoc.map((d) => `{"doc":${d},"doc_as_upsert":true}`),
  jsonDoc.map((d) => `{"doc":${d}}`),
  fc.constantFrom('{"script":"x"}', '{"upsert":{"a":1}}', '{}'),
);
const ndjson = fc
  .array(fc.tuple(action, fc.oneof(docText, updateDoc), fc.boolean()), { minLength: 1, maxLength: 12 })
  .chain((pairs) => fc.tuple(fc.constant(pairs.map(([a, d, withDoc]) => (withDoc ? `${a}\n${d}` : a)).join('\n')), fc.constantFrom('\n', '', '\n\n', '\r\n')))
  .map(([lines, end]) => lines + end);
const invalidUtf8 = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b)),
  fc
    .constantFrom([0xff], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf])
    .map((bad) => Buffer.concat([Buffer.from('{"query":{"match":{"name":"'), Buffer.from(bad), Buffer.from('"}}}')])),
);
const contentType = fc.constantFrom(
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'application/vnd.elasticsearch+json; compatible-with=7',
  'application/x-ndjson',
  'application/cbor',
  'application/smile',
  'application/yaml',
  '',
  '*/*',
  'garbage;;;=',
);

beforeAll(async () => {
  const res = await http(url, 'PUT', `/${SCRATCH}`, { settings: { number_of_shards: 2 } });
  expect(res.status).toBe(200);
});

describe('fuzzing the public API never gets a 5xx', () => {
  it('random NDJSON for _bulk', async () => {
    await fc.assert(
      fc.asyncProperty(ndjson, fc.constantFrom(`/${SCRATCH}/_bulk`, '/_bulk', `/${SCRATCH}/_bulk?refresh=true`), async (text, path) => {
        const res = await raw('POST', path, text, 'application/x-ndjson');
        checkReply('POST', path, res);
        applyBulk(res.body);
      }),
      LIMITS,
    );
  }, 60_000);

  it('random documents for PUT /{index}/_doc/{id}', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(id, fc.string({ maxLength: 10 }), fc.constant('x'.repeat(513))),
        docText,
        fc.constantFrom('', '?op_type=create', '?refresh=true', '?version=2', '?if_seq_no=0&if_primary_term=1'),
        async (docId, text, qs) => {
          const path = `/${SCRATCH}/_doc/${encodeURIComponent(docId)}${qs}`;
          const res = await raw('PUT', path, text, 'application/json');
          checkReply('PUT', path, res);
          if (res.status === 200 || res.status === 201) {
            expect([path, res.body._id]).toEqual([path, docId]);
            acked.add(docId);
          }
        },
      ),
      LIMITS,
    );
  }, 60_000);

  it('invalid UTF-8 bodies and wrong content types', async () => {
    const target = fc.constantFrom(
      '/cities/_search',
      '/cities/_count',
      '/_mget',
      '/cities/_mapping',
      `/${SCRATCH}/_doc/utf8`,
      `/${SCRATCH}/_bulk`,
      '/_search/scroll',
      '/cities/_pit?keep_alive=1s',
    );
    await fc.assert(
      fc.asyncProperty(
        target,
        fc.oneof(invalidUtf8, fc.constant(Buffer.from('{"query":{"match_all":{}}}'))),
        fc.option(contentType, { nil: 'application/json' }),
        async (path, body, type) => {
          const method = path.endsWith('/_doc/utf8') ? 'PUT' : 'POST';
          const res = await raw(method, path, body, type);
          checkReply(method, path, res);
          if (path.endsWith('/_doc/utf8') && (res.status === 200 || res.status === 201)) acked.add('utf8');
          if (path.endsWith('/_bulk')) applyBulk(res.body);
        },
      ),
      LIMITS,
    );
  }, 60_000);

  it('random paths and methods (reads anywhere, writes only on indices that hold no sample data)', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        '_search',
        '_doc',
        '_bulk',
        '_cat',
        'indices',
        'shards',
        '_cluster',
        'health',
        '_mget',
        '_count',
        '_mapping',
        '_settings',
        '_refresh',
        '_aliases',
        '_pit',
        '_stats',
        '',
        '%ZZ',
        '..',
        '%2e%2e',
        'Ünï',
        '%00',
        'fuzz-none',
        'fuzz-none,other',
        '_source',
        '_create',
        '_update',
        '_field_caps',
        '_msearch',
      ),
      fc.string({ maxLength: 5 }).map(encodeURIComponent),
    );
    const query = fc.constantFrom(
      '',
      '?pretty',
      '?size=-1',
      '?filter_path=%',
      '?q=%',
      '?refresh=x',
      '?format=yaml',
      '?v&h=bogus',
      '?scroll=1x',
      '?timeout=-5s',
      '?from=99999999999999999999',
    );
    const readRoot = fc.constantFrom('cities', 'mails', '*', '_all', 'cities,mails', SCRATCH);
    const writeRoot = fc.constantFrom('fuzz-none', '_search', '_bulk', '_mget', '_count', '%ZZ', 'UPPER', '_cluster', '_refresh', '');
    const req = fc.oneof(
      fc.tuple(fc.constantFrom('GET', 'HEAD', 'OPTIONS'), fc.oneof(readRoot, segment), fc.array(segment, { maxLength: 3 }), query),
      fc.tuple(
        fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH'),
        writeRoot,
        fc.array(
          segment.filter((s) => !s.startsWith('_delete') && s !== '_close'),
          { maxLength: 3 },
        ),
        query,
      ),
    );
    await fc.assert(
      fc.asyncProperty(req, async ([method, root, rest, qs]) => {
        const path = '/' + [root, ...rest].join('/') + qs;
        const res = await raw(method, path);
        checkReply(method, path, res);
      }),
      LIMITS,
    );
  }, 60_000);
});

describe('after fuzzing', () => {
  it('every process still answers', async () => {
    expect((await http(url, 'GET', '/')).status).toBe(200);
    for (const node of nodes) expect((await http(node, 'GET', '/_internal/v1/health')).status).toBe(200);
  });

  it('the sample indices hold exactly their documents', async () => {
    for (const [index, count] of [
      ['cities', 135_233],
      ['mails', 6_046],
      ['mails-1shard', 6_046],
    ] as const) {
      expect([index, (await http(url, 'GET', `/${index}/_count`)).body.count]).toEqual([index, count]);
    }
  });

  it('the scratch index holds exactly the acknowledged documents', async () => {
    expect((await http(url, 'POST', `/${SCRATCH}/_refresh`)).status).toBe(200);
    const res = await http(url, 'POST', `/${SCRATCH}/_search`, { size: 10_000, _source: false, query: { match_all: {} } });
    expect(res.status).toBe(200);
    const ids = res.body.hits.hits.map((h: { _id: string }) => h._id).sort();
    expect(acked.size).toBeGreaterThan(0); // the fuzz did write something
    expect(ids).toEqual([...acked].sort());
    expect((await http(url, 'DELETE', `/${SCRATCH}`)).status).toBe(200);
  });
});
