import { describe, expect, it } from 'vitest';
import { compileHints } from '../vite.config';

type Hook = { handler: (options: unknown, bundle: Record<string, unknown>) => void };

describe('the build\'s compile hints', () => {
  it('start every script chunk but Sentry\'s, on the first line, and count in its hash', () => {
    const plugin = compileHints();
    const app = { type: 'chunk', moduleIds: ['/work/storefront/src/main.tsx'], code: 'const __vite__mapDeps=1;export{}' };
    const sentry = { type: 'chunk', moduleIds: ['/work/node_modules/@sentry/browser/build/npm/esm/prod/index.js'], code: 'export{}' };
    const style = { type: 'asset', source: 'body{}' };
    (plugin.generateBundle as unknown as Hook).handler({}, { 'main.js': app, 'prod.js': sentry, 'index.css': style });
    expect(app.code).toBe('//# allFunctionsCalledOnLoad\nconst __vite__mapDeps=1;export{}');
    expect(sentry.code).toBe('export{}');
    expect(style.source).toBe('body{}');
    const hash = plugin.augmentChunkHash as (chunk: { moduleIds: string[] }) => string | undefined;
    expect(hash(app)).toBe('//# allFunctionsCalledOnLoad');
    expect(hash(sentry)).toBeUndefined();
  });
});
