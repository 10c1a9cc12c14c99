import { defineProject } from 'vitest/config';

// The image built by the repository's Dockerfile and run in Docker (image/image.test.ts): apart from
// the gateway project so that npm test runs it once, not in both of its passes.
export default defineProject({
  test: {
    name: 'image',
    root: import.meta.dirname,
    include: ['image/**/*.test.ts'],
    testTimeout: 6 * 60_000,
    hookTimeout: 15 * 60_000,
    fileParallelism: false,
  },
});
