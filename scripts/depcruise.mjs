// dependency-cruiser reads TypeScript through the TypeScript 5 compiler API; the project compiles with
// TypeScript 7, whose package has no such API. This runs dependency-cruiser's CLI with its
// `typescript` resolved to the typescript-5 package (an npm alias of typescript@5), for both the
// require() it checks the version with and the import() it loads the compiler with.
import Module, { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const cruiser = `${path.join(root, 'node_modules/dependency-cruiser')}${path.sep}`;
const fromCruiser = (parent) => Boolean(parent && parent.startsWith(cruiser));
const renamed = (specifier) => specifier.replace(/^typescript(?=\/|$)/, 'typescript-5');

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  const redirected = fromCruiser(parent?.filename) ? renamed(request) : request;
  return resolveFilename.call(this, redirected, parent, ...rest);
};

const hooks = `
  export async function resolve(specifier, context, next) {
    const parent = context.parentURL ? new URL(context.parentURL).pathname : '';
    const redirected = parent.startsWith(${JSON.stringify(cruiser)}) ? specifier.replace(/^typescript(?=\\/|$)/, 'typescript-5') : specifier;
    return next(redirected, context);
  }`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, pathToFileURL(`${root}/`));

process.argv.splice(1, 1, path.join(cruiser, 'bin/dependency-cruise.mjs'));
await import(pathToFileURL(process.argv[1]).href);
