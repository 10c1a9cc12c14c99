// What one demo-catalog episode costs to make: render the source with lavfi, then transcode it
// into the HLS ladder. The seed script does this for 8+ series x 10+ episodes on two cores.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderDemoEpisode, transcodeToHls } from '../services/transcoder/src/index.ts';

// The demo catalog (services/catalog/src/demo-catalog.ts) uses 20 s episodes at 480x854.
const EPISODE_SECONDS = 20;
const EPISODES = 3;

// CPU seconds used by finished child processes (ffmpeg): unlike wall time, a busy neighbour on
// the shared cores barely moves it. /proc reports in USER_HZ, which Linux fixes at 100.
function childCpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

async function measure(run: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const [start, cpu] = [performance.now(), childCpuSeconds()];
  await run();
  return { wall: (performance.now() - start) / 1000, cpu: childCpuSeconds() - cpu };
}

const work = await mkdtemp(join(tmpdir(), 'transcode-demo-bench-'));
const rounds = [] as { render: { wall: number; cpu: number }; transcode: { wall: number; cpu: number } }[];
for (let i = 1; i <= EPISODES; i++) {
  const outFile = join(work, `ep${i}.mp4`);
  const render = await measure(() =>
    renderDemoEpisode({ outFile, seriesTitle: 'The Midnight Contract', episodeNumber: i, seconds: EPISODE_SECONDS, hue: i * 40 }),
  );
  const transcode = await measure(() => transcodeToHls({ input: outFile, outputDir: join(work, `ep${i}`) }));
  rounds.push({ render, transcode });
}
await rm(work, { recursive: true, force: true });

// The first episode pays for a cold page cache and fluent-ffmpeg's one-off capability probe.
const best = (pick: (r: (typeof rounds)[number]) => number) => Math.min(...rounds.slice(1).map(pick));
const render = best((r) => r.render.wall);
const transcode = best((r) => r.transcode.wall);
const cpu = best((r) => r.render.cpu + r.transcode.cpu);
const wall = render + transcode;
console.log(
  `transcode-demo: render ${render.toFixed(1)} s + transcode ${transcode.toFixed(1)} s = ${wall.toFixed(1)} s per ${EPISODE_SECONDS} s episode` +
    ` = ${(wall / EPISODE_SECONDS).toFixed(2)} x realtime (goal <= 0.5); ffmpeg cpu ${cpu.toFixed(1)} s`,
);
