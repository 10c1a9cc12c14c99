import { once } from 'node:events';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { ClientOf } from '@cliffhanger/platform';
import { startSite, tempDir, type Site } from '@cliffhanger/platform/testing';
import type { CatalogPages, LocalCatalogClient } from '@cliffhanger/catalog';
import { registry } from '../src/registry.ts';
import { storefrontHandler } from '../src/storefront/index.ts';

// A build as storefront/vite.config.ts writes it: index.html with the head tags the server replaces on
// series pages, the manifest, and hashed files with their brotli and gzip copies.
const dist = tempDir('storefront-pages-');
fs.mkdirSync(path.join(dist, 'assets'));
fs.mkdirSync(path.join(dist, '.vite'));
const chunks = {
  'index.html': { file: 'assets/app-1.js', isEntry: true, dynamicImports: ['src/main.tsx'] },
  'src/main.tsx': { file: 'assets/main-8.js', imports: ['_client-9.js'] },
  '_client-9.js': { file: 'assets/client-9.js' },
  'src/features/home/HomePage.tsx': { file: 'assets/HomePage-2.js', imports: ['_VideoTile-3.js'], css: ['assets/HomePage-4.css'] },
  '_VideoTile-3.js': { file: 'assets/VideoTile-3.js', imports: ['index.html'] },
  'src/features/video/VideoPage.tsx': { file: 'assets/VideoPage-5.js' },
  'src/i18n/en.ts': { file: 'assets/en-6.js' },
  'src/i18n/es.ts': { file: 'assets/es-7.js' },
};
fs.writeFileSync(path.join(dist, '.vite', 'manifest.json'), JSON.stringify(chunks));
const script = 'console.log("a hashed script");'.repeat(50);
fs.writeFileSync(path.join(dist, 'assets', 'app-1.js'), script);
fs.writeFileSync(path.join(dist, 'assets', 'app-1.js.br'), brotliCompressSync(script));
fs.writeFileSync(path.join(dist, 'assets', 'app-1.js.gz'), gzipSync(script));
fs.writeFileSync(
  path.join(dist, 'index.html'),
  [
    '<!doctype html><html lang="en"><head>',
    '<meta name="description" content="Short dramas." />',
    '<meta property="og:title" content="Cliffhanger" />',
    '<meta name="twitter:card" content="summary" />',
    '<title>Cliffhanger</title>',
    '<script type="module" crossorigin src="/assets/app-1.js"></script>',
    '</head><body><div id="app"></div></body></html>',
  ].join('\n'),
);

const HOSTILE = `</title><script>alert("t")</script><meta property="og:title" content='x'>&amp;`;

let site: Site;
// The same pages with PUBLIC_URL set, on the same catalog.
let onSite: { url: string; close(): void };
const ids: Record<string, string> = {};
const PUBLIC_URL = 'https://shorts.example.com/ignored/path';

async function seed() {
  const { admin } = site.instances.get('catalog')!.client as LocalCatalogClient;
  const cover = path.join(tempDir('seo-cover-'), 'cover.jpg');
  fs.writeFileSync(cover, 'a cover');
  const series = async (id: string, title: string, description: string, episodes: number) => {
    const { video } = await admin.createSeries({ id, title, description });
    if (episodes) await admin.planEpisodes(video.id, episodes);
    await admin.setCover(video.id, cover);
    ids[id] = video.id;
  };
  await series('heir', 'The Heir Returns', 'A heir comes home.', 2);
  await series(`it's-<b>&co`, HOSTILE, `"Quoted" <i>description</i> & more`, 1);
  await series('empty-shell', 'Nothing Yet', 'No episode yet.', 0);
  await admin.putSection('featured', { title: 'Featured Videos', kind: 'carousel', videoIds: [ids.heir!, ids[`it's-<b>&co`]!], position: 0 });
}

beforeAll(async () => {
  site = await startSite({
    modules: registry.modules.filter((module) => ['user', 'catalog', 'unlock', 'transcoder'].includes(module.name)),
    env: { DEMO: '0' },
    background: false,
    pages: (clientOf: ClientOf) => storefrontHandler(dist, { catalog: clientOf<CatalogPages>('catalog') }),
  });
  await seed();
  const catalog = site.instances.get('catalog')!.client as CatalogPages;
  const server = express().use(storefrontHandler(dist, { publicUrl: PUBLIC_URL, catalog })).listen(0, '127.0.0.1');
  await once(server, 'listening');
  onSite = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
  // A site's first start migrates every module's schema: on two busy cores that alone may take a minute.
}, 180_000);
afterAll(async () => {
  onSite?.close();
  await site?.close();
});

