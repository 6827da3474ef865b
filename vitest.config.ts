import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['coordinator/**/*.test.ts', 'shard-node/**/*.test.ts', 'shared/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
