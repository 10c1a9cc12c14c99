import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'transcoder',
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every file runs real ffmpeg, which already fills both cores; files side by side only
    // trip each other's timeouts.
    fileParallelism: false,
  },
});
