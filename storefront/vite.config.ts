import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type ConfigEnv, type Plugin, type UserConfig } from 'vite';

const gateway = 'http://127.0.0.1:8080';

// Every build the site serves is a production build, whoever starts it: under vitest (NODE_ENV=test)
// or a shell with NODE_ENV=development, the libraries would otherwise be bundled in their development builds.
if (process.argv.includes('build')) process.env.NODE_ENV = 'production';

/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside every hashed script, style sheet and SVG, at
 * the highest levels: the gateway sends them to browsers that accept them (gateway/src/storefront.ts),
 * smaller than compressing on the fly and with no work per request.
 */
function precompress(): Plugin {
  return {
    name: 'cliffhanger-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const output of Object.values(bundle)) {
        if (!output.fileName.startsWith('assets/') || !/\.(js|css|svg)$/.test(output.fileName)) continue;
        const content = Buffer.from(output.type === 'chunk' ? output.code : output.source);
        const file = join(options.dir!, output.fileName);
        writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }));
        writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
      }
    },
  };
}

/**
 * Starts every script chunk with V8's explicit compile hint, `//# allFunctionsCalledOnLoad` (Chrome
 * 136 and later; to other engines a comment): Chrome then compiles the chunk's functions as the file
 * streams in, on a background thread, instead of one at a time on the main thread the first time each
 * runs. On a phone that lazy compiling was most of the long task in which the app hydrates a server-rendered page
 * over, and of hls.js's first tasks as the player starts (Lighthouse's total blocking time). Not
 * Sentry's chunk, loaded only with a DSN, of which a page runs a small part. Added once the chunks
 * are final (minifying keeps no comment, and Vite adds a line of its own at some chunks' start), as
 * the same line on every build.
 */
export function compileHints(): Plugin {
  return {
    name: 'cliffhanger-compile-hints',
    apply: 'build',
    // The hint is part of what a chunk's file name is the hash of.
    augmentChunkHash: (chunk) => (hinted(chunk) ? COMPILE_HINT : undefined),
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const output of Object.values(bundle)) if (output.type === 'chunk' && hinted(output)) output.code = `${COMPILE_HINT}\n${output.code}`;
      },
    },
  };
}

const COMPILE_HINT = '//# allFunctionsCalledOnLoad';
const hinted = (chunk: { moduleIds: readonly string[] }) => !chunk.moduleIds.some((id) => id.includes('/node_modules/@sentry/'));

/**
 * React Router's production build, in every build of the site. The package's exports send every import
 * to its development build, whatever the conditions (remix-run/react-router#12532, #14102: no
 * `production` condition), with its development warnings and checks on in production; its
 * production build sits beside it, the same API without them. React Router DOM's re-exports import
 * the two paths below, so one copy of the router is bundled either way.
 */
const reactRouter = dirname(createRequire(import.meta.url).resolve('react-router/package.json'));
const reactRouterProduction = [
  { find: /^react-router$/, replacement: join(reactRouter, 'dist/production/index.mjs') },
  { find: /^react-router\/dom$/, replacement: join(reactRouter, 'dist/production/dom-export.mjs') },
];

/** React's "use client" marks, which mean nothing to a bundle without server components, said once per library file. */
function withoutUseClientNotes(warning: { code?: string; message: string }, warn: (warning: never) => void): void {
  if (warning.code === 'MODULE_LEVEL_DIRECTIVE' && warning.message.includes('"use client"')) return;
  warn(warning as never);
}

/**
 * The first load in three files, not eleven: left to itself the bundler cuts what the app (src/main.tsx)
 * imports into a chunk per set of pages sharing it (React in one, the query client in another, the
 * texts' provider in a third...), each its own request and compressed on its own. Grouped:
 * - `boot`: what the page's own script (src/boot.ts) imports, Vite's preloading helper and the
 *   link-secret scrubber, so that the script runs without waiting for the app;
 * - `app`: the libraries and the app's shell: what main.tsx imports (the list below: keep it to main.tsx's
 *   own imports), with their imports (`includeDependenciesRecursively`); main.tsx itself stays a chunk
 *   of its own, so the build's manifest still names it. Pages, what only pages import (api/payment.ts...)
 *   and languages stay chunks of their own, loaded as needed.
 * Measured by storefront/bench/bundle-size.mjs: 110.9 KB gzipped before, 109.9 KB after.
 */
