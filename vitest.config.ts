import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One project per workspace; each keeps its own vitest.config.ts.
export default defineConfig({
  test: {
    projects: ['services/*', 'gateway', 'storefront'],
    // Vitest's default, one worker fewer than the cores, is a single worker on a 2-core machine, and most
    // files spend their time waiting on a child: a started site, ffmpeg, a socket, the database. Two at a
    // time keeps both cores busy there (measured: pass 1 ran one file at a time, a core idle throughout).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
