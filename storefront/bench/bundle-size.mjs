// initial-js: the JavaScript a browser must fetch before "/" can render — the entry script, every
// modulepreload of the built index.html, the app the entry imports (src/main.tsx, with its imports),
// and the texts of one language (English; each language is
// a chunk of its own, loaded before the first render) — gzipped. The home page's own chunk, which
// loads alongside, is not counted. Run after `npm run build -w @cliffhanger/storefront`.
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUDGET_KB = 110;
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const indexPath = join(dist, 'index.html');
const manifestPath = join(dist, '.vite', 'manifest.json');

if (!existsSync(indexPath) || !existsSync(manifestPath)) {
  console.error(`initial-js: no build at ${dist}; run "npm run build -w @cliffhanger/storefront" first`);
  process.exit(2);
}

const html = readFileSync(indexPath, 'utf8');
const scripts = [...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)].map((match) => match[1]);
const preloads = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((match) => match[1]);
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const texts = manifest['src/i18n/en.ts'];
/** A chunk and the chunks it imports, as the browser fetches them. */
const withImports = (entry) => [`/${entry.file}`, ...(entry.imports ?? []).flatMap((key) => withImports(manifest[key]))];

if (scripts.length === 0) {
  console.error('initial-js: the built index.html has no module script');
  process.exit(2);
}
if (!texts) {
  console.error('initial-js: the build has no chunk of English texts (src/i18n/en.ts)');
  process.exit(2);
}

// The app itself: what the page's script (src/boot.ts) imports first.
const app = manifest['src/main.tsx'];
if (!app) {
  console.error('initial-js: the build has no chunk of the app (src/main.tsx)');
  process.exit(2);
}
const files = [...new Set([...scripts, ...preloads, ...withImports(app), ...withImports(texts)])];
let gzipped = 0;
for (const file of files) {
  gzipped += gzipSync(readFileSync(join(dist, file.replace(/^\//, ''))), { level: 9 }).length;
}
const kb = gzipped / 1024;
console.log(`initial-js: ${kb.toFixed(1)} KB gzipped in ${files.length} files (goal <= ${BUDGET_KB} KB)`);
process.exit(kb <= BUDGET_KB ? 0 : 1);