const FIRST_LOAD_CHUNKS = [
  { name: 'boot', test: /vite[\\/]preload-helper|storefront[\\/]src[\\/]lib[\\/]sensitiveUrl\.ts$/ },
  {
    name: 'app',
    test: /storefront[\\/]src[\\/]((App|router)\.tsx$|api[\\/](catalog|catalogQueries|loaderData|user|userQueries)\.ts$|i18n[\\/](I18nProvider|languages)\.tsx?$|lib[\\/](attribution|hydration|monitoring)\.ts$|ssr[\\/]contract\.ts$)|node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|@tanstack[\\/][^\\/]+)[\\/]/,
    includeDependenciesRecursively: true,
  },
];

/**
 * The operators' console (admin.html, src/admin/main.tsx; the gateway serves it at /admin): a build of
 * its own (`vite build --mode console`), after the browser's, into the same dist/ (its files beside the
 * site's, none emptied). Built apart so that not a byte of the viewer's changes: in one build the two
 * pages would share React's chunk, and what the console alone imports from it (its table's store,
 * hooks no page uses) would be more exports of that chunk, and new names in every chunk importing it.
 */
const consoleBuild: UserConfig = {
  base: '/',
  resolve: { alias: reactRouterProduction },
  plugins: [compileHints(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    // dist/.vite/manifest.json stays the viewer's (the bundle benchmark and the gateway's hints read it).
    manifest: false,
    modulePreload: { polyfill: false },
    rolldownOptions: { onwarn: withoutUseClientNotes, input: { admin: join(import.meta.dirname, 'admin.html') } },
  },
};

/**
 * Three builds: the browser's (dist/); with `--mode console` the operators' console (consoleBuild,
 * above); and with `--ssr` the gateway's server renderer
 * (dist-ssr/entry-server.js, src/entry-server.tsx): one self-contained file, React DOM's server and
 * the libraries bundled in, so the gateway needs none of the storefront's dependencies at run time.
 */
const siteBuild = ({ isSsrBuild }: ConfigEnv): UserConfig =>
  isSsrBuild
    ? {
        // The libraries' production builds, bundled in (React Router's by its alias).
        ssr: { noExternal: true, resolve: { conditions: ['module', 'node', 'production'] } },
        resolve: { alias: reactRouterProduction },
        // React DOM's production server, whatever NODE_ENV the gateway runs under.
        define: { 'process.env.NODE_ENV': JSON.stringify('production') },
        publicDir: false,
        build: {
          outDir: 'dist-ssr',
          emptyOutDir: true,
          target: 'node20',
          rolldownOptions: { onwarn: withoutUseClientNotes, output: { codeSplitting: false } },
        },
      }
    : {
        base: '/',
        resolve: { alias: reactRouterProduction },
        // JSX is compiled by Vite itself (tsconfig's "react-jsx", React's automatic runtime).
        plugins: [compileHints(), precompress()],
        build: {
          outDir: 'dist',
          emptyOutDir: true,
          target: 'es2022',
          // dist/.vite/manifest.json: which file holds which source (the bundle benchmark finds the texts of a language in it).
          manifest: true,
          // Every browser the site supports (ES2022) knows <link rel="modulepreload">: no polyfill in the first load.
          modulePreload: { polyfill: false },
          // hls.js's full build (about 570 KB, 180 KB gzipped) is the largest chunk, loaded by the player alone.
          chunkSizeWarningLimit: 600,
          rolldownOptions: { onwarn: withoutUseClientNotes, output: { codeSplitting: { groups: FIRST_LOAD_CHUNKS } } },
        },
        server: {
          host: '127.0.0.1',
          proxy: { '/api': gateway, '/media': gateway, '/sandbox': gateway },
        },
      };

export default defineConfig((env) => (env.mode === 'console' ? consoleBuild : siteBuild(env)));
