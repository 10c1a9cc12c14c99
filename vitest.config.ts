import { defineConfig } from 'vitest/config';

// One project per workspace; each keeps its own vitest.config.ts.
export default defineConfig({
  test: {
    projects: ['services/*', 'gateway', 'storefront'],
  },
});
