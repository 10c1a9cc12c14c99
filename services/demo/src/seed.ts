import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { systemContext, type Logger } from '@cliffhanger/platform';
import type { CatalogAdmin } from '@cliffhanger/catalog';
import { demoCatalog, type DemoCatalog } from './demo-catalog.ts';
import { renderDemoCover, renderDemoEpisode } from './demo-source.ts';
import { DEMO_SUBTITLE_LANGS, demoSubtitles } from './demo-subtitles.ts';

// Sources are rendered just ahead of the transcoder: a longer backlog would only take the cores
// the first episodes need to become playable.
const MAX_WAITING_UPLOADS = 2;

export interface DemoSeedDeps {
  admin: CatalogAdmin;
  logger: Logger;
  signal: AbortSignal;
  catalog?: DemoCatalog;
  /** Only the first this many episodes of each series (DEMO_EPISODES); all of them when unset. */
  episodes?: number;
}

/**
 * Fills an empty catalog with the demo series through the real upload path, episode 1 of every
 * series first, then every episode 2, and so on. Resumable: a restart continues where the last
 * run stopped; once finished (or when the catalog had content of its own) it never runs again.
 */
export async function seedDemoCatalog(deps: DemoSeedDeps): Promise<void> {
  const { admin, logger, signal } = deps;
  const catalog = deps.catalog ?? demoCatalog;
  const state = await admin.demoSeedState();
  if (state === 'finished') return;
  if (state === 'absent' && (await admin.hasVideos())) {
    logger.info('the catalog has content of its own: no demo catalog');
    return;
  }
  await admin.markDemoSeed(false);
  const work = await mkdtemp(join(tmpdir(), 'cliffhanger-demo-'));
  try {
    await admin.ensureTags(catalog.tags);
    for (const series of catalog.series) {
      const { video } = await admin.createSeries(series);
      await admin.planEpisodes(video.id, series.episodes);
      if (video.cover) continue;
      const cover = join(work, `${series.id}.jpg`);
      await renderDemoCover({ outFile: cover, title: series.title, hue: series.hue });
      await admin.setCover(video.id, cover);
    }
    for (const [position, section] of catalog.sections.entries()) await admin.putSection(section.id, { ...section, position });
    logger.info({ series: catalog.series.length }, 'demo catalog: series in place, rendering episodes');

    const longest = Math.max(...catalog.series.map((series) => series.episodes));
    const last = Math.min(longest, deps.episodes ?? longest);
    for (let number = 1; number <= last; number++) {
      for (const series of catalog.series.filter((s) => s.episodes >= number)) {
        if (signal.aborted) return;
        const episodeId = `${series.id}-ep${number}`;
        if ((await admin.episodeStatus(episodeId)) !== 'planned') continue;
        // Subtitles in every interface language, in place before the episode is ready to play.
        const lines = { seriesIndex: catalog.series.indexOf(series), episodeNumber: number, seconds: catalog.episodeSeconds };
        for (const lang of DEMO_SUBTITLE_LANGS) {
          const subtitles = join(work, `${episodeId}.${lang}.vtt`);
          await writeFile(subtitles, demoSubtitles(lang, lines));
          await admin.putSubtitles(episodeId, lang, subtitles);
          await rm(subtitles, { force: true });
        }
        while ((await admin.countPending()) >= MAX_WAITING_UPLOADS) await sleep(1_000, undefined, { signal });
        const file = join(work, `${series.id}-${number}.mp4`);
        await renderDemoEpisode({
          outFile: file,
          seriesTitle: series.title,
          episodeNumber: number,
          seconds: catalog.episodeSeconds,
          width: catalog.width,
          height: catalog.height,
          hue: series.hue,
        });
        await admin.addEpisode(systemContext('demo-catalog'), series.id, { file, number });
        await rm(file, { force: true });
      }
    }
    // A shortened demo is not finished: a later start without the limit renders the rest.
    if (last < longest) {
      logger.info({ episodes: last }, 'demo catalog: the first episodes of each series uploaded (DEMO_EPISODES)');
      return;
    }
    await admin.markDemoSeed(true);
    logger.info('demo catalog: every episode uploaded');
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
