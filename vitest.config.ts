import { defineConfig } from 'vitest/config';

// Two projects: fast unit and property tests beside the code, and end-to-end tests that share one
// real cluster (the docker-compose.yml services as local processes) started by a global setup.
export default defineConfig({
  test: {
    pool: 'forks',
    projects: [
      {
        test: {
          name: 'unit',
          // Groups run one after another (unit, then e2e, then faults): the e2e project's timed cases
          // (/livez bounds in the abuse suite) and the fault suite each get the machine to themselves.
          sequence: { groupOrder: 0 },
          include: [
            'protocol/**/*.test.ts',
            'coordinator/**/*.test.ts',
            'shard-node/**/*.test.ts',
            'shared/**/*.test.ts',
            'state-store/**/*.test.ts',
            'scripts/**/*.test.ts',
            'test/*.test.ts',
            'test/deploy/**/*.test.ts',
            'cli/**/*.test.ts',
            'bench/**/*.test.ts',
          ],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          sequence: { groupOrder: 1 },
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 240_000,
          hookTimeout: 300_000,
          // One cluster, several files: run the files one after another so timings stay sane.
          fileParallelism: false,
        },
      },
      {
        // The fault suite (issue 10): a cluster of its own (3 etcd members, shard nodes, 2
        // coordinators behind fault proxies) per file, never the e2e project's shared cluster. It runs
        // after the other projects (groupOrder 2), so its 8 processes and faults do not load the
        // e2e cluster's timed tests.
        test: {
          name: 'faults',
          sequence: { groupOrder: 2 },
          include: ['test/faults/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
