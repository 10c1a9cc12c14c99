import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClip } from '@cliffhanger/platform/testing';
import { ffmpegTools } from '@cliffhanger/transcoder';
import { checkWebVtt } from '../src/index.ts';
import { withSubtitleRenditions } from '../src/subtitle-playlists.ts';
import { adminOf, startCatalogSite, type Site } from './site.ts';

const SPANISH = 'WEBVTT\n\n1\n00:00:00.200 --> 00:00:01.500\n¡No firmes ese contrato!\n\n2\n00:00:01.600 --> 00:00:02.900 line:80%\nYa es demasiado tarde.\n';
const ENGLISH = 'WEBVTT\n\n00:00.200 --> 00:01.500\nDo not sign that contract!\n';
const FRENCH = '\uFEFFWEBVTT - Français\r\nKind: subtitles\r\n\r\nNOTE traduit par Lena\r\n\r\n00:00:00.200 --> 00:00:01.500\r\nNe signe pas ce contrat !\r\n';

/** A master playlist read the way a player reads it: its tags with their attributes, and the URI after each variant. */
function parseMaster(text: string) {
  const lines = text.split('\n');
  const attributesOf = (line: string): Record<string, string> =>
    Object.fromEntries([...line.slice(line.indexOf(':') + 1).matchAll(/([A-Z0-9-]+)=("[^"]*"|[^,]*)/g)].map(([, key, value]) => [key!, value!.replace(/^"|"$/g, '')]));
  return {
    lines,
    subtitles: lines.filter((line) => line.startsWith('#EXT-X-MEDIA:') && attributesOf(line).TYPE === 'SUBTITLES').map(attributesOf),
    variants: lines.flatMap((line, i): Record<string, string>[] => (line.startsWith('#EXT-X-STREAM-INF:') ? [{ ...attributesOf(line), uri: lines[i + 1]! }] : [])),
  };
}

describe('WebVTT checks', () => {
  it('accept cues with identifiers, settings, notes, styles, hours, a byte-order mark and CRLF lines', () => {
    expect(checkWebVtt(Buffer.from(SPANISH))).toEqual({ cues: 2 });
    expect(checkWebVtt(Buffer.from(ENGLISH))).toEqual({ cues: 1 });
    expect(checkWebVtt(Buffer.from(FRENCH))).toEqual({ cues: 1 });
    const styled = 'WEBVTT\n\nSTYLE\n::cue { color: yellow }\n\nNOTE\nsplit\nover lines\n\n01:00:00.000 --> 01:00:02.000 align:start\n<v Lena>Hola</v>\n\n01:00:00.000 --> 01:00:03.000\nOverlapping\n';
    expect(checkWebVtt(Buffer.from(styled))).toEqual({ cues: 2 });
  });

  it.each([
    ['an empty file', '', /empty/],
    ['SubRip', '1\n00:00:01,000 --> 00:00:02,000\nHello\n', /first line must be WEBVTT/],
    ['a header glued to its first cue', 'WEBVTT\n00:00:01.000 --> 00:00:02.000\nHi\n', /line 2: leave a blank line/],
    ['a comma in a timestamp', 'WEBVTT\n\n00:00:01,000 --> 00:00:02.000\nHi\n', /line 3: .* is not a cue timing/],
    ['61 seconds', 'WEBVTT\n\n00:00:61.000 --> 00:01:02.000\nHi\n', /line 3: .* is not a cue timing/],
    ['a cue that ends before it starts', 'WEBVTT\n\n00:00:05.000 --> 00:00:02.000\nHi\n', /line 3: the cue ends before it starts/],
    ['cues out of order', 'WEBVTT\n\n00:00:05.000 --> 00:00:06.000\nB\n\n00:00:01.000 --> 00:00:02.000\nA\n', /line 6: cues must be in order/],
    ['a missing blank line between cues', 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nA\n00:00:03.000 --> 00:00:04.000\nB\n', /line 5: cue text cannot hold "-->"/],
    ['text where a cue should be', 'WEBVTT\n\nHello there\nGeneral\n', /line 3: expected a cue timing/],
    ['a cue a day in', 'WEBVTT\n\n25:00:00.000 --> 25:00:01.000\nLate\n', /more than 24 hours/],
    ['no cues', 'WEBVTT\n\nNOTE nothing yet\n', /no cues/],
    ['a style after a cue', 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nA\n\nSTYLE\n::cue {}\n', /line 6: STYLE blocks must come before/],
  ])('refuse %s, naming the problem', (_name, text, message) => {
    expect(() => checkWebVtt(Buffer.from(text))).toThrow(message);
  });

  it('refuse text that is not UTF-8', () => {
    const latin1 = Buffer.from('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nNe signe pas, Hélène\n', 'latin1');
    expect(() => checkWebVtt(latin1)).toThrow(/not UTF-8/);
  });
});

describe('the master playlist with subtitles', () => {
  // What a transcoder writes, with an audio group (a ladder may share one audio rendition).
  const stored = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    '#EXT-X-INDEPENDENT-SEGMENTS',
    '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="audio",DEFAULT=YES,AUTOSELECT=YES,URI="audio/index.m3u8"',
    '#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=240x426,CODECS="avc1.64000d,mp4a.40.2",AUDIO="aud"',
    '240p/index.m3u8',
    '#EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=480x854,CODECS="avc1.64001e,mp4a.40.2",AUDIO="aud"',
    '480p/index.m3u8',
    '',
  ].join('\n');
  const renditions = [
    { language: 'es', name: 'Español', uri: 'subtitles-es.m3u8' },
    { language: 'fr', name: 'Français', uri: 'subtitles-fy.m3u8' },
  ];

  it('lists each language as a SUBTITLES rendition and points every variant at the group, keeping the rest', () => {
    const master = parseMaster(withSubtitleRenditions(stored, renditions));
    expect(master.subtitles).toEqual([
      { TYPE: 'SUBTITLES', 'GROUP-ID': 'subs', LANGUAGE: 'es', NAME: 'Español', DEFAULT: 'NO', AUTOSELECT: 'YES', FORCED: 'NO', URI: 'subtitles-es.m3u8' },
      { TYPE: 'SUBTITLES', 'GROUP-ID': 'subs', LANGUAGE: 'fr', NAME: 'Français', DEFAULT: 'NO', AUTOSELECT: 'YES', FORCED: 'NO', URI: 'subtitles-fy.m3u8' },
    ]);
    expect(master.variants).toMatchObject([
      { BANDWIDTH: '400000', AUDIO: 'aud', SUBTITLES: 'subs', uri: '240p/index.m3u8' },
      { BANDWIDTH: '900000', AUDIO: 'aud', SUBTITLES: 'subs', uri: '480p/index.m3u8' },
    ]);
    // Renditions come before the variants that use them; the audio group is untouched.
    expect(master.lines.findIndex((line) => line.includes('TYPE=SUBTITLES'))).toBeLessThan(master.lines.findIndex((line) => line.startsWith('#EXT-X-STREAM-INF')));
    expect(master.lines).toContain(stored.split('\n')[3]);
  });

  it('renders the same whether or not the stored master already lists subtitles', () => {
    const once = withSubtitleRenditions(stored, renditions);
    expect(withSubtitleRenditions(once, renditions)).toBe(once);
    expect(withSubtitleRenditions(once, [])).toBe(stored);
  });
});

describe('subtitles through the admin API', () => {
  let site: Site;
  let clip: Buffer;
  let episodeId: string;
  const onDisk = (key: string) => path.join(site.platform.config.dataDir, 'media', key);
  const vttFilesOf = (id: string) => fs.readdirSync(onDisk(`episodes/${id}`)).filter((name) => name.endsWith('.vtt')).sort();
  const putSubtitles = (id: string, lang: string, body: Buffer | string, contentType = 'text/vtt') =>
    site.admin('PUT', `/api/admin/episodes/${id}/subtitles/${lang}`, { raw: Buffer.from(body), headers: { 'content-type': contentType } });
  const episode = async (id: string) => (await site.call('GET', `/api/video/episode?id=${id}`)).data;
  const get = (url: string | URL) => fetch(new URL(url, site.url));

  beforeAll(async () => {
    [site, clip] = await Promise.all([startCatalogSite(), makeClip(ffmpegTools(), { seconds: 3 })]);
    const video = await site.series({ title: 'Lost in Translation', freeEpisodes: 3 });
    episodeId = (await site.upload(video, clip)).data.id;
    expect((await site.settled(episodeId)).status).toBe('ready');
  }, 120_000);

  afterAll(() => site?.close());

  it('an episode without subtitles answers an empty list and its master as the transcoder wrote it', async () => {
    const { subtitles, playback } = await episode(episodeId);
    expect(subtitles).toEqual([]);
    const master = await (await get(playback.url)).text();
    expect(master).toBe(fs.readFileSync(onDisk(`episodes/${episodeId}/hls/master.m3u8`), 'utf8'));
    expect(master).not.toContain('SUBTITLES');
  });

  it('stores an upload beside the ladder and lists it in the episode, labelled in its own language', async () => {
    const answer = await putSubtitles(episodeId, 'es', SPANISH);
    expect(answer.code).toBe(200);
    expect(answer.data).toMatchObject({ episodeId, lang: 'es', label: 'Español', cues: 2, bytes: Buffer.byteLength(SPANISH) });
    expect((await putSubtitles(episodeId, 'fy', FRENCH)).data).toMatchObject({ lang: 'fy', label: 'Français', cues: 1 });
    expect((await putSubtitles(episodeId, 'en', ENGLISH)).data).toMatchObject({ lang: 'en', label: 'English' });

    const { subtitles, playback } = await episode(episodeId);
    const grant = playback.url.split('/')[3];
    // In the storefront's language order, each a grant-protected URL of its WebVTT file.
    expect(subtitles.map((subtitle: { lang: string; label: string }) => [subtitle.lang, subtitle.label])).toEqual([
      ['en', 'English'],
      ['es', 'Español'],
      ['fy', 'Français'],
    ]);
    const spanish = subtitles[1];
    expect(spanish.url).toMatch(new RegExp(`^/media/g/${grant}/episodes/${episodeId}/subtitles-es-[0-9a-f]+\\.vtt$`));
    const file = await get(spanish.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/vtt; charset=utf-8');
    expect(await file.text()).toBe(SPANISH);
    expect((await site.admin('GET', `/api/admin/episodes/${episodeId}/subtitles`)).data.map((row: { lang: string }) => row.lang)).toEqual(['en', 'es', 'fy']);
  });

  it('lists the subtitles in the master playlist, each with a one-segment playlist of the WebVTT file as long as the episode', async () => {
    const { playback, subtitles, durationSeconds } = await episode(episodeId);
    const answer = await get(playback.url);
    expect(answer.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(answer.headers.get('cache-control')).toBe('private, max-age=60');
    const master = parseMaster(await answer.text());
    expect(master.subtitles.map((rendition) => [rendition.LANGUAGE, rendition.NAME, rendition['GROUP-ID']])).toEqual([
      ['en', 'English', 'subs'],
      ['es', 'Español', 'subs'],
      ['fr', 'Français', 'subs'],
    ]);
    expect(master.variants.length).toBeGreaterThanOrEqual(2);
    for (const variant of master.variants) {
      expect(variant.SUBTITLES).toBe('subs');
      expect((await get(new URL(variant.uri!, site.url + playback.url))).status).toBe(200);
    }

    const spanishUrl = new URL(master.subtitles[1]!.URI!, site.url + playback.url);
    const playlist = await get(spanishUrl);
    expect(playlist.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    const lines = (await playlist.text()).trim().split('\n');
    expect(lines).toEqual([
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      `#EXT-X-TARGETDURATION:${durationSeconds}`,
      '#EXT-X-MEDIA-SEQUENCE:0',
      '#EXT-X-PLAYLIST-TYPE:VOD',
      `#EXTINF:${durationSeconds.toFixed(3)},`,
      expect.stringMatching(/^\.\.\/subtitles-es-[0-9a-f]+\.vtt$/),
      '#EXT-X-ENDLIST',
    ]);
    // The segment resolves, under the same grant, to the very file Episode.subtitles names.
    const segment = new URL(lines[6]!, spanishUrl);
    expect(segment.pathname).toBe(subtitles.find((subtitle: { lang: string }) => subtitle.lang === 'es').url);
    expect(await (await get(segment)).text()).toBe(SPANISH);
    expect((await get(new URL('subtitles-pt.m3u8', site.url + playback.url))).status).toBe(404);
  });

  it("serves subtitles only under a grant for their own episode", async () => {
    const { subtitles } = await episode(episodeId);
    const url: string = subtitles[0].url;
    const otherGrant = (await site.call('GET', `/api/video/episode?id=${episodeId}`)).data.playback.url.split('/')[3];
    expect((await get(url.replace(/^\/media\/g\/[^/]+/, '/media/g/garbage'))).status).toBe(403);
    expect((await get(url.replace(/^\/media\/g\/[^/]+\//, '/media/'))).status).toBe(404);
    expect((await get(url.replace(/\/g\/[^/]+\//, `/g/${otherGrant}/`))).status).toBe(200);
  });

  it('replaces a language under a new URL and removes the old file', async () => {
    const before = (await episode(episodeId)).subtitles.find((subtitle: { lang: string }) => subtitle.lang === 'es').url;
    const changed = SPANISH.replace('¡No firmes ese contrato!', '¡No lo firmes!');
    expect((await putSubtitles(episodeId, 'es', changed)).data).toMatchObject({ lang: 'es', bytes: Buffer.byteLength(changed) });
    const after = (await episode(episodeId)).subtitles.find((subtitle: { lang: string }) => subtitle.lang === 'es').url;
    expect(after).not.toBe(before);
    expect(await (await get(after)).text()).toBe(changed);
    expect((await get(before)).status).toBe(404);
    expect(vttFilesOf(episodeId)).toHaveLength(3);
  });

  it('refuses bad uploads with a clear message, keeping what was there and storing nothing', async () => {
    const { subtitles: before } = await episode(episodeId);
    const filesBefore = vttFilesOf(episodeId);
    const refusals: [Promise<Awaited<ReturnType<typeof putSubtitles>>>, number, RegExp][] = [
      [putSubtitles(episodeId, 'es', '1\n00:00:01,000 --> 00:00:02,000\nHola\n', 'application/x-subrip'), 422, /first line must be WEBVTT/],
      [putSubtitles(episodeId, 'es', 'WEBVTT\n\n00:00:03.000 --> 00:00:01.000\nHola\n'), 422, /line 3: the cue ends before it starts/],
      [putSubtitles(episodeId, 'es', Buffer.from('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nEspaña\n', 'latin1')), 422, /not UTF-8/],
      [putSubtitles(episodeId, 'es', ''), 422, /empty/],
      [putSubtitles(episodeId, 'es', JSON.stringify({ vtt: SPANISH }), 'application/json'), 422, /request body/],
      [putSubtitles(episodeId, 'xx', SPANISH), 422, /en, es, fy, dy, pt/],
      [putSubtitles(episodeId, 'fr', SPANISH), 422, /en, es, fy, dy, pt/],
      [putSubtitles('no-such-episode', 'es', SPANISH), 404, /No such episode/],
    ];
    for (const [answer, code, message] of refusals) {
      const { status, code: got, message: text } = await answer;
      expect({ status, code: got }).toEqual({ status: 200, code });
      expect(text).toMatch(message);
    }
    const huge = `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${'a'.repeat(1024 ** 2)}\n`;
    const tooLarge = await putSubtitles(episodeId, 'es', huge);
    expect([tooLarge.status, tooLarge.code]).toEqual([413, 413]);
    expect((await site.call('PUT', `/api/admin/episodes/${episodeId}/subtitles/es`, { raw: Buffer.from(SPANISH), headers: { 'content-type': 'text/vtt' } })).code).toBe(401);

    expect((await episode(episodeId)).subtitles.map((subtitle: { lang: string }) => subtitle.lang)).toEqual(before.map((subtitle: { lang: string }) => subtitle.lang));
    expect(vttFilesOf(episodeId)).toEqual(filesBefore);
    // Nothing stored: no file in incoming/, nor in the resumable uploads' folder, which the catalog makes at start.
    expect(fs.readdirSync(path.join(site.platform.config.dataDir, 'incoming'), { recursive: true }).filter((name) => name !== 'tus')).toEqual([]);
  });

  it('deletes a language: gone from the episode, the master playlist and storage', async () => {
    const french = (await episode(episodeId)).subtitles.find((subtitle: { lang: string }) => subtitle.lang === 'fy').url;
    const removed = await site.admin('DELETE', `/api/admin/episodes/${episodeId}/subtitles/fy`);
    expect([removed.code, removed.data]).toEqual([200, null]);
    const { subtitles, playback } = await episode(episodeId);
    expect(subtitles.map((subtitle: { lang: string }) => subtitle.lang)).toEqual(['en', 'es']);
    expect(parseMaster(await (await get(playback.url)).text()).subtitles.map((rendition) => rendition.LANGUAGE)).toEqual(['en', 'es']);
    expect((await get(french)).status).toBe(404);
    expect((await get(new URL('subtitles-fy.m3u8', site.url + playback.url))).status).toBe(404);

    const again = await site.admin('DELETE', `/api/admin/episodes/${episodeId}/subtitles/fy`);
    expect([again.code, again.message]).toEqual([404, 'This episode has no Français subtitles']);
    for (const lang of ['en', 'es']) expect((await site.admin('DELETE', `/api/admin/episodes/${episodeId}/subtitles/${lang}`)).code).toBe(200);
    const bare = await episode(episodeId);
    expect(bare.subtitles).toEqual([]);
    expect(await (await get(bare.playback.url)).text()).not.toContain('SUBTITLES');
    expect(vttFilesOf(episodeId)).toEqual([]);
  });

  it('takes subtitles for an episode not transcoded yet, and lists them once it is ready', async () => {
    const video = await site.series({ title: 'Subtitled in Advance', freeEpisodes: 3 });
    await adminOf(site).planEpisodes(video, 1);
    const planned = `${video}-ep1`;
    expect((await putSubtitles(planned, 'dy', 'WEBVTT\n\n00:00:00.500 --> 00:00:02.000\nUnterschreib das nicht!\n')).data).toMatchObject({ lang: 'dy', label: 'Deutsch' });
    expect((await putSubtitles(planned, 'pt', 'WEBVTT\n\n00:00:00.500 --> 00:00:02.000\nNão assines isso!\n')).code).toBe(200);
    await site.upload(video, clip, '?number=1');
    expect((await site.settled(planned)).status).toBe('ready');
    const { subtitles, playback } = await episode(planned);
    expect(subtitles.map((subtitle: { lang: string; label: string }) => [subtitle.lang, subtitle.label])).toEqual([
      ['dy', 'Deutsch'],
      ['pt', 'Português'],
    ]);
    const master = parseMaster(await (await get(playback.url)).text());
    expect(master.subtitles.map((rendition) => [rendition.LANGUAGE, rendition.NAME])).toEqual([
      ['de', 'Deutsch'],
      ['pt', 'Português'],
    ]);
    expect(master.variants.every((variant) => variant.SUBTITLES === 'subs')).toBe(true);
  }, 60_000);
});
