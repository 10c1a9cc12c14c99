import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'storefront',
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'jsdom',
    setupFiles: ['src/testSetup.ts'],
    // Vitest's 5 s is for a quiet machine: a page test that renders, types and waits takes 2 s alone
    // and several times that beside another suite on two busy cores.
    testTimeout: 60_000,
    // Bundled by vitest rather than loaded by Node once per run, so that vi.resetModules gives each
    // render its own React contexts of these libraries: a test that renders a page on the server
    // and then hydrates it in the same process would otherwise share one context object between
    // React DOM's server and client renderers.
    server: { deps: { inline: [/\/node_modules\/react-router/, /\/node_modules\/@tanstack\/react-query/] } },
  },
});
