import type { Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LoaderData } from './api/loaderData';
import type { Video } from './api/types';
import { stubPlayback } from './features/video/playerTesting';
import { LAZY_IMAGE } from './lib/lazyImages';
import { markupOf } from './ssr/testing';
import { card, heirReturns, ok, page, serveApi, type Answers } from './testing/renderWithApp';

// The browser's side of a server-rendered page, through main.tsx itself: whatever the viewer brings
// (a stored token, their own locks, a language of their own), React hydrates the server's markup
// without a mismatch (none reported to onRecoverableError), keeps its elements, and the page ends
// exactly as the same page rendered afresh on the client from the splash.

const homeData: LoaderData = {
  homepage: {
    carousel: { title: 'Featured Videos', items: [card('heir', 'The Heir Returns')] },
    sections: [{ id: 'romance', title: 'Romance', items: [card('bride', 'The Runaway Bride'), card('ceo', 'My CEO Husband')] }],
  },
  rankings: { top: page([card('ceo', 'My CEO Husband')]), trending: page([]), new: page([card('heir', 'The Heir Returns')]) },
};

/** The series as a visitor who has unlocked nothing sees it: what the server renders. */
const anyones = heirReturns(3);
/** The same series as this viewer sees it: episode 2 unlocked, a favourite, a place in episode 2. */
const theirs: Video = {
  ...anyones,
  favorited: true,
  resume: { episodeId: 'e2', positionSeconds: 12 },
  episodes: anyones.episodes.map((episode) => ({ ...episode, locked: episode.number > 2 })),
};

