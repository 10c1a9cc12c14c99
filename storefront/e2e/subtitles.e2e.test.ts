import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, SiteExited } from '@cliffhanger/platform/testing';
import { launchChromium, startSite, type RunningSite } from './harness';

// Subtitles as a viewer meets them: an episode of its own, uploaded with subtitles through the admin
// API, so the site this suite starts needs no demo catalog.
let site: RunningSite;
let browser: Browser;
let videoId: string;
const pageErrors: string[] = [];

const LINES = {
  en: ["Don't sign that contract.", 'It is already too late.'],
  es: ['No firmes ese contrato.', 'Ya es demasiado tarde.'],
  fy: ['Ne signe pas ce contrat.', 'Il est déjà trop tard.'],
};
const SECONDS = 8;
const vttOf = (lines: string[]) => `WEBVTT\n\n1\n00:00:00.100 --> 00:00:04.000\n${lines[0]}\n\n2\n00:00:04.000 --> 00:00:07.900\n${lines[1]}\n`;

/** An 8-second real episode: a test pattern with a tone. */
function renderClip(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'cliffhanger-e2e-subtitles-'));
  const file = join(dir, 'clip.mp4');
  execFileSync(process.env.FFMPEG_PATH || 'ffmpeg', [
    '-v', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=240x426:rate=24:duration=${SECONDS}`,
    '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=44100:duration=${SECONDS}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file,
  ]);
  const bytes = readFileSync(file);
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

async function admin<T>(method: string, path: string, body: BodyInit, contentType: string): Promise<T> {
  const response = await fetch(`${site.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${site.adminToken}`, 'content-type': contentType }, body });
  const envelope = (await response.json()) as { code: number; message: string; data: T };
  if (envelope.code !== 200) throw new Error(`${method} ${path} answered ${envelope.code}: ${envelope.message}`);
  return envelope.data;
}

beforeAll(async () => {
  site = await startSite({ env: { DEMO: '0' } });
  if (!site.adminToken) throw new Error('this suite uploads an episode: set E2E_ADMIN_TOKEN for a site already running');
  browser = await launchChromium();
  const { video } = await admin<{ video: { id: string } }>('POST', '/api/admin/videos', JSON.stringify({ title: `Lost in Translation ${Date.now()}`, freeEpisodes: 3 }), 'application/json');
  videoId = video.id;
  const episode = await admin<{ id: string }>('POST', `/api/admin/videos/${videoId}/episodes`, new Uint8Array(renderClip()), 'video/mp4');
  for (const [lang, lines] of Object.entries(LINES)) await admin('PUT', `/api/admin/episodes/${episode.id}/subtitles/${lang}`, vttOf(lines), 'text/vtt');
  await eventually(async () => {
    site.assertRunning();
    const answer = (await (await fetch(`${site.baseUrl}/api/video?id=${videoId}`)).json()) as { data: { episodes: { ready: boolean }[] } };
    return answer.data.episodes[0]?.ready ? true : undefined;
  }, { timeoutMs: 180_000, what: 'the subtitled episode to be transcoded', intervalMs: 2000, stopOn: SiteExited });
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await site?.stop();
});

async function newViewer(options: { viewport: { width: number; height: number }; isMobile?: boolean; language?: string }): Promise<{ context: BrowserContext; page: Page }> {
  const { language, ...device } = options;
  const context = await browser.newContext({ baseURL: site.baseUrl, locale: 'en-US', hasTouch: device.isMobile, ...device });
  if (language) await context.addInitScript((code) => window.localStorage.setItem('cliffhanger.language', code), language);
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
  return { context, page };
}

const captions = (page: Page) => page.getByTestId('player-captions');

/** Pauses the video at `seconds`, so that the cue there stays on screen while the test reads it. */
async function holdAt(page: Page, seconds: number): Promise<void> {
  await page.getByTestId('player-video').evaluate((video: HTMLVideoElement, at) => {
    video.pause();
    video.currentTime = at;
  }, seconds);
}

/** What the browser itself holds for a language's track: its mode and the text of its active cues. */
const trackState = (page: Page, lang: string) =>
  page.locator(`track[data-subtitle="${lang}"]`).evaluate((track: HTMLTrackElement) => ({
    mode: track.track.mode,
    cues: Array.from(track.track.activeCues ?? [], (cue) => (cue as VTTCue).text),
  }));

describe('subtitles in the player', () => {
  it('a viewer turns on Spanish subtitles and sees the Spanish line over the video', async () => {
    const { context, page } = await newViewer({ viewport: { width: 390, height: 844 }, isMobile: true });
    await page.goto(`/videos/${videoId}`);
    const video = page.getByTestId('player-video');
    // It plays, master playlist with its SUBTITLES group and all.
    await expect.poll(() => video.evaluate((element: HTMLVideoElement) => element.currentTime), { timeout: 30_000 }).toBeGreaterThan(0.3);
    // The interface is English, so English subtitles show by default.
    await holdAt(page, 1);
    await expect.poll(() => captions(page).textContent(), { timeout: 15_000 }).toBe(LINES.en[0]);

    await page.locator('.player').hover();
    await page.getByRole('button', { name: 'Subtitles' }).click();
    const menu = page.getByRole('menu', { name: 'Subtitles' });
    expect(await menu.getByRole('menuitemradio').allTextContents()).toEqual(['Off', 'English', 'Español', 'Français']);
    expect(await menu.getByRole('menuitemradio', { name: 'English' }).getAttribute('aria-checked')).toBe('true');
    await menu.getByRole('menuitemradio', { name: 'Español' }).click();

    await expect.poll(() => captions(page).textContent(), { timeout: 15_000 }).toBe(LINES.es[0]);
    expect(await captions(page).getAttribute('lang')).toBe('es');
    expect(await trackState(page, 'es')).toEqual({ mode: 'hidden', cues: [LINES.es[0]] });
    expect((await trackState(page, 'en')).mode).toBe('disabled');
    // Only the player draws cues: no text track, ours or one made from the master playlist's
    // renditions by hls.js, is rendered by the browser as well.
    const modes = await video.evaluate((element: HTMLVideoElement) => Array.from(element.textTracks, (track) => `${track.kind} ${track.mode}`));
    expect(modes.filter((mode) => !mode.startsWith('metadata') && !mode.endsWith('disabled'))).toEqual(['subtitles hidden']);
    // The cue is really on screen, over the picture.
    const [stage, cue] = [await page.locator('.player').boundingBox(), await captions(page).boundingBox()];
    expect(cue!.width).toBeGreaterThan(50);
    expect(cue!.y).toBeGreaterThan(stage!.y + stage!.height / 2);
    expect(cue!.y + cue!.height).toBeLessThanOrEqual(stage!.y + stage!.height);
    await page.screenshot({ path: '/tmp/subtitles-phone.png' });

    // The next cue follows the picture.
    await holdAt(page, 5);
    await expect.poll(() => captions(page).textContent(), { timeout: 15_000 }).toBe(LINES.es[1]);

    // The choice is kept for the next visit; "Off" turns them off.
    await page.reload();
    await holdAt(page, 1);
    await expect.poll(() => captions(page).textContent(), { timeout: 15_000 }).toBe(LINES.es[0]);
    await page.locator('.player').hover();
    await page.getByRole('button', { name: 'Subtitles' }).click();
    await page.getByRole('menuitemradio', { name: 'Off' }).click();
    await expect.poll(() => captions(page).count()).toBe(0);
    expect((await trackState(page, 'es')).mode).toBe('disabled');
    await context.close();
  });

  it("shows the interface language's subtitles by default, on a desktop too", async () => {
    const { context, page } = await newViewer({ viewport: { width: 1440, height: 900 }, language: 'fy' });
    await page.goto(`/videos/${videoId}`);
    await page.getByRole('button', { name: 'Sous-titres' }).waitFor({ state: 'attached' });
    await holdAt(page, 1.5);
    await expect.poll(() => captions(page).textContent(), { timeout: 15_000 }).toBe(LINES.fy[0]);
    expect(await captions(page).getAttribute('lang')).toBe('fr');
    await page.locator('.player').hover();
    await page.getByRole('button', { name: 'Sous-titres' }).click();
    expect(await page.getByRole('menuitemradio', { name: 'Désactivés' }).getAttribute('aria-checked')).toBe('false');
    await page.screenshot({ path: '/tmp/subtitles-desktop.png' });
    await context.close();
  });

  it('threw no errors in any page', () => {
    expect(pageErrors).toEqual([]);
  });
});
