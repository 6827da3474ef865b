import { describe, expect, it } from 'vitest';
import { esErr } from '../../test/support/es-error.ts';
import {
  fetchSourceFromQuery,
  missingPipeline,
  parseUpdateBody,
  validationMessages,
  writeConditionsOf,
  writeParamsFromActionLine,
  writeParamsFromQuery,
  type WriteToValidate,
} from './write-request.ts';

const q = (params: Record<string, string>) => (name: string) => params[name];
const v = (w: Partial<WriteToValidate>): string[] => validationMessages({ action: 'index', index: 'i', id: '1', params: {}, ...w });
const INTERNAL = 'internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead';

describe('validationMessages (ES IndexRequest/DeleteRequest/UpdateRequest.validate)', () => {
  it('a plain write is valid', () => {
    expect(v({})).toEqual([]);
    expect(v({ action: 'delete' })).toEqual([]);
    expect(v({ action: 'update', update: { hasDoc: true, hasUpsert: false, docAsUpsert: false } })).toEqual([]);
  });
  it('refuses internal versions (ES 8) and invalid ones for their type', () => {
    expect(v({ params: { version: 2 } })).toEqual([INTERNAL]);
    expect(v({ action: 'delete', params: { version: 2, versionType: 'internal' } })).toEqual([INTERNAL]);
    expect(v({ params: { version: -1 } })).toEqual(['illegal version value [-1] for version type [INTERNAL]', INTERNAL]);
    expect(v({ params: { version: -1, versionType: 'external' } })).toEqual(['illegal version value [-1] for version type [EXTERNAL]']);
    expect(v({ params: { version: 0, versionType: 'external_gte' } })).toEqual([]);
  });
  it('if_seq_no needs if_primary_term, and neither goes with a version', () => {
    expect(v({ params: { ifSeqNo: 1 } })).toEqual(['ifSeqNo is set, but primary term is [0]']);
    expect(v({ params: { ifPrimaryTerm: 3 } })).toEqual(['ifSeqNo is unassigned, but primary term is [3]']);
    expect(v({ params: { ifSeqNo: 1, ifPrimaryTerm: 1, version: 4, versionType: 'external' } })).toEqual([
      'compare and write operations can not use versioning',
    ]);
    expect(v({ params: { ifSeqNo: 1, ifPrimaryTerm: 1 } })).toEqual([]);
  });
  it('create: internal versioning only, no explicit version, no compare-and-set', () => {
    expect(v({ action: 'create', params: { version: 3, versionType: 'external' } })).toEqual([
      'create operations only support internal versioning. use index instead',
    ]);
    expect(v({ action: 'create', params: { version: 3 } })).toEqual(['create operations do not support explicit versions. use index instead']);
    expect(v({ action: 'create', params: { ifSeqNo: 0, ifPrimaryTerm: 1 } })).toEqual(['create operations do not support compare and set. use index instead']);
  });
  it('an auto-generated id with a version; ids too long; an empty pipeline; a missing index', () => {
    expect(v({ id: undefined, params: { version: 3, versionType: 'external' } })).toEqual(['an id must be provided if version type or value are set']);
    expect(v({ id: 'x'.repeat(513) })).toEqual([`id [${'x'.repeat(513)}] is too long, must be no longer than 512 bytes but was: 513`]);
    expect(v({ params: { pipeline: '' } })).toEqual(['pipeline cannot be an empty string']);
    expect(v({ index: undefined })).toEqual(['index is missing']);
  });
  it('update: id, compare-and-set with retries or upserts, doc', () => {
    const update = { hasDoc: true, hasUpsert: true, docAsUpsert: true };
    expect(v({ action: 'update', id: '', update })).toEqual(['id is missing']);
    expect(v({ action: 'update', params: { ifSeqNo: 1, ifPrimaryTerm: 1, retryOnConflict: 2 }, update })).toEqual([
      'compare and write operations can not be retried',
      'compare and write operations can not be used with upsert',
      "upsert requests don't support `if_seq_no` and `if_primary_term`",
    ]);
    expect(v({ action: 'update', update: { hasDoc: false, hasUpsert: true, docAsUpsert: true } })).toEqual([
      'script or doc is missing',
      'doc must be specified if doc_as_upsert is enabled',
    ]);
  });
});

