import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '@cliffhanger/platform';
import { makeClip, notAVideo, startSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule } from '@cliffhanger/catalog';
import { ffmpegTools, transcoderModule } from '@cliffhanger/transcoder';
import { userModule } from '@cliffhanger/user';
import { unlockModule, type UnlockClient } from '../src/index.ts';

// Unlocks through the whole site: the catalog's 402 and its playback grants ask this service.
let site: Site;
let videoId: string;
let episodeId: string;
beforeAll(async () => {
  site = await startSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule] });
  videoId = await site.series({ title: 'Grants and Keys', freeEpisodes: 0, priceCoins: 25 });
  episodeId = (await site.upload(videoId, await makeClip(ffmpegTools()), '?number=1')).data.id;
  expect((await site.settled(episodeId)).status).toBe('ready');
}, 120_000);
afterAll(() => site?.close());

const unlock = () => site.instances.get('unlock')!.client as UnlockClient;

async function viewerWithCoins(coins: number) {
  const token = await site.guest();
  const { data: user } = await site.call('GET', '/api/user', { token });
  await unlock().creditOrder(systemContext('test'), { orderId: `media-${user.id}`, userId: user.id, coins, bonusCoins: 0 });
  return { token, userId: user.id as string };
}

describe('unlocked media', () => {
  it('plays for the viewer who unlocked it and stays locked, and its media 403, for another', async () => {
    const buyer = await viewerWithCoins(30);
    const other = await viewerWithCoins(0);

    const locked = await site.call('GET', `/api/video/episode?id=${episodeId}`, { token: buyer.token });
    expect(locked).toMatchObject({ code: 402, data: { episodeId, videoId, priceCoins: 25, balance: 30 } });
    expect((await site.call('POST', '/api/video/unlock', { token: buyer.token, body: { episodeId } })).data).toEqual({ episodeId, balance: 5 });

    const episode = await site.call('GET', `/api/video/episode?id=${episodeId}`, { token: buyer.token });
    expect(episode.code).toBe(200);
    const master = episode.data.playback.url as string;
    expect((await fetch(site.url + master)).status).toBe(200);

    expect(await site.call('GET', `/api/video/episode?id=${episodeId}`, { token: other.token })).toMatchObject({ code: 402, data: { balance: 0 } });
    expect((await site.call('GET', `/api/video?id=${videoId}`, { token: other.token })).data.episodes[0].locked).toBe(true);
    expect((await site.call('GET', `/api/video?id=${videoId}`, { token: buyer.token })).data.episodes[0].locked).toBe(false);
    // Without a grant the path serves nothing; with a forged one, or one for another episode, 403.
    const path = master.replace(/^\/media\/g\/[^/]+\//, '');
    expect((await fetch(`${site.url}/media/${path}`)).status).toBe(404);
    expect((await fetch(`${site.url}/media/g/forged-grant/${path}`)).status).toBe(403);
    const otherGrant = master.split('/')[3]!;
    expect((await fetch(`${site.url}/media/g/${otherGrant}/${path.replace(episodeId, `${episodeId}x`)}`)).status).toBe(403);
  }, 60_000);

  it('charges nothing for a second unlock, and refuses one without enough coins with the price and balance', async () => {
    const poor = await viewerWithCoins(10);
    expect(await site.call('POST', '/api/video/unlock', { token: poor.token, body: { episodeId } })).toMatchObject({ code: 402, data: { priceCoins: 25, balance: 10 } });
    const rich = await viewerWithCoins(100);
    await site.call('POST', '/api/video/unlock', { token: rich.token, body: { episodeId } });
    expect((await site.call('POST', '/api/video/unlock', { token: rich.token, body: { episodeId } })).data).toEqual({ episodeId, balance: 75 });
    const entries = await site.platform.database.db.execute(sql`select count(*)::int as n from unlock.ledger where user_id = ${rich.userId} and kind = 'unlock'`);
    expect((entries as unknown as { rows: { n: number }[] }).rows[0]!.n).toBe(1);
  });

  it('refuses to sell an episode whose transcode failed: 409 in the envelope, and the coins stay', async () => {
    const broken = (await site.upload(videoId, notAVideo, '?number=2')).data.id as string;
    expect((await site.settled(broken)).status).toBe('failed');
    const viewer = await viewerWithCoins(100);

    expect(await site.call('POST', '/api/video/unlock', { token: viewer.token, body: { episodeId: broken } })).toMatchObject({
      status: 200,
      code: 409,
      message: 'This episode is not available, so it cannot be unlocked',
    });
    expect((await site.call('GET', '/api/user', { token: viewer.token })).data.coins).toBe(100);
  }, 60_000);
});
