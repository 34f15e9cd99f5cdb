import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'tests',
          include: ['test/**/*.test.ts'],
          exclude: ['test/selftest/**'],
          // Process tests spawn real children; two cores, so keep files from starving each other.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'selftest',
          include: ['test/selftest/**/*.test.ts'],
          // The self-test's drills judge real processes racing for leases, whose timing is part of what they
          // test: two drills at once on two cores starve each other's workers past their leases, and a sound
          // queue gets flagged for the machine's load. So one drill at a time: one file at a time (no
          // `describe.concurrent` in them either), each command told `--parallel 1`, and only after every
          // other test file is done (a later group).
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