const episode = (id: string, number: number) => ({
  id,
  videoId: 'heir',
  number,
  title: `Episode ${number}`,
  durationSeconds: 60,
  nextEpisodeId: null,
  playback: { url: `/media/heir/${id}/master.m3u8`, expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
  subtitles: [],
});

/** A call the test keeps waiting, as a slow network would. */
let slow: string | null = null;

const member = { id: 'u1', kind: 'member', email: 'ana@example.com', coins: 120, bonusCoins: 5, vip: null, autoUnlock: true };

beforeEach(() => {
  localStorage.clear();
  slow = null;
  const answers: Answers = {
    '/api/user': ok(member),
    '/api/video': ok(theirs),
    '/api/video/episode': (call) => {
      const id = call.query.get('episodeId') ?? 'e1';
      return ok(episode(id, Number(id.slice(1))));
    },
    '/api/homepage/query': (call) => ok(page(call.query.get('sectionId') === 'continue' ? [card('bride', 'The Runaway Bride')] : [])),
    '/api/homepage': ok(homeData.homepage),
    '/api/user/checkin': ok({ checkedInToday: false, streak: 0, nextBonus: 10, opensAt: null }),
  };
  serveApi(answers, { fallback: ok([]), hold: (call) => slow !== null && `${call.path}?${call.query}`.includes(slow) });
});

/** Every app a test started: each is unmounted after it, as a page left (see expectSameAsFresh). */
const started: Root[] = [];

afterEach(() => {
  for (const root of started.splice(0)) root.unmount();
  document.body.innerHTML = '';
});

stubPlayback();

interface ServerRendered {
  html: string;
  htmlLang: string;
}

/** The page as the server renders it for a visitor whose browser asks for English. */
async function serverRendered(path: string, data: LoaderData): Promise<ServerRendered> {
  // Each run of main.tsx below loads the app's modules anew (one React context each): these too.
  vi.resetModules();
  const { renderPage } = await import('./entry-server');
  const rendered = await renderPage(path, 'en', data);
  return { html: await markupOf(rendered), htmlLang: rendered.htmlLang };
}

/** Loads the page as the gateway sends it (server-rendered, or the splash) and runs main.tsx on it, as boot.ts does. */
async function open(
  path: string,
  data: LoaderData,
  rendered: ServerRendered | null,
): Promise<{ app: HTMLElement; how: string; root: Root; recoverableErrors: () => number }> {
  window.history.replaceState(null, '', path);
  document.documentElement.lang = rendered?.htmlLang ?? 'en';
  document.body.innerHTML = `<script id="loader-data" type="application/json">${JSON.stringify(data)}</script><div id="app"${rendered ? ' data-server-rendered' : ''}>${rendered ? rendered.html : '<div class="splash"></div>'}</div>`;
  vi.resetModules();
  const main = await import('./main');
  const { how, root } = await main.start();
  started.push(root);
  // The module main.tsx reports React's recoverable errors to (the same registry since the reset).
  const { recoverableErrorCount } = await import('./lib/monitoring');
  return { app: document.getElementById('app')!, how, root, recoverableErrors: recoverableErrorCount };
}

/**
 * What a page shows, whatever order its attributes were set in: each element's attributes sorted,
 * its style as the browser reads it, and the state of its form controls as the browser holds it (a server-rendered `<option selected>` and a
 * rendered `select.value` are the same choice).
 */
function shown(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
  if (!(node instanceof Element)) return '';
  // React's server rendering adds a preload for the pictures of the first screen: a hint, not shown.
  if (node instanceof HTMLLinkElement && node.rel === 'preload') return '';
  const attributes = [...node.attributes]
    .filter((attribute) => !(['selected', 'value', 'checked'].includes(attribute.name) && /^(OPTION|INPUT|SELECT|TEXTAREA)$/.test(node.tagName)))
    // A style as the browser reads it, however it was written.
    .map((attribute) => `${attribute.name}="${attribute.name === 'style' && node instanceof HTMLElement ? node.style.cssText : attribute.value}"`)
    .sort();
  if (node instanceof HTMLSelectElement || node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement) attributes.push(`:value="${node.value}"`);
  if (node instanceof HTMLInputElement) attributes.push(`:checked=${node.checked}`);
  if (node instanceof HTMLOptionElement) attributes.push(`:selected=${node.selected}`);
  return `<${node.localName} ${attributes.join(' ')}>${[...node.childNodes].map(shown).join('')}</${node.localName}>\n`;
}

/** What the page shows once nothing has changed for a while: every call answered, every row rendered. */
async function settled(app: HTMLElement): Promise<string> {
  let last = '';
  // Longer than the pictures' throttled check of where they are (LAZY_IMAGE.throttleMs).
  for (let round = 0; round < 30; round++) {
    await new Promise((resolve) => setTimeout(resolve, LAZY_IMAGE.throttleMs + 100));
    // useId's ids differ between a hydrated tree (the server's) and one rendered on the client, both
    // unique: each is numbered by where it first appears.
    const ids = new Map<string, string>();
    const now = [...app.childNodes]
      .map(shown)
      .join('')
      .replace(/_[rR]_[0-9a-z]+_/g, (id) => ids.get(id) ?? (ids.set(id, `id${ids.size + 1}`), `id${ids.size}`));
    // An app rendered in a transition may not have committed anything yet: empty is not settled.
    if (now === last && now !== '') return now;
    last = now;
  }
  throw new Error('the page never settled');
}

async function expectSameAsFresh(path: string, data: LoaderData, rendered: ServerRendered, how: 'hydrated' | 'rendered' = 'hydrated') {
  const fresh = await open(path, data, null);
  expect(fresh.how).toBe('rendered');
  const expected = await settled(fresh.app);
  // Gone for good, as a page left: its React (another copy, since the modules are loaded anew) no
  // longer renders beside the next one's, which a transition would otherwise let it do.
  fresh.root.unmount();
  document.body.innerHTML = '';

  const hydrated = await open(path, data, rendered);
  expect(hydrated.how).toBe(how);
  const first = hydrated.app.firstElementChild;
  expect(await settled(hydrated.app)).toBe(expected);
  // Hydrated, not rendered again: the server's elements, and no mismatch React recovered from.
  expect(hydrated.app.firstElementChild).toBe(first);
  expect(hydrated.recoverableErrors()).toBe(0);
}

describe('main.tsx hydrating a server-rendered page', { timeout: 60_000 }, () => {
  it('hydrates the home page of a new visitor, who ends with the page a fresh render draws', async () => {
    await expectSameAsFresh('/', homeData, await serverRendered('/', homeData));
  });

  it('hydrates the home page of a returning member, whose own header and "continue watching" come right after', async () => {
    // Rendered as the server renders it, for nobody: the token is the browser's alone.
    const rendered = await serverRendered('/', homeData);
    localStorage.setItem('cliffhanger.userToken', 'returning-token');
    await expectSameAsFresh('/', homeData, rendered);
    expect(document.querySelector('#section-continue')?.textContent).toBe('Continue watching');
    expect(document.querySelector('.header__account')?.textContent).not.toBe('Sign in');
  });

  it('hydrates the home page of a returning viewer whose history is slow to come, its place kept right after', async () => {
    const rendered = await serverRendered('/', homeData);
    localStorage.setItem('cliffhanger.userToken', 'returning-token');
    slow = 'sectionId=continue';
    await expectSameAsFresh('/', homeData, rendered);
    expect(document.querySelector('.row[aria-hidden="true"] .skeleton--title')).not.toBeNull();
  });

  it('hydrates a series page, then shows the viewer\'s own locks and place in the server\'s elements', async () => {
    const rendered = await serverRendered('/videos/heir', { video: anyones });
    localStorage.setItem('cliffhanger.userToken', 'returning-token');
    expect(rendered.html).toContain('Locked');
    await expectSameAsFresh('/videos/heir', { video: anyones }, rendered);
    expect(document.querySelector('[data-testid="episode-2"]')?.getAttribute('aria-label')).not.toContain('Locked');
  });

  it('renders on the client a page whose chunk could not load, rather than hydrate it later', async () => {
    const rendered = await serverRendered('/videos/heir', { video: anyones });
    vi.doMock('./features/video/VideoPage', () => {
      throw new Error('the chunk is gone');
    });
    try {
      const opened = await open('/videos/heir', { video: anyones }, rendered);
      expect(opened.how).toBe('rendered');
    } finally {
      vi.doUnmock('./features/video/VideoPage');
    }
  });

  it('hydrates a page rendered in another language than the one the visitor chose here, then switches to theirs', async () => {
    localStorage.setItem('cliffhanger.language', 'es');
    const rendered = await serverRendered('/', homeData);
    expect(rendered.htmlLang).toBe('en');
    await expectSameAsFresh('/', homeData, rendered);
    expect(document.documentElement.lang).toBe('es');
  });
});
