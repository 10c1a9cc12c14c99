import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'unlock',
    include: ['test/**/*.test.ts'],
    // Generous: on a busy 2-core CI machine a test runs several times slower than alone (CI lost tests at 30 s).
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
