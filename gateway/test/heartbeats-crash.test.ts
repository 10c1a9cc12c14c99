import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderDemoEpisode } from '@cliffhanger/demo';
import { createScratchDatabase, eventually, realDatabaseUrl, startSiteProcess, tempDir } from '@cliffhanger/platform/testing';

// Watch positions are written behind (services/user/src/watch-positions.ts): a process killed the hard
// way (kill -9, an OOM kill) loses at most the positions of one flush interval, and nothing else. The
// real site, on the embedded database (PGlite in DATA_DIR) or, in npm test's second pass, PostgreSQL.
const FLUSH_MS = 1_000;
// One write of the interval's positions may still be under way when the process dies: on a loaded
// machine it takes a while. Positions acknowledged this long before the kill must all be there.
const WRITE_GRACE_MS = 2_000;
const VIEWERS = 20;
const ADMIN_TOKEN = 'heartbeats-crash-admin-token-0123456789';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The site on `dataDir` (kept between starts) with `env`, stopped after the test if still running. */
async function startSite(dataDir: string, env: Record<string, string>) {
  const site = await startSiteProcess({
    dataDir,
    readyTimeoutMs: 150_000,
    env: { ...env, DEMO: '0', LOG_LEVEL: 'warn', ADMIN_TOKEN, HISTORY_FLUSH_MS: String(FLUSH_MS), RATE_LIMIT_HISTORY_PER_MINUTE: '100000', RATE_LIMIT_GUEST_PER_MINUTE: '100000' },
  });
  cleanups.push(site.stop);
  return site;
}

describe('watch positions when the process is killed (kill -9)', () => {
  it('loses at most the positions of one flush interval, and the site comes back on the same data', async () => {
    const dataDir = tempDir('heartbeats-crash-');
    let env: Record<string, string> = {};
    if (realDatabaseUrl) {
      const scratch = await createScratchDatabase();
      cleanups.push(scratch.drop);
      env = { DATABASE_URL: scratch.url };
    }
    const first = await startSite(dataDir, env);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const series = await (await fetch(`${first.origin}/api/admin/videos`, { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Kill Nine', tags: ['Romance'] }) })).json();
    const clip = path.join(tempDir('heartbeats-clip-'), 'episode.mp4');
    await renderDemoEpisode({ outFile: clip, seriesTitle: 'Kill Nine', episodeNumber: 1, seconds: 1, width: 240, height: 426, hue: 30 });
    const upload = await (
      await fetch(`${first.origin}/api/admin/videos/${series.data.video.id}/episodes?number=1`, { method: 'POST', headers: { ...admin, 'content-type': 'video/mp4' }, body: fs.readFileSync(clip) })
    ).json();
    const episodeId: string = upload.data.id;
    const tokens = await Promise.all(Array.from({ length: VIEWERS }, async () => (await fetch(`${first.origin}/api/user`)).headers.get('x-user-token')!));

    // Every viewer beats as fast as it is answered, its position one second further each time; each
    // answered beat is noted with when its answer came.
    const acked: { at: number; position: number }[][] = tokens.map(() => []);
    let beating = true;
    const beats = tokens.map(async (token, viewer) => {
      for (let position = 1; beating; position++) {
        const answer = await fetch(`${first.origin}/api/user/history`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-user-token': token },
          body: JSON.stringify({ episodeId, positionSeconds: position }),
        }).then((response) => response.json() as Promise<{ code: number }>, () => null);
        if (!answer) return;
        expect(answer.code).toBe(200);
        acked[viewer]!.push({ at: Date.now(), position });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    // Several intervals of beats, so that some were flushed and some wait in memory.
    await eventually(() => acked.every((list) => list.length > 0 && list.at(-1)!.at - list[0]!.at > 4 * FLUSH_MS), 60_000, 'beats over several intervals');
    const killedAt = Date.now();
    const killed = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await killed;
    beating = false;
    await Promise.all(beats);

    const second = await startSite(dataDir, env);
    for (const [viewer, token] of tokens.entries()) {
      const me = await (await fetch(`${second.origin}/api/user`, { headers: { 'x-user-token': token } })).json();
      expect(me.code, 'the viewer is still there').toBe(200);
      const history = await (await fetch(`${second.origin}/api/user/history?page=1&size=10`, { headers: { 'x-user-token': token } })).json();
      const kept: number = history.data.items[0]?.positionSeconds ?? 0;
      const mustHave = acked[viewer]!.filter((beat) => beat.at <= killedAt - FLUSH_MS - WRITE_GRACE_MS).at(-1)?.position ?? 0;
      const sent = acked[viewer]!.at(-1)!.position;
      expect(mustHave, 'beats acknowledged well before the kill').toBeGreaterThan(0);
      expect(kept, `viewer ${viewer}: kept ${kept}, acknowledged ${mustHave} more than an interval before the kill`).toBeGreaterThanOrEqual(mustHave);
      expect(kept).toBeLessThanOrEqual(sent);
    }
    await second.stop();
  }, 300_000);
});
