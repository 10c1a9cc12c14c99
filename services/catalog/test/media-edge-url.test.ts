import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodeRepository as episodeRepo } from '../src/episode-repository.ts';
import { adminOf, startCatalogSite, type Site } from './site.ts';

// With MEDIA_EDGE_URL the catalog hands out playback URLs on the edge's origin (edge/, issue 28), and
// the page lets the player reach it.
const EDGE = 'https://media.cliffhanger.example';
let site: Site;
let episodeId: string;

beforeAll(async () => {
  site = await startCatalogSite({ MEDIA_EDGE_URL: `${EDGE}/` });
  const id = await site.series({ title: 'Edge of Night', tags: ['Revenge'], freeEpisodes: 1, priceCoins: 20 });
  await adminOf(site).planEpisodes(id, 1);
  episodeId = `${id}-ep1`;
  // As a finished transcode leaves it (uploads.test.ts runs the real one).
  const uploadId = randomUUID();
  const db = site.platform.database.db;
  await episodeRepo.attachUpload(db, episodeId, { uploadId, sourceKey: `uploads/${episodeId}/${uploadId}` });
  await episodeRepo.finishEpisode(db, episodeId, uploadId, { status: 'ready', durationSeconds: 30, mediaPrefix: `episodes/${episodeId}/hls` });
}, 180_000);

afterAll(() => site?.close());

describe('MEDIA_EDGE_URL', () => {
  it('hands out the playback URL on the edge’s origin, the grant in its path', async () => {
    const answer = await site.call('GET', `/api/video/episode?id=${episodeId}`, { token: await site.guest() });
    expect(answer.code).toBe(200);
    expect(answer.data.playback.url).toMatch(new RegExp(`^${EDGE}/media/g/[\\w-]+\\.[\\w-]+/episodes/${episodeId}/hls/master\\.m3u8$`));
  });

  it('lets the page’s player fetch from the edge', async () => {
    const policy = (await fetch(`${site.url}/api/video/episode?id=${episodeId}`)).headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(new RegExp(`connect-src [^;]*${EDGE}`));
    expect(policy).toMatch(new RegExp(`media-src [^;]*${EDGE}`));
  });
});
