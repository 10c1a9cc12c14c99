// npm run ingest -- FILE --series "Title" [--episode N] [--title "Episode title"] [--description TEXT]
//                    [--tags a,b] [--free N] [--price COINS] [--cover IMAGE] [--subtitles LANG=FILE ...] [--server URL]
// npm run ingest -- --episode-id EPISODE_ID --subtitles LANG=FILE [--subtitles LANG=FILE ...] [--server URL]
// npm run ingest -- --retranscode EPISODE_ID [--server URL]
//
// Adds FILE as an episode of the series (created when no series has that title) and waits until it
// is transcoded; or, with --retranscode, queues a failed episode's stored file again and waits.
// Subtitles (WebVTT, LANG one of en, es, fy = French, dy = German, pt) come with --subtitles, once
// per language, and from files beside FILE named like it with a .LANG.vtt suffix (ep1.mp4 →
// ep1.es.vtt), --subtitles winning for its language; with --episode-id they are added to an episode
// that exists, replacing its file in that language. Every subtitle file is checked before anything is
// uploaded. With
// a server running at --server (default http://HOST:PORT) it goes through the admin API and needs
// ADMIN_TOKEN; with none running it opens the data directory (or DATABASE_URL) itself and
// transcodes in this process.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { composeTarget, createPlatform, loadConfig, startPlatform, stopPlatform, systemContext } from '@cliffhanger/platform';
import { checkWebVtt, isSubtitleLang, SUBTITLE_LANGS, type AdminEpisode, type AdminSubtitle, type AdminVideo, type SubtitleLang } from '@cliffhanger/catalog';
import type { LocalCatalogClient } from '@cliffhanger/catalog';
import { registry } from '../gateway/src/registry.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    series: { type: 'string' },
    episode: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    tags: { type: 'string' },
    free: { type: 'string' },
    price: { type: 'string' },
    cover: { type: 'string' },
    server: { type: 'string' },
    retranscode: { type: 'string' },
    subtitles: { type: 'string', multiple: true },
    'episode-id': { type: 'string' },
  },
});

function fail(message: string): never {
  console.error(`ingest: ${message}`);
  process.exit(1);
}

const retranscode = values.retranscode;
const subtitlesFor = values['episode-id'];
const file = positionals[0];
if (retranscode !== undefined) {
  if (!retranscode || file || subtitlesFor !== undefined || values.subtitles) fail('usage: npm run ingest -- --retranscode EPISODE_ID [--server URL]');
} else if (subtitlesFor !== undefined) {
  if (!subtitlesFor || file || !values.subtitles) fail('usage: npm run ingest -- --episode-id EPISODE_ID --subtitles LANG=FILE [--subtitles LANG=FILE ...] [--server URL]');
} else {
  if (!file || !values.series)
    fail('usage: npm run ingest -- FILE --series "Title" [--episode N] [--title T] [--description D] [--tags a,b] [--free N] [--price COINS] [--cover IMAGE] [--subtitles LANG=FILE ...] [--server URL]\n' +
      '       npm run ingest -- --episode-id EPISODE_ID --subtitles LANG=FILE [--subtitles LANG=FILE ...] [--server URL]\n' +
      '       npm run ingest -- --retranscode EPISODE_ID [--server URL]');
  if (!fs.existsSync(file)) fail(`no such file: ${file}`);
}

