import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PageFacts } from './api/pageFacts';
import type { Video, VideoCard } from './api/types';
import { stubPlayback } from './features/video/playerTesting';

// The browser's side of a page the gateway drew, through main.tsx itself: whatever the viewer brings
// (a stored token, their own locks, a language of their own), the page taken over must end exactly
// as the same page rendered afresh from the splash. Preact's hydrate keeps attributes as drawn, so an
// attribute the first render would have drawn otherwise stays wrong, and these comparisons fail.

const card = (id: string, title: string): VideoCard => ({ id, title, cover: `/media/public/covers/${id}.jpg`, tags: ['Romance'], episodeCount: 24, playCount: 1234 });
const page = (items: VideoCard[]) => ({ items, page: 1, size: 12, hasMore: false });

const homeFacts: PageFacts = {
  homepage: {
    carousel: { title: 'Featured Videos', items: [card('heir', 'The Heir Returns')] },
    sections: [{ id: 'romance', title: 'Romance', items: [card('bride', 'The Runaway Bride'), card('ceo', 'My CEO Husband')] }],
  },
  rankings: { top: page([card('ceo', 'My CEO Husband')]), trending: page([]), new: page([card('heir', 'The Heir Returns')]) },
};

/** The series as a visitor who has unlocked nothing sees it: what the gateway draws. */
const anyones: Video = {
  ...card('heir', 'The Heir Returns'),
  description: 'A heir comes home.',
  freeEpisodes: 1,
  priceCoins: 30,
  favorited: false,
  resume: null,
  episodes: [1, 2, 3].map((number) => ({ id: `e${number}`, number, title: `Episode ${number}`, durationSeconds: 60, locked: number > 1, ready: true })),
};
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
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const { pathname, searchParams } = new URL(url, 'http://localhost');
      if (slow && `${pathname}?${searchParams}`.includes(slow)) await new Promise(() => {});
      const data =
        pathname === '/api/user'
          ? member
          : pathname === '/api/video'
            ? theirs
            : pathname === '/api/video/episode'
              ? episode(searchParams.get('episodeId') ?? 'e1', Number((searchParams.get('episodeId') ?? 'e1').slice(1)))
              : pathname === '/api/homepage/query'
                ? searchParams.get('sectionId') === 'continue'
                  ? page([card('bride', 'The Runaway Bride')])
                  : page([])
                : pathname === '/api/homepage'
                  ? homeFacts.homepage
                : pathname === '/api/user/checkin'
                  ? { checkedInToday: false, streak: 0, nextBonus: 10, opensAt: null }
                  : [];
      return new Response(JSON.stringify({ code: 200, message: 'ok', data }), { headers: { 'content-type': 'application/json' } });
    }),
  );
});

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.innerHTML = '';
});

stubPlayback();

/** The page as the gateway draws it for a visitor whose browser asks for English. */
async function drawnPage(path: string, facts: PageFacts): Promise<{ html: string; htmlLang: string }> {
  // Each run of main.tsx below loads the app's modules anew (one React context each): these too.
  vi.resetModules();
  const { renderPage } = await import('./entry-server');
  return renderPage(path, 'en', facts);
}

/** Loads the page as the gateway sends it (drawn, or the splash) and runs main.tsx on it, as boot.ts does. */
async function open(path: string, facts: PageFacts, drawn: { html: string; htmlLang: string } | null): Promise<{ app: HTMLElement; how: string }> {
  window.history.replaceState(null, '', path);
  document.documentElement.lang = drawn?.htmlLang ?? 'en';
  document.body.innerHTML = `<script id="page-data" type="application/json">${JSON.stringify(facts)}</script><div id="app"${drawn ? ' data-server-rendered' : ''}>${drawn ? drawn.html : '<div class="splash"></div>'}</div>`;
  vi.resetModules();
  const takeover = await import('./lib/takeover');
  const takeOver = vi.spyOn(takeover, 'takeOver');
  const main = await import('./main');
  await main.start();
  return { app: document.getElementById('app')!, how: String(takeOver.mock.results[0]?.value) };
}

