import { defineProject } from 'vitest/config';

// Drives Debian's Chromium against the real gateway (`tsx gateway/src/main.ts`), which the suite
// starts itself; the demo catalog may need minutes to transcode on a first start.
export default defineProject({
  test: {
    name: 'storefront-e2e',
    root: import.meta.dirname,
    include: ['e2e/**/*.e2e.test.ts'],
    environment: 'node',
    testTimeout: 240_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
