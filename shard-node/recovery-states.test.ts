import { describe, expect, it } from 'vitest';
import { RecoveryStates } from './recovery-states.ts';

describe('RecoveryStates', () => {
  it('a peer recovery through its stages: files and bytes received, reused, translog ops, times', () => {
    let t = 1_000;
    const states = new RecoveryStates(() => t);
    states.start('i', 'u1', 0, 'r1', 'peer', 2, [
      { name: 'a', length: 100, checksum: 'x', reused: true },
      { name: 'b', length: 50, checksum: 'y', reused: false },
    ]);
    t += 10;
    states.fileBytes('i', 0, 'b', 30, false);
    states.fileBytes('i', 0, 'b', 20, true);
    t += 5;
    states.stage('i', 0, 'verify_index');
    t += 2;
    states.ensurePeer('i', 'u1', 0, 'r1', 2); // same recovery: kept
    states.translogOps('i', 0, 4, 6);
    t += 3;
    states.stage('i', 0, 'done');
    const r = states.report('i', 'u1', 0, false, true, 0);
    expect(r).toMatchObject({
      type: 'peer',
      stage: 'done',
      source: 2,
      startTime: 1_000,
      stopTime: 1_020,
      files: { total: 2, reused: 1, recovered: 1 },
      bytes: { total: 150, reused: 100, recovered: 50 },
      indexTimeMs: 15,
      verifyTimeMs: 2,
      translogTimeMs: 3,
      translog: { recovered: 4, total: 6 },
    });
    expect(r.details).toEqual([
      { name: 'a', length: 100, recovered: 0, reused: true },
      { name: 'b', length: 50, recovered: 50, reused: false },
    ]);
  });

  it('without a record (or of another index uuid): a store recovery, done', () => {
    const states = new RecoveryStates(() => 5_000);
    states.start('i', 'old', 0, 'r1', 'peer', 1);
    expect(states.report('i', 'new', 0, true, true, 7_000)).toMatchObject({ type: 'existing_store', stage: 'done', primary: true, startTime: 7_000 });
    expect(states.report('j', 'u', 0, true, false, 0)).toMatchObject({ type: 'empty_store', startTime: 5_000 });
  });

  it('an ops-based recovery starts at the translog stage when its first chunk arrives; its total is what was replayed once finalized', () => {
    const states = new RecoveryStates(() => 1);
    states.ensurePeer('i', 'u', 0, 'r2', 0);
    states.translogOps('i', 0, 10, 14);
    expect(states.report('i', 'u', 0, false, true, 0)).toMatchObject({ type: 'peer', stage: 'translog', translog: { recovered: 10, total: 14 } });
    states.stage('i', 0, 'finalize'); // the last chunk: 4 of the seq_nos estimated were superseded
    expect(states.report('i', 'u', 0, false, true, 0).translog).toEqual({ recovered: 10, total: 10 });
  });
});
