import { Invalid } from '@cliffhanger/platform';

/**
 * The languages subtitles may be in: the storefront's interface languages, under its codes
 * (fy holds French, dy German), each labelled in its own language. `tag` is the BCP 47 tag that
 * players and HLS's LANGUAGE attribute understand ("fy" would be West Frisian to them).
 */
export const SUBTITLE_LANGUAGES = [
  { code: 'en', label: 'English', tag: 'en' },
  { code: 'es', label: 'Español', tag: 'es' },
  { code: 'fy', label: 'Français', tag: 'fr' },
  { code: 'dy', label: 'Deutsch', tag: 'de' },
  { code: 'pt', label: 'Português', tag: 'pt' },
] as const;

export type SubtitleLang = (typeof SUBTITLE_LANGUAGES)[number]['code'];
export const SUBTITLE_LANGS = SUBTITLE_LANGUAGES.map((language) => language.code) as [SubtitleLang, ...SubtitleLang[]];

export const isSubtitleLang = (value: unknown): value is SubtitleLang => SUBTITLE_LANGS.includes(value as SubtitleLang);
export const subtitleLanguageOf = (lang: SubtitleLang) => SUBTITLE_LANGUAGES.find((language) => language.code === lang)!;

/** A 30-minute episode's dialogue is some 50 KB of WebVTT; anything near this is not subtitles. */
export const MAX_SUBTITLE_BYTES = 1024 ** 2;
const MAX_CUES = 20_000;
// Episodes are at most TRANSCODE_MAX_MINUTES long; a cue a day into one is a broken file.
const MAX_CUE_SECONDS = 24 * 3600;

const TIMESTAMP = /^(?:(\d{2,}):)?([0-5]\d):([0-5]\d)\.(\d{3})$/;
const TIMING = /^(\S+)[ \t]+-->[ \t]+(\S+)(?:[ \t]+(.*))?$/;

function secondsOf(stamp: string): number | null {
  const match = TIMESTAMP.exec(stamp);
  if (!match) return null;
  const [, hours = '0', minutes, seconds, millis] = match;
  return Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds) + Number(millis) / 1000;
}

/**
 * Checks that bytes are a WebVTT file a browser will show as meant (the W3C WebVTT syntax, strictly:
 * a parser that skips what it cannot read would show nothing, silently): UTF-8, the WEBVTT
 * signature, well-formed cue timings that end after they start and start in order. Answers the
 * number of cues; a refusal names the line, as Invalid({ file }).
 */
export function checkWebVtt(bytes: Buffer): { cues: number } {
  const refuse = (message: string): never => {
    throw new Invalid({ file: message });
  };
  if (bytes.length === 0) refuse('The subtitle file is empty');
  if (bytes.length > MAX_SUBTITLE_BYTES) refuse(`The subtitle file is over ${MAX_SUBTITLE_BYTES / 1024 ** 2} MB`);
  let text = '';
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    refuse('The subtitle file is not UTF-8 text: save it as UTF-8');
  }
  if (text.includes('\u0000')) refuse('The subtitle file holds NUL characters: it is not a text file');
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  if (!/^WEBVTT(?:[ \t].*)?$/.test(lines[0]!)) refuse('This is not a WebVTT file: its first line must be WEBVTT');

  let at = 1;
  // The header runs to the first blank line; a cue in it means the blank line was forgotten.
  for (; at < lines.length && lines[at] !== ''; at++)
    if (lines[at]!.includes('-->')) refuse(`line ${at + 1}: leave a blank line between the WEBVTT line and the first cue`);

  let cues = 0;
  let lastStart = 0;
  while (at < lines.length) {
    if (lines[at] === '') {
      at++;
      continue;
    }
    const start = at;
    while (at < lines.length && lines[at] !== '') at++;
    const block = lines.slice(start, at);
    const first = block[0]!;
    if (/^NOTE(?:[ \t]|$)/.test(first)) continue;
    if (/^(?:STYLE|REGION)[ \t]*$/.test(first)) {
      if (cues > 0) refuse(`line ${start + 1}: ${first.trim()} blocks must come before the first cue`);
      continue;
    }
    // A cue: an optional identifier line, then its timing, then its text.
    const timingAt = first.includes('-->') ? 0 : 1;
    const timingLine = block[timingAt];
    const lineNumber = start + timingAt + 1;
    if (timingLine === undefined || !timingLine.includes('-->'))
      refuse(`line ${start + 1}: expected a cue timing such as "00:00:01.000 --> 00:00:04.000"`);
    const timing = TIMING.exec(timingLine!);
    const [from, to] = timing ? [secondsOf(timing[1]!), secondsOf(timing[2]!)] : [null, null];
    if (from === null || to === null)
      refuse(`line ${lineNumber}: "${timingLine!.slice(0, 60)}" is not a cue timing such as "00:00:01.000 --> 00:00:04.000"`);
    if (to! <= from!) refuse(`line ${lineNumber}: the cue ends before it starts`);
    if (to! > MAX_CUE_SECONDS) refuse(`line ${lineNumber}: the cue is timed more than 24 hours in`);
    if (from! < lastStart) refuse(`line ${lineNumber}: cues must be in order of their start time`);
    const arrowInText = block.slice(timingAt + 1).findIndex((line) => line.includes('-->'));
    if (arrowInText >= 0) refuse(`line ${lineNumber + 1 + arrowInText}: cue text cannot hold "-->"; is a blank line missing before the next cue?`);
    lastStart = from!;
    if (++cues > MAX_CUES) refuse(`The subtitle file has more than ${MAX_CUES} cues`);
  }
  if (cues === 0) refuse('The subtitle file has no cues');
  return { cues };
}
