import { describe, expect, it } from 'vitest';
import { checkWebVtt, SUBTITLE_LANGS } from '@cliffhanger/catalog';
import { demoCatalog, DEMO_SUBTITLE_LANGS, demoSubtitles } from '../src/index.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const cueTimes = (vtt: string) =>
  [...vtt.matchAll(/^(\d\d):(\d\d):(\d\d)\.(\d{3}) --> (\d\d):(\d\d):(\d\d)\.(\d{3})$/gm)].map((match) => {
    const seconds = (at: number) => Number(match[at]) * 3600 + Number(match[at + 1]) * 60 + Number(match[at + 2]) + Number(match[at + 3]) / 1000;
    return [seconds(1), seconds(5)] as const;
  });
const textsOf = (vtt: string) => vtt.split('\n\n').slice(1).map((cue) => cue.split('\n').slice(2).join('\n'));

describe('the demo subtitles', () => {
  it('come in every interface language', () => {
    expect([...DEMO_SUBTITLE_LANGS].sort()).toEqual([...SUBTITLE_LANGS].sort());
  });

  it('are valid WebVTT whose cues fit inside each demo episode, the same moments in every language', () => {
    for (const [seriesIndex, series] of demoCatalog.series.entries()) {
      for (let episodeNumber = 1; episodeNumber <= series.episodes; episodeNumber++) {
        const options = { seriesIndex, episodeNumber, seconds: demoCatalog.episodeSeconds };
        const files = DEMO_SUBTITLE_LANGS.map((lang) => demoSubtitles(lang, options));
        for (const vtt of files) {
          expect(checkWebVtt(Buffer.from(vtt))).toEqual({ cues: 4 });
          for (const [start, end] of cueTimes(vtt)) {
            expect(start).toBeGreaterThanOrEqual(0);
            expect(end).toBeLessThanOrEqual(demoCatalog.episodeSeconds);
          }
          expect(cueTimes(vtt)).toEqual(cueTimes(files[0]!));
        }
      }
    }
  });

  it('are translated, not copied: each language says each line its own way', () => {
    const options = { seriesIndex: 0, episodeNumber: 3, seconds: 20 };
    const texts = Object.fromEntries(DEMO_SUBTITLE_LANGS.map((lang) => [lang, textsOf(demoSubtitles(lang, options))]));
    expect(texts.en![0]).toBe('Episode 3');
    expect(texts.es![0]).toBe('Episodio 3');
    expect(texts.fy![0]).toBe('Épisode 3');
    expect(texts.dy![0]).toBe('Folge 3');
    expect(texts.pt![0]).toBe('Episódio 3');
    for (let cue = 1; cue < 4; cue++) expect(new Set(DEMO_SUBTITLE_LANGS.map((lang) => texts[lang]![cue])).size).toBe(5);
  });

  it('fit a two-second test episode with one cue', () => {
    const vtt = demoSubtitles('es', { seriesIndex: 0, episodeNumber: 1, seconds: 2 });
    expect(checkWebVtt(Buffer.from(vtt))).toEqual({ cues: 1 });
    expect(cueTimes(vtt)).toEqual([[0.3, 1.7]]);
  });
});
