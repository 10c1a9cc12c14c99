// `npm start` builds the storefront only when its sources are newer than the last build, so a
// restart is quick and a fresh clone still gets a build.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../storefront');
const built = path.join(root, 'dist', 'index.html');
// The second half of the build (storefront/package.json): the gateway's renderer of first screens.
const renderer = path.join(root, 'dist-ssr', 'entry-server.js');

function newest(entry) {
  const stats = fs.statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...fs.readdirSync(entry).map((name) => newest(path.join(entry, name))));
}

const sources = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json'].map((name) => path.join(root, name)).filter(fs.existsSync);
const stale = !fs.existsSync(built) || !fs.existsSync(renderer) || Math.max(...sources.map(newest)) > fs.statSync(built).mtimeMs;
if (stale) {
  console.log('Building the storefront...');
  execFileSync('npm', ['run', 'build', '--workspace', 'storefront'], { stdio: 'inherit', cwd: path.dirname(root) });
}
