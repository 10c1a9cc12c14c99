import { useEffect, useState, type RefObject } from 'react';
import type { Subtitle } from '../../api/types';
import { useI18n } from '../../i18n/I18nProvider';
import { LANGUAGES } from '../../i18n/languages';

/** "auto" follows the interface language; "off" or a language code is the viewer's own pick, kept across episodes. */
type SubtitleChoice = 'auto' | 'off' | string;

// Kept apart from the values every API call carries (lib/storage.ts): only the player reads it.
const CHOICE_KEY = 'cliffhanger.subtitles';

function readChoice(): SubtitleChoice {
  try {
    return window.localStorage.getItem(CHOICE_KEY) ?? 'auto';
  } catch {
    return 'auto';
  }
}

function keepChoice(choice: SubtitleChoice): void {
  try {
    window.localStorage.setItem(CHOICE_KEY, choice);
  } catch {
    // Without storage the choice lasts as long as the page.
  }
}

/** The BCP 47 tag of an interface language code (fy → fr, dy → de), for <track srclang> and lang attributes. */
export const htmlLangOf = (lang: string) => LANGUAGES.find((language) => language.code === lang)?.htmlLang ?? lang;

/** The viewer's pick when this episode has it, else the interface language's track, else none. */
export function pickSubtitle(subtitles: Subtitle[], choice: SubtitleChoice, interfaceLanguage: string): Subtitle | null {
  if (choice === 'off') return null;
  return subtitles.find((subtitle) => subtitle.lang === choice) ?? subtitles.find((subtitle) => subtitle.lang === interfaceLanguage) ?? null;
}

// Cue text may carry WebVTT markup (<i>, <v Name>, entities); the browser's own parse of it, as text.
const textOfCue = (cue: TextTrackCue) => {
  const vtt = cue as VTTCue;
  return (typeof vtt.getCueAsHTML === 'function' ? vtt.getCueAsHTML().textContent : vtt.text) ?? '';
};

/**
 * The episode's subtitles as <track> elements of the player's <video> (`data-subtitle={lang}`):
 * the chosen one is loaded in "hidden" mode, so the browser parses and times its cues (with hls.js
 * and with Safari's own HLS alike) and the player draws the active ones itself, above its controls.
 * Answers the chosen track, the lines to show now, and how to choose another.
 */
export function useSubtitles(video: RefObject<HTMLVideoElement | null>, subtitles: Subtitle[]) {
  const { language } = useI18n();
  const [choice, setChoice] = useState<SubtitleChoice>(readChoice);
  const [lines, setLines] = useState<string[]>([]);
  const active = pickSubtitle(subtitles, choice, language);
  const activeLang = active?.lang;
  // The tracks change with the episode (new URLs), not with every new array of the same ones.
  const tracksKey = subtitles.map((subtitle) => subtitle.url).join(' ');

  useEffect(() => {
    const element = video.current;
    const textTracks = element?.textTracks;
    // Without text tracks (jsdom, very old browsers) there is nothing to show.
    if (!element || typeof textTracks?.addEventListener !== 'function') return;
    const shown = Array.from(element.querySelectorAll<HTMLTrackElement>('track[data-subtitle]')).find((track) => track.dataset.subtitle === activeLang)?.track ?? null;
    // Tracks made from the master playlist's subtitle renditions (by Safari's own HLS, or hls.js)
    // stay off, even when the browser turns one on by itself, so that no cue is ever shown twice.
    const settle = () => {
      for (const track of Array.from(textTracks)) {
        const mode = track === shown ? 'hidden' : 'disabled';
        if ((track.kind === 'subtitles' || track.kind === 'captions') && track.mode !== mode) track.mode = mode;
      }
    };
    const show = () => setLines(shown?.activeCues ? Array.from(shown.activeCues, textOfCue).filter(Boolean) : []);
    settle();
    show();
    textTracks.addEventListener('addtrack', settle);
    textTracks.addEventListener('change', settle);
    shown?.addEventListener('cuechange', show);
    return () => {
      textTracks.removeEventListener('addtrack', settle);
      textTracks.removeEventListener('change', settle);
      shown?.removeEventListener('cuechange', show);
      setLines([]);
    };
  }, [video, activeLang, tracksKey]);

  return {
    active,
    lines,
    choose(next: 'off' | string) {
      setChoice(next);
      keepChoice(next);
    },
  };
}
