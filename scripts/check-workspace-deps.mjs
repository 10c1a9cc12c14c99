// Every @cliffhanger/* package a workspace imports is declared in that workspace's package.json
// (dependencies for src/, dependencies or devDependencies for tests): part of `npm run lint`.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const { workspaces } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const importOf = /(?:from|import)\s*\(?\s*'(@cliffhanger\/[a-z-]+)/g;
const problems = [];

function* sources(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'gen') continue;
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(file);
    else if (/\.(ts|tsx|mts|mjs)$/.test(entry.name)) yield file;
  }
}

for (const workspace of workspaces) {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, workspace, 'package.json'), 'utf8'));
  const runtime = new Set(Object.keys(manifest.dependencies ?? {}));
  const any = new Set([...runtime, ...Object.keys(manifest.devDependencies ?? {})]);
  for (const file of sources(path.join(root, workspace))) {
    const relative = path.relative(path.join(root, workspace), file);
    const isTest = /(^|\/)(test|e2e|bench)\//.test(relative) || /\.(test|e2e\.test)\.tsx?$/.test(relative) || /vitest/.test(relative);
    for (const [, name] of fs.readFileSync(file, 'utf8').matchAll(importOf)) {
      if (name === manifest.name) continue;
      if (!(isTest ? any : runtime).has(name))
        problems.push(`${workspace}/${relative} imports ${name}, which ${workspace}/package.json does not declare${isTest ? '' : ' in dependencies'}`);
    }
  }
}
for (const problem of new Set(problems)) console.error(problem);
process.exit(problems.length ? 1 : 0);
