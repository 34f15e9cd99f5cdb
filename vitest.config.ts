import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Process tests spawn real children; two cores, so keep files from starving each other.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
