import { describe, expect, it } from 'vitest';
import type { ShardRecoveryState } from '../../protocol/recovery-report.ts';
import { renderCatTable } from '../http/cat-table.ts';
import type { NodeInfo } from './node-probe.ts';
import { catRecoveryTable, formatTime, indexPercent, recoveryJson, translogPercent, type CopyRecovery } from './recovery-responses.ts';

const nodes: NodeInfo[] = [
  { node: 0, url: 'http://10.0.0.1:9300', host: '10.0.0.1', name: 'shard-0', reachable: true },
  { node: 1, url: 'http://10.0.0.2:9300', host: '10.0.0.2', name: 'shard-1', reachable: true },
];

const peer: ShardRecoveryState = {
  type: 'peer',
  stage: 'done',
  primary: false,
  startTime: 1_000,
  stopTime: 3_500,
  source: 0,
  files: { total: 5, reused: 2, recovered: 3 },
  bytes: { total: 1000, reused: 400, recovered: 600 },
  details: [{ name: '_0.fseg', length: 400, recovered: 0, reused: true }],
  indexTimeMs: 2000,
  throttleTimeMs: 10,
  translog: { recovered: 7, total: 7 },
  translogTimeMs: 300,
  verifyTimeMs: 100,
};

describe('percentages (ES RecoveryState)', () => {
  it('files and bytes: recovered of the non-reused; 0 while no file is known; translog -1 when unknown, 100 when empty', () => {
    expect(indexPercent(5, 2, 3, true)).toBe(100);
    expect(indexPercent(4, 0, 1, true)).toBe(25);
    expect(indexPercent(0, 0, 0, false)).toBe(0);
    expect(indexPercent(0, 0, 0, true)).toBe(100);
    expect(translogPercent(0, -1)).toBe(-1);
    expect(translogPercent(0, 0)).toBe(100);
    expect(translogPercent(5, 10)).toBe(50);
  });
});

describe('recoveryJson', () => {
  it("ES's shape: upper-case type and stage, index size and files, translog, source and target nodes", () => {
    const c: CopyRecovery = { index: 'i', shard: 0, node: 1, state: peer };
    const j = recoveryJson(c, nodes, true);
    expect(j).toMatchObject({
      id: 0,
      type: 'PEER',
      stage: 'DONE',
      primary: false,
      total_time_in_millis: 2500,
      source: { name: 'shard-0', host: '10.0.0.1' },
      target: { name: 'shard-1', host: '10.0.0.2' },
      index: {
        size: { total_in_bytes: 1000, reused_in_bytes: 400, recovered_in_bytes: 600, percent: '100.0%' },
        files: {
          total: 5,
          reused: 2,
          recovered: 3,
          percent: '100.0%',
          details: [{ name: '_0.fseg', length_in_bytes: 400, reused: true, recovered_in_bytes: 0 }],
        },
        source_throttle_time_in_millis: 10,
      },
      translog: { recovered: 7, total: 7, percent: '100.0%', total_on_start: 7 },
    });
    expect(recoveryJson(c, nodes, false).index).not.toHaveProperty('files.details');
  });
});

describe('catRecoveryTable', () => {
  it('default columns in ES order; files and bytes are those to recover, totals apart', () => {
    const store: ShardRecoveryState = {
      ...peer,
      type: 'empty_store',
      source: undefined,
      files: { total: 0, reused: 0, recovered: 0 },
      bytes: { total: 0, reused: 0, recovered: 0 },
      translog: { recovered: 0, total: 0 },
    };
    const table = catRecoveryTable(
      [
        { index: 'i', shard: 0, node: 0, state: store },
        { index: 'i', shard: 0, node: 1, state: peer },
      ],
      nodes,
    );
    const out = renderCatTable(table, { format: 'json', bytes: 'b' });
    if (out.kind !== 'json') throw new Error('json expected');
    expect(Object.keys(out.rows[0])).toEqual([
      'index',
      'shard',
      'time',
      'type',
      'stage',
      'source_host',
      'source_node',
      'target_host',
      'target_node',
      'repository',
      'snapshot',
      'files',
      'files_recovered',
      'files_percent',
      'files_total',
      'bytes',
      'bytes_recovered',
      'bytes_percent',
      'bytes_total',
      'translog_ops',
      'translog_ops_recovered',
      'translog_ops_percent',
    ]);
    expect(out.rows[0]).toMatchObject({
      type: 'empty_store',
      source_host: 'n/a',
      target_node: 'shard-0',
      files_percent: '0.0%',
      translog_ops_percent: '100.0%',
    });
    expect(out.rows[1]).toMatchObject({
      time: '2.5s',
      type: 'peer',
      stage: 'done',
      source_node: 'shard-0',
      target_node: 'shard-1',
      files: '3',
      files_recovered: '3',
      files_total: '5',
      bytes: '600',
      bytes_total: '1000',
    });
  });

  it('formats times as ES TimeValue', () => {
    expect(formatTime(13)).toBe('13ms');
    expect(formatTime(2500)).toBe('2.5s');
    expect(formatTime(90_000)).toBe('1.5m');
  });
});
