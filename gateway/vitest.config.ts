import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'gateway',
    include: ['test/**/*.test.ts'],
    // The instrumentations, registered first in every worker as src/main.ts does (tracing*.test.ts read their spans).
    setupFiles: ['./test/instrument.setup.ts'],
    // Generous: on a busy 2-core CI machine a test runs several times slower than alone (CI lost tests at 30 s).
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
