// initial-js: the JavaScript a browser must fetch before "/" can render — the entry script and every
// modulepreload of the built index.html — gzipped. Run after `npm run build -w @cliffhanger/storefront`.
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUDGET_KB = 150;
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const indexPath = join(dist, 'index.html');

if (!existsSync(indexPath)) {
  console.error(`initial-js: no build at ${indexPath}; run "npm run build -w @cliffhanger/storefront" first`);
  process.exit(2);
}

const html = readFileSync(indexPath, 'utf8');
const scripts = [...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)].map((match) => match[1]);
const preloads = [...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((match) => match[1]);
const files = [...new Set([...scripts, ...preloads])];

if (scripts.length === 0) {
  console.error('initial-js: the built index.html has no module script');
  process.exit(2);
}

let gzipped = 0;
for (const file of files) {
  gzipped += gzipSync(readFileSync(join(dist, file.replace(/^\//, ''))), { level: 9 }).length;
}
const kb = gzipped / 1024;
console.log(`initial-js: ${kb.toFixed(1)} KB gzipped in ${files.length} files (goal <= ${BUDGET_KB} KB)`);
process.exit(kb <= BUDGET_KB ? 0 : 1);
