// What one demo-catalog episode costs to make: render the source with lavfi, then transcode it
// into the HLS ladder. The seed script does this for 8+ series x 10+ episodes on two cores.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderDemoEpisode, transcodeToHls } from '../services/transcoder/src/index.ts';

const EPISODE_SECONDS = 30;
const EPISODES = 3;
const work = await mkdtemp(join(tmpdir(), 'transcode-demo-bench-'));

const render = [] as number[];
const transcode = [] as number[];
for (let i = 1; i <= EPISODES; i++) {
  const outFile = join(work, `ep${i}.mp4`);
  let start = performance.now();
  await renderDemoEpisode({ outFile, seriesTitle: 'The Midnight Contract', episodeNumber: i, seconds: EPISODE_SECONDS, hue: i * 40 });
  render.push((performance.now() - start) / 1000);
  start = performance.now();
  await transcodeToHls({ input: outFile, outputDir: join(work, `ep${i}`) });
  transcode.push((performance.now() - start) / 1000);
}
await rm(work, { recursive: true, force: true });

// The first episode pays for warming the page cache and fluent-ffmpeg's capability probe.
const [r, t] = [render, transcode].map((xs) => Math.min(...xs.slice(1))) as [number, number];
const perEpisode = r + t;
console.log(
  `transcode-demo: render ${r.toFixed(1)} s + transcode ${t.toFixed(1)} s = ${perEpisode.toFixed(1)} s per ${EPISODE_SECONDS} s episode` +
    ` = ${(perEpisode / EPISODE_SECONDS).toFixed(2)} x realtime (goal <= 0.5)`,
);