/**
 * What a page shows, whatever order its attributes were set in: each element's attributes sorted,
 * its style as the browser reads it, and the state of its form controls as the browser holds it (a drawn `<option selected>` and a
 * rendered `select.value` are the same choice).
 */
function shown(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
  if (!(node instanceof Element)) return '';
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

/** What the page shows once nothing has changed for a while: every call answered, every row drawn. */
async function settled(app: HTMLElement): Promise<string> {
  let last = '';
  for (let round = 0; round < 40; round++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = [...app.childNodes].map(shown).join('');
    if (now === last) return now;
    last = now;
  }
  throw new Error('the page never settled');
}

async function expectSameAsFresh(path: string, facts: PageFacts, drawn: { html: string; htmlLang: string }, how: 'hydrated' | 'rendered') {
  const fresh = await open(path, facts, null);
  expect(fresh.how).toBe('rendered');
  const expected = await settled(fresh.app);
  document.body.innerHTML = '';

  const taken = await open(path, facts, drawn);
  expect(taken.how).toBe(how);
  const first = taken.app.firstElementChild;
  expect(await settled(taken.app)).toBe(expected);
  // Taken over, not drawn again.
  expect(taken.app.firstElementChild).toBe(first);
}

describe('main.tsx taking over a drawn page', () => {
  it('hydrates the home page of a new visitor, who ends with the page a fresh render draws', async () => {
    await expectSameAsFresh('/', homeFacts, await drawnPage('/', homeFacts), 'hydrated');
  });

  it('hydrates the home page of a returning member, whose own header and "continue watching" come right after', async () => {
    // Drawn as the gateway draws it, for nobody: the token is the browser's alone.
    const drawn = await drawnPage('/', homeFacts);
    localStorage.setItem('cliffhanger.userToken', 'returning-token');
    await expectSameAsFresh('/', homeFacts, drawn, 'hydrated');
    expect(document.querySelector('#section-continue')?.textContent).toBe('Continue watching');
    expect(document.querySelector('.header__account')?.textContent).not.toBe('Sign in');
  });

  it('hydrates the home page of a returning viewer whose history is slow to come, its place kept right after', async () => {
    const drawn = await drawnPage('/', homeFacts);
    localStorage.setItem('cliffhanger.userToken', 'returning-token');
    slow = 'sectionId=continue';
    await expectSameAsFresh('/', homeFacts, drawn, 'hydrated');
    expect(document.querySelector('.row[aria-hidden="true"] .skeleton--title')).not.toBeNull();
  });

  it('hydrates a series page, then shows the viewer\'s own locks and place in the drawn elements', async () => {
    const drawn = await drawnPage('/videos/heir', { video: anyones });
    localStorage.setItem('cliffhanger.userToken', 'returning-token');
    expect(drawn.html).toContain('Locked');
    await expectSameAsFresh('/videos/heir', { video: anyones }, drawn, 'hydrated');
    expect(document.querySelector('[data-testid="episode-2"]')?.getAttribute('aria-label')).not.toContain('Locked');
  });

  it('renders over a drawn page whose chunk could not load, rather than hydrate it later', async () => {
    const drawn = await drawnPage('/videos/heir', { video: anyones });
    vi.doMock('./features/video/VideoPage', () => {
      throw new Error('the chunk is gone');
    });
    try {
      const taken = await open('/videos/heir', { video: anyones }, drawn);
      expect(taken.how).toBe('rendered');
    } finally {
      vi.doUnmock('./features/video/VideoPage');
    }
  });

  it('renders over a page drawn in another language than the one the visitor chose here', async () => {
    localStorage.setItem('cliffhanger.language', 'es');
    const drawn = await drawnPage('/', homeFacts);
    await expectSameAsFresh('/', homeFacts, drawn, 'rendered');
    expect(document.documentElement.lang).toBe('es');
  });
});
