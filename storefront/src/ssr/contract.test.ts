import { describe, expect, it } from 'vitest';
import { routes } from '../router';
import { firstRenderSources, languageOf, pageSource, SERVER_RENDERED_PAGES } from './contract';

describe('what the gateway and the server renderer agree on', () => {
  it('reads the visitor\'s languages by their q-values, English when none is spoken here', () => {
    expect(languageOf(undefined)).toBe('en');
    expect(languageOf('ja, nl;q=0.5')).toBe('en');
    expect(languageOf('en;q=0.1, de-AT;q=0.9')).toBe('dy');
    expect(languageOf('fr-CA')).toBe('fy');
    expect(languageOf('pt;q=0, es;q=0.2')).toBe('es');
    expect(languageOf('q=;;,,;q=abc')).toBe('en');
    expect(languageOf('x'.repeat(10_000))).toBe('en');
  });

  it('names the sources a landing needs first: the app, the visitor\'s language, a landing page\'s module', () => {
    expect(firstRenderSources('/', 'de')).toEqual(['src/main.tsx', 'src/i18n/dy.ts', 'src/features/home/HomePage.tsx']);
    expect(firstRenderSources('/videos/the-heir', 'fr-CA, en;q=0.5')).toEqual(['src/main.tsx', 'src/i18n/fy.ts', 'src/features/video/VideoPage.tsx']);
    expect(firstRenderSources('/videos/a/b', undefined)).toEqual(['src/main.tsx', 'src/i18n/en.ts']);
    expect(firstRenderSources('/search', 'es')).toEqual(['src/main.tsx', 'src/i18n/es.ts']);
  });

  it('names page modules the router loads, and files that exist', async () => {
    for (const { module } of Object.values(SERVER_RENDERED_PAGES)) {
      const name = module.slice(module.indexOf('/') + 1);
      const loaded = (await import(/* @vite-ignore */ `../${pageSource(module).slice('src/'.length)}`)) as Record<string, unknown>;
      expect(typeof loaded[name]).toBe('function');
    }
    const paths = routes.flatMap((route) => route.children.map((page) => page.path));
    for (const path of ['/', '/videos/heir']) expect(Object.values(SERVER_RENDERED_PAGES).some((page) => page.path.test(path))).toBe(true);
    expect(paths).toEqual(expect.arrayContaining(['/', '/videos/:id']));
  });
});
