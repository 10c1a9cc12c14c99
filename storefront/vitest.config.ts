import { defineProject } from 'vitest/config';
import { reactOnPreact } from './vite.config';

export default defineProject({
  // Components render through Preact here as in the build the site serves (vite.config.ts).
  resolve: {
    alias: reactOnPreact,
    // The ES module builds of the libraries that import React (React Router's "module-sync" under
    // Node): their CommonJS builds would require React itself, past the alias.
    conditions: ['module-sync', 'module', 'browser', 'development'],
    mainFields: ['module', 'main'],
  },
  test: {
    name: 'storefront',
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'jsdom',
    // Bundled by vitest rather than loaded by Node, so that the alias reaches their imports of React.
    server: { deps: { inline: ['preact', 'preact-render-to-string', '@testing-library/react', 'react-router', 'react-router-dom', '@tanstack/react-query'] } },
  },
});