describe('write parameters', () => {
  it('from a URL: longs and version types with ES texts', () => {
    expect(writeParamsFromQuery(q({ if_seq_no: '5', if_primary_term: '1', pipeline: 'p' }))).toEqual({ ifSeqNo: 5, ifPrimaryTerm: 1, pipeline: 'p' });
    expect(writeParamsFromQuery(q({ version: '7', version_type: 'external_gt' }))).toEqual({ version: 7, versionType: 'external' });
    expect(esErr(() => writeParamsFromQuery(q({ version_type: 'force' }))).message).toBe('No version type match [force]');
    expect(esErr(() => writeParamsFromQuery(q({ version: 'abc' }))).message).toBe('Failed to parse long parameter [version] with value [abc]');
    expect(esErr(() => writeParamsFromQuery(q({ if_seq_no: '-5' }))).message).toBe('sequence numbers must be non negative. got [-5].');
    expect(writeParamsFromQuery(q({ if_seq_no: '-2', if_primary_term: '0' }))).toEqual({}); // ES's unassigned values: no condition
    expect(esErr(() => writeParamsFromQuery(q({ if_primary_term: '-1' }))).message).toBe('primary term must be non negative. got [-1]');
  });
  it('from a bulk action line: numbers or numeric strings', () => {
    expect(writeParamsFromActionLine({ if_seq_no: 1, if_primary_term: '2', version: 3, version_type: 'external', retry_on_conflict: 1 }, 1)).toEqual({
      ifSeqNo: 1,
      ifPrimaryTerm: 2,
      version: 3,
      versionType: 'external',
      retryOnConflict: 1,
    });
    expect(esErr(() => writeParamsFromActionLine({ version: 1e300 }, 4)).status).toBe(400);
  });
  it('the conditions the primary checks', () => {
    expect(writeConditionsOf({ ifSeqNo: 1, ifPrimaryTerm: 2, pipeline: 'x' })).toEqual({ ifSeqNo: 1, ifPrimaryTerm: 2 });
    expect(writeConditionsOf({ version: 4, versionType: 'external_gte' })).toEqual({ version: 4, versionType: 'external_gte' });
    expect(writeConditionsOf({})).toEqual({});
  });
  it('every named pipeline is unknown except _none', () => {
    expect(missingPipeline({ pipeline: 'mypipeline' })?.message).toBe('pipeline with id [mypipeline] does not exist');
    expect(missingPipeline({ pipeline: 'mypipeline' })?.type).toBe('illegal_argument_exception');
    expect(missingPipeline({ pipeline: '_none' })).toBeUndefined();
    expect(missingPipeline({})).toBeUndefined();
  });
});

describe('parseUpdateBody (ES UpdateRequest parser)', () => {
  it('reads doc, upsert, doc_as_upsert, detect_noop and _source', () => {
    expect(parseUpdateBody({ doc: { a: 1 }, upsert: { a: 0 }, doc_as_upsert: false, detect_noop: false, _source: ['a'] })).toEqual({
      doc: { a: 1 },
      upsert: { a: 0 },
      docAsUpsert: false,
      detectNoop: false,
      script: false,
      fetchSource: { includes: ['a'], excludes: [] },
    });
  });
  it('refuses unknown fields with did-you-mean, and values of the wrong type', () => {
    const e = esErr(() => parseUpdateBody({ dac: { foo: 'baz' }, upsert: { foo: 'bar' } }));
    expect([e.status, e.type]).toEqual([400, 'x_content_parse_exception']);
    expect(e.message).toMatch(/\[UpdateRequest\] unknown field \[dac\] did you mean \[doc\]\?$/);
    expect(esErr(() => parseUpdateBody({ doc: 'x' })).message).toMatch(/\[UpdateRequest\] failed to parse field \[doc\]$/);
  });
});

describe('update _source parameters', () => {
  it('an update answers a get only when a _source parameter is given', () => {
    expect(fetchSourceFromQuery(q({}))).toBeUndefined();
    expect(fetchSourceFromQuery(q({ _source: 'true' }))).toBe(true);
    expect(fetchSourceFromQuery(q({ _source: 'foo,bar' }))).toEqual({ includes: ['foo', 'bar'], excludes: [] });
    expect(fetchSourceFromQuery(q({ _source_includes: 'foo' }))).toEqual({ includes: ['foo'], excludes: [] });
  });
});