const html = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers: { accept: 'text/html', ...headers } });

describe('robots.txt', () => {
  it('allows the site, keeps crawlers out of the API and account pages, and names the sitemap of the host asked', async () => {
    const response = await fetch(`${site.url}/robots.txt`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const lines = (await response.text()).split('\n');
    expect(lines).toContain('User-agent: *');
    expect(lines).toContain('Allow: /');
    for (const path of ['/api/', '/my', '/individual', '/favorites', '/historys', '/unlocked', '/login', '/retrievePassword', '/verifyEmail', '/order/']) expect(lines).toContain(`Disallow: ${path}`);
    expect(lines).toContain(`Sitemap: ${site.url}/sitemap.xml`);
  });

  it('points at PUBLIC_URL when it is set, and never at a Host header that is not a plain host name', async () => {
    expect(await (await fetch(`${onSite.url}/robots.txt`)).text()).toContain('Sitemap: https://shorts.example.com/sitemap.xml');
    const { port } = new URL(site.url);
    const answer = await new Promise<string>((resolve, reject) => {
      // fetch will not send a made-up Host; a raw request does.
      import('node:http').then(({ request }) => {
        const req = request({ host: '127.0.0.1', port, path: '/robots.txt', headers: { host: 'evil.example"><script>' } }, (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end();
      });
    });
    expect(answer).toContain('Sitemap: http://localhost/sitemap.xml');
    expect(answer).not.toContain('evil');
  });
});

describe('sitemap.xml', () => {
  it('lists the home page and every listed series, escaped, as well-formed XML', async () => {
    const response = await fetch(`${site.url}/sitemap.xml`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/xml/);
    const xml = await response.text();
    // Well-formed for its grammar: one urlset of url/loc, and no bare & or < inside a loc.
    expect(xml).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">\n(?: {2}<url><loc>(?:[^<>&"']|&(?:amp|lt|gt|quot|#39);)+<\/loc><\/url>\n)+<\/urlset>\n$/,
    );
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!.replace(/&#39;/g, "'").replace(/&amp;/g, '&'));
    expect(locs[0]).toBe(`${site.url}/`);
    expect(locs.slice(1).sort()).toEqual([ids.heir, ids[`it's-<b>&co`]].map((id) => `${site.url}/videos/${encodeURIComponent(id!)}`).sort());
    expect(xml).toContain('it&#39;s-%3Cb%3E%26co');
    expect(xml).not.toContain('empty-shell');
  });
});

describe('a series page as a crawler or a link preview sees it', () => {
  it('carries the series title, description and cover in its head', async () => {
    const response = await html(`${onSite.url}/videos/heir`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const page = await response.text();
    expect(page).toContain('id="app"');
    expect(page).toContain('<title>The Heir Returns · Cliffhanger</title>');
    expect(page).toContain('<meta name="description" content="A heir comes home." />');
    expect(page).toContain('<meta property="og:title" content="The Heir Returns · Cliffhanger" />');
    expect(page).toContain('<meta property="og:type" content="video.tv_show" />');
    expect(page).toContain('<meta property="og:url" content="https://shorts.example.com/videos/heir" />');
    expect(page).toContain('<link rel="canonical" href="https://shorts.example.com/videos/heir" />');
    expect(page).toMatch(/<meta property="og:image" content="https:\/\/shorts\.example\.com\/media\/public\/covers\/heir-[0-9a-f]+\.jpg" \/>/);
    expect(page).toContain('<meta name="twitter:card" content="summary_large_image" />');
    // The defaults it replaces are gone: one title, one description, one og:title.
    expect(page.match(/<title>/g)).toHaveLength(1);
    expect(page.match(/name="description"/g)).toHaveLength(1);
    expect(page.match(/property="og:title"/g)).toHaveLength(1);
    expect(page).not.toContain('Short dramas.');
  });

  it('escapes a hostile title and description', async () => {
    const served = await (await html(`${site.url}/videos/${encodeURIComponent(ids[`it's-<b>&co`]!)}`)).text();
    // The page's data holds the title as JSON text, with no "<" that could end its block.
    const data = /<script type="application\/json" id="loader-data">([^<]*)<\/script>/.exec(served)!;
    expect(JSON.parse(data[1]!).video.title).toBe(HOSTILE);
    const page = served.replace(data[0], '');
    expect(page).not.toContain('<script>');
    expect(page).not.toContain(`content='x'`);
    expect(page).toContain('<title>&lt;/title&gt;&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;&lt;meta property=&quot;og:title&quot; content=&#39;x&#39;&gt;&amp;amp; · Cliffhanger</title>');
    expect(page).toContain('<meta name="description" content="&quot;Quoted&quot; &lt;i&gt;description&lt;/i&gt; &amp; more" />');
    expect(page.match(/<title>/g)).toHaveLength(1);
    expect(page.match(/property="og:title"/g)).toHaveLength(1);
  });

  it('answers an unknown series with the app, a 404 and noindex', async () => {
    const response = await html(`${site.url}/videos/no-such-series`);
    expect(response.status).toBe(404);
    const page = await response.text();
    expect(page).toContain('id="app"');
    expect(page).toContain('<meta name="robots" content="noindex" />');
  });
});

describe('the app shell for every other page', () => {
  it('is served for deep links with its default head, uncached', async () => {
    for (const route of ['/', '/search', '/videos', '/no/such/page', '/more/picks']) {
      const response = await html(site.url + route);
      expect(response.status, route).toBe(200);
      expect(response.headers.get('cache-control'), route).toBe('no-cache');
      const page = await response.text();
      expect(page, route).toContain('<title>Cliffhanger</title>');
      expect(page, route).toContain('id="app"');
    }
  });

  it('never answers an /api path with the app shell', async () => {
    const response = await html(`${site.url}/api/unknown`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 404 });
  });
});

describe('the first load', () => {
  it("sends the home page with its data, its first picture, its chunks and the visitor's language", async () => {
    const page = await (await html(`${site.url}/`, { 'accept-language': 'es-ES,es;q=0.9,en;q=0.8' })).text();
    expect(page).toMatch(/<link rel="preload" as="image" fetchpriority="high" href="\/media\/public\/covers\/heir-[0-9a-f]+\.jpg" \/>/);
    expect(page).toContain('<link rel="modulepreload" crossorigin href="/assets/HomePage-2.js" />');
    expect(page).toContain('<link rel="modulepreload" crossorigin href="/assets/VideoTile-3.js" />');
    expect(page).toContain('<link rel="preload" as="style" crossorigin href="/assets/HomePage-4.css" />');
    expect(page).toContain('<link rel="modulepreload" crossorigin href="/assets/es-7.js" />');
    // The app the page's script imports, with its own imports.
    expect(page).toContain('<link rel="modulepreload" crossorigin href="/assets/main-8.js" />');
    expect(page).toContain('<link rel="modulepreload" crossorigin href="/assets/client-9.js" />');
    // What the page loads already, and what it does not need, gets no hint.
    expect(page).not.toContain('modulepreload" crossorigin href="/assets/app-1.js"');
    expect(page).not.toContain('en-6.js');
    expect(page).not.toContain('VideoPage-5.js');

    const data = /<script type="application\/json" id="loader-data">([^<]*)<\/script>/.exec(page)?.[1];
    const { homepage, rankings } = JSON.parse(data!);
    expect(homepage.carousel.items.map((item: { title: string }) => item.title)).toEqual(['The Heir Returns', HOSTILE]);
    // The rows every viewer shares, as the home page asks for them; never one viewer's "continue".
    expect(Object.keys(rankings).sort()).toEqual(['new', 'top', 'trending']);
    expect(rankings.new).toMatchObject({ page: 1, size: 12, hasMore: false });
    expect(rankings.new.items.map((item: { id: string }) => item.id).sort()).toEqual([ids.heir, ids[`it's-<b>&co`]].sort());
    expect(page).not.toContain('<script>alert');
    // Without a renderer the page goes out for the browser to render, the app's splash in #app.
    expect(page).toContain('<div id="app"></div>');
  });

  it('speaks English to a browser that asks for no language the site has', async () => {
    const page = await (await html(`${site.url}/`, { 'accept-language': 'ja, nl;q=0.5' })).text();
    expect(page).toContain('<link rel="modulepreload" crossorigin href="/assets/en-6.js" />');
    expect(page).not.toContain('es-7.js');
  });

  it("hints a series page's chunk and cover", async () => {
    const page = await (await html(`${site.url}/videos/heir`)).text();
    expect(page).toContain('<link rel="modulepreload" crossorigin href="/assets/VideoPage-5.js" />');
    expect(page).toMatch(/<link rel="preload" as="image" fetchpriority="high" href="\/media\/public\/covers\/heir-[0-9a-f]+\.jpg" \/>/);
    // The series as a visitor who has unlocked nothing sees it: nobody's favorite, nobody's place.
    const data = /<script type="application\/json" id="loader-data">([^<]*)<\/script>/.exec(page)?.[1];
    const { video, homepage } = JSON.parse(data!);
    expect(homepage).toBeUndefined();
    expect(video).toMatchObject({ id: 'heir', title: 'The Heir Returns', favorited: false, resume: null });
    expect(video.episodes.map((episode: { number: number }) => episode.number)).toEqual([1, 2]);
  });

  it("serves a hashed file's brotli copy, or its gzip copy, cached for a year", async () => {
    const get = (encoding: string) => fetch(`${site.url}/assets/app-1.js`, { headers: { 'accept-encoding': encoding } });
    const { request } = await import('node:http');
    // fetch decodes what it receives: the raw bytes show which copy was sent.
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const { port } = new URL(site.url);
        request({ host: '127.0.0.1', port, path: '/assets/app-1.js', headers: { 'accept-encoding': encoding } }, (res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => parts.push(part));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
        })
          .on('error', reject)
          .end();
      });

    const brotli = await raw('gzip, deflate, br, zstd');
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotli.headers['content-type']).toMatch(/javascript/);
    expect(brotli.headers.vary).toMatch(/Accept-Encoding/);
    expect(brotliDecompressSync(brotli.body).toString()).toBe(script);

    const gzip = await raw('gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(script);

    const plain = await get('identity');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(script);
  });
});

describe('pages rendered by the storefront\'s server renderer', () => {
  // A renderer as storefront/src/entry-server.tsx exports it (ServerRenderer), counting what it renders
  // and streaming its markup in two parts, the second a moment after the first.
  const rendererDir = tempDir('storefront-renderer-');
  const renderer = (body: string) => {
    const file = path.join(rendererDir, `renderer-${Math.random().toString(36).slice(2)}.mjs`);
    fs.writeFileSync(file, body);
    return file;
  };
  const streamOf = `
    const streamOf = (parts, failAfter) => new ReadableStream({
      async start(controller) {
        for (const part of parts) {
          controller.enqueue(new TextEncoder().encode(part));
          // A test that reads the first part before the rest exists holds the rest back (globalThis.holdRest).
          await (globalThis.holdRest ?? new Promise((resolve) => setTimeout(resolve, 50)));
        }
        if (failAfter) controller.error(new Error('the renderer broke off'));
        else controller.close();
      },
    });
  `;
  const rendering = renderer(`
    ${streamOf}
    globalThis.renderedPages = (globalThis.renderedPages ?? 0);
    const languageOf = (acceptLanguage) => (acceptLanguage ?? '').startsWith('es') ? 'es' : 'en';
    export async function renderPage(url, acceptLanguage, data) {
      globalThis.renderedPages++;
      const what = data.video ? 'series ' + data.video.title : data.homepage.carousel.items.length + ' slides, $& kept, top ' + data.rankings.top.size;
      return { stream: streamOf(['<main>' + languageOf(acceptLanguage) + ' ', url + ' ' + what + '</main>']), htmlLang: languageOf(acceptLanguage) };
    }
  `);
  const failing = renderer(`
    export async function renderPage() { throw new Error('a broken renderer'); }
  `);
  const breakingOff = renderer(`
    ${streamOf}
    export async function renderPage() { return { stream: streamOf(['<main>the start'], true), htmlLang: 'en' }; }
  `);
  const errors: unknown[] = [];
  const servers: Array<{ close(): void }> = [];
  const serve = async (rendererFile: string) => {
    const catalog = site.instances.get('catalog')!.client as CatalogPages;
    const server = express().use(storefrontHandler(dist, { catalog, rendererFile, onRenderError: (error) => errors.push(error) })).listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  afterAll(() => servers.forEach((server) => server.close()));
  const rendered = () => (globalThis as { renderedPages?: number }).renderedPages ?? 0;

  it('streams the page in #app, in the visitor\'s language, with the page\'s styles as style sheets', async () => {
    const url = await serve(rendering);
    // The renderer sends the rest of its markup only once the test has read the first part: however
    // slow the machine, what arrived by then is what was streamed ahead of the rest.
    let sendRest = () => {};
    const holder = globalThis as { holdRest?: Promise<void> };
    holder.holdRest = new Promise<void>((resolve) => (sendRest = resolve));
    onTestFinished(() => {
      sendRest();
      delete holder.holdRest;
    });
    const response = await html(`${url}/?fbclid=abc`, { 'accept-language': 'es-ES,es;q=0.9' });
    // The head and the first part of the markup arrive before the renderer has finished.
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('<main>es ')) received += new TextDecoder().decode((await reader.read()).value);
    expect(received).toContain('<link rel="stylesheet" crossorigin href="/assets/HomePage-4.css" />');
    expect(received).not.toContain('</main>');
    sendRest();
    for (let part = await reader.read(); !part.done; part = await reader.read()) received += new TextDecoder().decode(part.value);
    const page = received;
    // Rendered without the click id, which changes nothing rendered (the app reads it from the address).
    expect(page).toContain('<div id="app" data-server-rendered><main>es / 2 slides, $& kept, top 12</main></div>');
    expect(page.trimEnd().endsWith('</html>')).toBe(true);
    expect(page).toContain('<html lang="es">');
    expect(page).toContain('<link rel="stylesheet" crossorigin href="/assets/HomePage-4.css" />');
    expect(page).not.toContain('as="style"');
    // Nothing else before its first paint: the app is fetched once the page has painted (storefront/src/boot.ts).
    expect(page).not.toContain('modulepreload');
    // The loader data it was rendered from goes with it, for hydration.
    expect(page).toContain('<script type="application/json" id="loader-data">');
    expect(errors).toEqual([]);
  });

  it('renders a page once for each address and language while its loader data stays the same', async () => {
    const url = await serve(rendering);
    const before = rendered();
    for (let visit = 0; visit < 3; visit++) await (await html(`${url}/`, { 'accept-language': 'en-US' })).text();
    expect(rendered() - before).toBe(1);
    await (await html(`${url}/`, { 'accept-language': 'es' })).text();
    await (await html(`${url}/?tab=browse`, { 'accept-language': 'en-US' })).text();
    expect(rendered() - before).toBe(3);
    // Every ad click has a click id of its own: one rendering serves them all.
    for (const click of ['fb-1', 'fb-2', 'fb-3']) await (await html(`${url}/?fbclid=${click}&utm_source=ads&token=ref`, { 'accept-language': 'en-US' })).text();
    expect(rendered() - before).toBe(3);
  });

  it('renders a series page from the series, and no other page', async () => {
    const url = await serve(rendering);
    const series = await (await html(`${url}/videos/heir`)).text();
    expect(series).toContain('<div id="app" data-server-rendered><main>en /videos/heir series The Heir Returns</main></div>');
    const unknown = await html(`${url}/videos/no-such-series`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('<div id="app"></div>');
    expect(await (await html(`${url}/favorites`)).text()).toContain('<div id="app"></div>');
  });

  it('sends the page for the browser to render when the renderer fails, and says why', async () => {
    const url = await serve(failing);
    const response = await html(`${url}/`);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<div id="app"></div>');
    expect(page).toContain('<link rel="preload" as="style" crossorigin href="/assets/HomePage-4.css" />');
    expect(String(errors.at(-1))).toContain('a broken renderer');
  });

  it('ends a page whose rendering broke off mid-stream whole, says why, and keeps nothing of it', async () => {
    const url = await serve(breakingOff);
    const before = errors.length;
    for (let visit = 0; visit < 2; visit++) {
      const page = await (await html(`${url}/`)).text();
      // The browser's React renders on the client what does not hydrate; the document is whole.
      expect(page).toContain('<div id="app" data-server-rendered><main>the start</div>');
      expect(page.trimEnd().endsWith('</html>')).toBe(true);
    }
    // Both visits rendered anew: a broken rendering is not kept.
    expect(errors.slice(before).map(String)).toEqual(['Error: the renderer broke off', 'Error: the renderer broke off']);
  });

  it('sends the page for the browser to render when there is no renderer to load', async () => {
    const url = await serve(path.join(rendererDir, 'never-built.mjs'));
    const page = await (await html(`${url}/`)).text();
    expect(page).toContain('<div id="app"></div>');
  });
});