/** The subtitle files to upload, by language: FILE's .LANG.vtt siblings, then --subtitles; each checked here first. */
function subtitleFiles(): [SubtitleLang, string][] {
  const chosen = new Map<SubtitleLang, string>();
  if (file) {
    const stem = path.join(path.dirname(file), path.basename(file, path.extname(file)));
    for (const lang of SUBTITLE_LANGS) if (fs.existsSync(`${stem}.${lang}.vtt`)) chosen.set(lang, `${stem}.${lang}.vtt`);
  }
  for (const entry of values.subtitles ?? []) {
    const cut = entry.indexOf('=');
    const [lang, name] = [entry.slice(0, cut), entry.slice(cut + 1)];
    if (cut < 0 || !isSubtitleLang(lang)) fail(`--subtitles ${entry}: write LANG=FILE, LANG one of ${SUBTITLE_LANGS.join(', ')} (fy is French, dy German)`);
    if (!fs.existsSync(name)) fail(`--subtitles ${entry}: no such file`);
    chosen.set(lang, name);
  }
  for (const name of chosen.values()) {
    try {
      checkWebVtt(fs.readFileSync(name));
    } catch (error) {
      fail(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return [...chosen];
}
const subtitles = subtitleFiles();
const reportSubtitles = (added: AdminSubtitle) => console.log(`subtitles ${added.lang} (${added.label}): ${added.cues} cue${added.cues === 1 ? '' : 's'}`);
const whole = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number`);
  return Number(value);
};
const series = {
  title: values.series!,
  description: values.description,
  tags: values.tags?.split(',').map((tag) => tag.trim()).filter(Boolean),
  freeEpisodes: whole('free', values.free),
  priceCoins: whole('price', values.price),
};
const episode = { number: whole('episode', values.episode), title: values.title };

const config = loadConfig();
const server = values.server ?? config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`;
const serverUp = await fetch(`${server}/healthz`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);

/** Shows progress until the episode is ready or failed, then prints the outcome; answers the exit code. */
async function follow(state: AdminEpisode, look: (id: string) => Promise<AdminEpisode>): Promise<number> {
  while (state.status !== 'ready' && state.status !== 'failed') {
    process.stdout.write(`\r  ${state.status} ${state.progress}%   `);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    state = await look(state.id);
  }
  process.stdout.write('\n');
  if (state.status === 'failed') {
    console.error(`ingest: episode ${state.number} failed: ${state.error}`);
    console.error(`ingest: once the cause is fixed, queue it again: npm run ingest -- --retranscode ${state.id}`);
    return 1;
  }
  console.log(`episode ${state.number} (${state.id}) is ready: /videos/${state.videoId}`);
  return 0;
}

if (serverUp) {
  if (!config.ADMIN_TOKEN) fail(`a server answers at ${server}: set ADMIN_TOKEN to the one it runs with`);
  const call = async <T>(method: string, route: string, body?: BodyInit, contentType = 'application/json'): Promise<T> => {
    const response = await fetch(server + route, {
      method,
      headers: { authorization: `Bearer ${config.ADMIN_TOKEN}`, 'content-type': contentType },
      body,
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
    const envelope = (await response.json()) as { code: number; message: string; data: T };
    if (envelope.code !== 200) fail(`${method} ${route}: ${envelope.message}`);
    return envelope.data;
  };
  const look = (id: string) => call<AdminEpisode>('GET', `/api/admin/episodes/${encodeURIComponent(id)}`);
  const stream = (name: string) => Readable.toWeb(fs.createReadStream(name)) as ReadableStream;
  const addSubtitles = async (episodeId: string) => {
    for (const [lang, name] of subtitles)
      reportSubtitles(await call<AdminSubtitle>('PUT', `/api/admin/episodes/${encodeURIComponent(episodeId)}/subtitles/${lang}`, stream(name), 'text/vtt'));
  };
  if (subtitlesFor) {
    await addSubtitles(subtitlesFor);
  } else if (retranscode) {
    const state = await call<AdminEpisode>('POST', `/api/admin/episodes/${encodeURIComponent(retranscode)}/retranscode`);
    console.log(`queued episode ${state.number} (${state.id}) again; transcoding`);
    process.exitCode = await follow(state, look);
  } else {
    const { video, created } = await call<{ video: AdminVideo; created: boolean }>('POST', '/api/admin/videos', JSON.stringify(series));
    console.log(`${created ? 'created' : 'found'} series "${video.title}" (${video.id})`);
    if (values.cover) await call('PUT', `/api/admin/videos/${video.id}/cover`, stream(values.cover), 'image/jpeg');
    const query = new URLSearchParams(Object.entries(episode).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
    const state = await call<AdminEpisode>('POST', `/api/admin/videos/${video.id}/episodes?${query}`, stream(file!), 'application/octet-stream');
    console.log(`uploaded episode ${state.number} (${state.id}); transcoding`);
    await addSubtitles(state.id);
    process.exitCode = await follow(state, look);
  }
} else {
  // No server: this process is the whole site for as long as the transcode takes.
  const platform = await createPlatform({ ...config, LOG_LEVEL: 'warn' });
  const catalog = (await composeTarget(platform, registry)).instances.get('catalog')!.client as LocalCatalogClient;
  await startPlatform(platform);
  const where = config.DATABASE_URL ? 'DATABASE_URL' : config.dataDir;
  const addSubtitles = async (episodeId: string) => {
    for (const [lang, name] of subtitles) reportSubtitles(await catalog.admin.putSubtitles(episodeId, lang, name));
  };
  try {
    if (subtitlesFor) {
      await addSubtitles(subtitlesFor);
    } else if (retranscode) {
      const state = await catalog.admin.retranscode(retranscode);
      console.log(`queued episode ${state.number} (${state.id}) again in ${where}; transcoding here`);
      process.exitCode = await follow(state, catalog.admin.episode);
    } else {
      const { video, created } = await catalog.admin.createSeries(series);
      console.log(`${created ? 'created' : 'found'} series "${video.title}" (${video.id}) in ${where}`);
      if (values.cover) await catalog.admin.setCover(video.id, values.cover);
      const state = await catalog.admin.addEpisode(systemContext('ingest'), video.id, { file: file!, ...episode });
      console.log(`stored episode ${state.number} (${state.id}); transcoding here`);
      await addSubtitles(state.id);
      process.exitCode = await follow(state, catalog.admin.episode);
    }
  } catch (error) {
    // The admin's refusals (no such episode, not failed) are answers for the operator, not crashes.
    console.error(`ingest: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  } finally {
    await stopPlatform(platform);
  }
}
