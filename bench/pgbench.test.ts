import { describe, expect, it } from 'vitest';
import { parseSummary, parseTransactionLog } from './pgbench.ts';

describe('pgbench output', () => {
  it('reads latencies (µs) from a per-transaction log and counts failed transactions', () => {
    const log = '0 199 2241 0 1175850568 995598\n0 200 2465 0 1175850568 998079\n1 12 failed 0 1175850569 208\n\n';
    expect(parseTransactionLog(log)).toEqual({ latenciesUs: [2241, 2465], failed: 1 });
  });

  it('reads the summary', () => {
    const out = [
      'transaction type: task.sql',
      'query mode: prepared',
      'number of clients: 2',
      'number of transactions actually processed: 41337',
      'number of failed transactions: 0 (0.000%)',
      'latency average = 0.048 ms',
      'initial connection time = 3.123 ms',
      'tps = 41485.268349 (without initial connection time)',
    ].join('\n');
    expect(parseSummary(out)).toEqual({ processed: 41337, failed: 0, tps: 41485.268349 });
  });
});
