// The docs that describe the code, checked against it: a newcomer reads docs/architecture.md's module
// list before the registry, and must find the same modules in the same order.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registry } from '../src/registry.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const architecture = fs.readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

/** The module names of the registry snippet under "## The module registry" (`userModule` is `user`). */
function documentedModules(markdown: string): string[] {
  const section = markdown.split('\n## The module registry\n')[1]?.split('\n## ')[0] ?? '';
  const list = /modules: \[([^\]]*)\]/.exec(section)?.[1];
  if (list === undefined) throw new Error('docs/architecture.md has no registry snippet (modules: [...]) under "## The module registry"');
  return list.split(',').map((entry) => entry.trim().replace(/Module$/, ''));
}

describe('docs/architecture.md', () => {
  it("lists the registry's modules, in its order", () => {
    expect(documentedModules(architecture)).toEqual(registry.modules.map((module) => module.name));
  });

  it('would name a module the docs left out', () => {
    const stale = architecture.replace(/modules: \[[^\]]*\]/, 'modules: [userModule, catalogModule]');
    expect(documentedModules(stale)).not.toEqual(registry.modules.map((module) => module.name));
  });
});

/** The relative links of a Markdown file (`[text](path)`, `![alt](path)`), anchors and addresses left out. */
function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target));
}

describe('the README and docs/', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

  it('keep the README short: what it is, the two commands, the parts, where things live, where to read next', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(170);
  });

  it('link only to files that exist', () => {
    const documents = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];
    const broken = documents.flatMap((document) =>
      relativeLinks(fs.readFileSync(path.join(root, document), 'utf8'))
        .filter((target) => !fs.existsSync(path.join(root, path.dirname(document), decodeURIComponent(target))))
        .map((target) => `${document} → ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('would name a broken link', () => {
    expect(relativeLinks('see [the runbooks](runbooks.md#dead-events), `[not](a-link)`, [the site](https://example.com)')).toEqual(['runbooks.md']);
  });
});
