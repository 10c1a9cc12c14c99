import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, SiteExited } from '@cliffhanger/platform/testing';
import type { RunningSite } from './harness';

interface Envelope<T> {
  code: number;
  data: T;
}

export interface CardLite {
  id: string;
  title: string;
}

export interface EpisodeLite {
  id: string;
  number: number;
  locked: boolean;
  ready: boolean;
}

export interface DemoCatalog {
  tagId: string;
  sectionId: string;
  /** A series whose first episode is free and ready to play. */
  playable: CardLite & { firstEpisodeId: string };
  series: CardLite[];
}

async function call<T>(baseUrl: string, path: string): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`);
  const envelope = (await response.json()) as Envelope<T>;
  if (envelope.code !== 200) throw new Error(`${path} answered ${envelope.code}`);
  return envelope.data;
}

type Site = Pick<RunningSite, 'baseUrl' | 'assertRunning'>;

const episodesOf = (site: Site, videoId: string) => {
  site.assertRunning();
  return call<{ episodes: EpisodeLite[] }>(site.baseUrl, `/api/video?id=${encodeURIComponent(videoId)}`).then((video) => video.episodes);
};

/** Waits for the backend's demo catalog: sections with series, and a first episode transcoded and ready. */
export async function waitForDemoCatalog(site: Site, timeoutMs = 360_000): Promise<DemoCatalog> {
  const { baseUrl } = site;
  const started = Date.now();
  const homepage = await eventually(async () => {
    site.assertRunning();
    const data = await call<{ carousel: { items: CardLite[] }; sections: Array<{ id: string; items: CardLite[] }> }>(baseUrl, '/api/homepage');
    return data.sections.some((section) => section.items.length > 0) ? data : undefined;
  }, { timeoutMs, what: 'a homepage with series', intervalMs: 3000, stopOn: SiteExited });
  const tags = await call<Array<{ id: string }>>(baseUrl, '/api/tag');
  const cards = [...homepage.carousel.items, ...homepage.sections.flatMap((section) => section.items)];
  const series = [...new Map(cards.map((card) => [card.id, { id: card.id, title: card.title }])).values()];

  const playable = await eventually(async () => {
    for (const card of series) {
      const first = (await episodesOf(site, card.id))[0];
      if (first?.ready && !first.locked) return { ...card, firstEpisodeId: first.id };
    }
    return undefined;
  }, { timeoutMs: timeoutMs - (Date.now() - started), what: 'a ready first episode', intervalMs: 5000, stopOn: SiteExited });

  const sectionId = homepage.sections.find((section) => section.items.length > 0)!.id;
  return { tagId: tags[0]!.id, sectionId, playable, series };
}

/** Waits until a series has an episode with this number that a new guest may watch. */
export function waitForFreeEpisode(site: Site, videoId: string, number: number, timeoutMs: number): Promise<EpisodeLite> {
  return eventually(async () => {
    const episode = (await episodesOf(site, videoId)).find((entry) => entry.number === number);
    return episode?.ready && !episode.locked ? episode : undefined;
  }, { timeoutMs, what: `episode ${number} of ${videoId}`, intervalMs: 5000, stopOn: SiteExited });
}

/** Waits until some series lists an episode a new guest may not watch. */
export function waitForLockedEpisode(site: Site, series: CardLite[], timeoutMs: number): Promise<CardLite & { locked: EpisodeLite }> {
  return eventually(async () => {
    for (const card of series) {
      const locked = (await episodesOf(site, card.id)).find((episode) => episode.locked);
      if (locked) return { ...card, locked };
    }
    return undefined;
  }, { timeoutMs, what: 'a locked episode', intervalMs: 10_000, stopOn: SiteExited });
}

/** ffmpeg from the system (Debian's, installed by .ci/run), or FFMPEG_PATH. */
const ffmpeg = process.env.FFMPEG_PATH || 'ffmpeg';

/** A tiny real episode: a 2 s test pattern with a tone. */
export function renderClip(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'cliffhanger-e2e-clip-'));
  const file = join(dir, 'clip.mp4');
  execFileSync(ffmpeg, [
    '-v', 'error', '-y',
    '-f', 'lavfi', '-i', 'testsrc2=size=240x426:rate=24:duration=2',
    '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=2',
    '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file,
  ]);
  const bytes = readFileSync(file);
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

export interface PaidSeries {
  id: string;
  /** Episodes 1 and 2, both locked for a new viewer (the series has no free episode). */
  episodes: EpisodeLite[];
}

/**
 * A series of its own for the money tests, through the admin API: no free episode, two short real
 * episodes that transcode in seconds (early episode numbers go first in the transcode queue).
 */
export async function uploadPaidSeries(site: RunningSite, timeoutMs: number): Promise<PaidSeries> {
  if (!site.adminToken) throw new Error('the money tests upload a series: set E2E_ADMIN_TOKEN for a site already running');
  const admin = { authorization: `Bearer ${site.adminToken}` };
  const created = await fetch(`${site.baseUrl}/api/admin/videos`, {
    method: 'POST',
    headers: { ...admin, 'content-type': 'application/json' },
    body: JSON.stringify({ title: `Paid in Full ${Date.now()}`, description: 'The money tests series.', tags: ['Romance'], freeEpisodes: 0, priceCoins: 60 }),
  }).then((response) => response.json() as Promise<Envelope<{ video: { id: string } }>>);
  if (created.code !== 200) throw new Error(`creating the paid series answered ${created.code}`);
  const id = created.data.video.id;
  const clip = renderClip();
  for (const number of [1, 2]) {
    const upload = await fetch(`${site.baseUrl}/api/admin/videos/${id}/episodes?number=${number}`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'video/mp4' },
      body: new Uint8Array(clip),
    }).then((response) => response.json() as Promise<Envelope<unknown>>);
    if (upload.code !== 200) throw new Error(`uploading episode ${number} answered ${upload.code}`);
  }
  const episodes = await eventually(async () => {
    const list = await episodesOf(site, id);
    return list.length === 2 && list.every((episode) => episode.ready) ? list : undefined;
  }, { timeoutMs, what: 'the paid series to be transcoded', intervalMs: 3000, stopOn: SiteExited });
  return { id, episodes };
}
