import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ShardBulkResponse } from './write.ts';
import { acceptsNdjson, decodeShardBulkReply, encodeShardBulkReply, ShardBulkReplyReader } from './shard-bulk-reply.ts';
import { WriteResultColumns } from './write-result-columns.ts';
import { parseNdjsonSliced } from '../shared/sliced-json.ts';

/** What the coordinator does with an NDJSON reply: parse the lines in slices, then decode them. */
async function roundTrip(reply: ShardBulkResponse, chunkBytes: number): Promise<ShardBulkResponse> {
  const bytes = Buffer.from(await encodeShardBulkReply(reply));
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkBytes) chunks.push(bytes.subarray(i, i + chunkBytes));
  return decodeShardBulkReply((await parseNdjsonSliced(Readable.from(chunks))).values);
}

describe('the NDJSON shard bulk reply', () => {
  const items: ShardBulkResponse['items'] = Array.from({ length: 33_000 }, (_, i) =>
    i % 5 === 0
      ? { _id: `ghost-${i}`, status: 404, result: 'not_found', _version: 1, _seq_no: 2 * i, _primary_term: 3 }
      : i % 7 === 0
        ? {
            _id: `d${i}`,
            status: 409,
            error: { type: 'version_conflict_engine_exception', reason: `[d${i}]: version conflict, "é"`, index_uuid: 'u', shard: '0' },
          }
        : { _id: `d${i}`, status: 201, result: 'created', _version: 1, _seq_no: 2 * i + 1, _primary_term: 3 },
  );

  it('parsed in slices, gives the reply one-shot JSON parsing gives', async () => {
    const replies: ShardBulkResponse[] = [
      { node: 'node-1', index: 'abuse-scratch', shard: 1, items, forcedRefresh: false },
      {
        node: 'node-0',
        index: 'i',
        shard: 0,
        items: items.slice(0, 3),
        forcedRefresh: true,
        replicas: { acknowledged: [2], failed: [{ node: 1, status: 503, type: 'node_not_connected_exception', reason: 'refused, "é"\n' }] },
      },
      { node: 'n', index: 'i', shard: 2, items: [], forcedRefresh: false, replicas: { acknowledged: [], failed: [] } },
    ];
    for (const reply of replies) {
      const oneShot = JSON.parse(JSON.stringify(reply));
      for (const chunkBytes of reply.items.length > 100 ? [4096, 65_536] : [5, 4096]) expect(await roundTrip(reply, chunkBytes)).toEqual(oneShot);
    }
  });

  it('a reply cut short is refused, not taken as fewer items', async () => {
    const text = await encodeShardBulkReply({ node: 'n', index: 'i', shard: 0, items: items.slice(0, 10), forcedRefresh: false });
    const lines = text
      .split('\n')
      .filter((l) => l !== '')
      .slice(0, 8)
      .map((l) => JSON.parse(l));
    expect(() => decodeShardBulkReply(lines)).toThrow(/7 lines after its head, 10 announced/);
    expect(() => decodeShardBulkReply([])).toThrow(/no head line/);
  });

  it('is asked for with accept: application/x-ndjson', () => {
    expect([acceptsNdjson('application/x-ndjson'), acceptsNdjson('application/json'), acceptsNdjson(undefined)]).toEqual([true, false, false]);
  });
});

describe('the NDJSON shard bulk reply read line by line into columns (ShardBulkReplyReader)', () => {
  const items: ShardBulkResponse['items'] = [
    { _id: 'ghost-0', status: 404, result: 'not_found', _version: 1, _seq_no: -2, _primary_term: 0 },
    { _id: 'd1', status: 409, error: { type: 'version_conflict_engine_exception', reason: '[d1]: version conflict', index_uuid: 'u', shard: '0' } },
    { _id: 'd2', status: 201, result: 'created', _version: 2 ** 40, _seq_no: 7, _primary_term: 3 },
    { _id: 'd3', status: 200, result: 'updated', _version: 2, _seq_no: 8, _primary_term: 3, source: '{"a":1}' },
    { _id: 'other', status: 200, result: 'noop', _version: 2, _seq_no: 8, _primary_term: 3 },
    { _id: 'd5', status: 500 },
  ];
  const ids = ['ghost-0', 'd1', 'd2', 'd3', 'd4', 'd5'];

  async function read(reply: ShardBulkResponse, opIds: readonly string[]): Promise<ShardBulkReplyReader> {
    const reader = new ShardBulkReplyReader(opIds);
    const bytes = Buffer.from(await encodeShardBulkReply(reply));
    const { values } = await parseNdjsonSliced(Readable.from([bytes.subarray(0, 50), bytes.subarray(50)]), (line) => reader.line(line));
    expect(values).toEqual([]);
    return reader;
  }

  it('gives back every item field for field, and the head as decodeShardBulkReply does', async () => {
    const reply: ShardBulkResponse = { node: 'n', index: 'i', shard: 1, items, forcedRefresh: true, replicas: { acknowledged: [1], failed: [] } };
    const { items: columns, ...rest } = (await read(reply, ids)).reply();
    const { items: expected, ...head } = decodeShardBulkReply(JSON.parse(`[${(await encodeShardBulkReply(reply)).trim().split('\n').join(',')}]`));
    expect(rest).toEqual(head);
    expect(columns.length).toBe(items.length);
    expect(columns.toArray()).toStrictEqual(expected);
    expect(Object.keys(columns.get(5))).toEqual(['_id', 'status']);
  });

  it('refuses a reply cut short or without its head, as decodeShardBulkReply', async () => {
    const reader = new ShardBulkReplyReader(ids);
    const lines = (await encodeShardBulkReply({ node: 'n', index: 'i', shard: 0, items, forcedRefresh: false })).trim().split('\n').slice(0, 4);
    for (const l of lines) reader.line(JSON.parse(l));
    expect(() => reader.reply()).toThrow(/3 lines after its head, 6 announced/);
    expect(() => new ShardBulkReplyReader([]).reply()).toThrow(/no head line/);
  });

  it('WriteResultColumns.of holds a reply read whole', () => {
    expect(WriteResultColumns.of(items).toArray()).toStrictEqual(items);
  });
});
