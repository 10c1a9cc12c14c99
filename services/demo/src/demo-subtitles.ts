import type { SubtitleLang } from '@cliffhanger/catalog';

// What the demo episodes say, in every interface language: the episode's title card, then a few
// lines of cliffhanger dialogue. A line is the same sentence in each language, so switching
// subtitles mid-episode shows the same moment translated.
const EPISODE: Record<SubtitleLang, string> = {
  en: 'Episode {n}',
  es: 'Episodio {n}',
  fy: 'Épisode {n}',
  dy: 'Folge {n}',
  pt: 'Episódio {n}',
};

const LINES: Record<SubtitleLang, string[]> = {
  en: [
    'You signed the contract.\nThere is no way out now.',
    'Who told you about the locked room?',
    'I never stopped looking for you.',
    'If they find out who you really are,\nwe are both finished.',
    'Tonight everything changes.',
    'Trust me, just this once.',
    'Then why did you come back?',
    "Don't say anything. They're listening.",
  ],
  es: [
    'Firmaste el contrato.\nYa no hay salida.',
    '¿Quién te habló de la habitación cerrada?',
    'Nunca dejé de buscarte.',
    'Si descubren quién eres de verdad,\nestamos perdidos los dos.',
    'Esta noche todo cambia.',
    'Confía en mí, solo esta vez.',
    'Entonces, ¿por qué volviste?',
    'No digas nada. Nos están escuchando.',
  ],
  fy: [
    'Tu as signé le contrat.\nIl n’y a plus d’issue.',
    'Qui t’a parlé de la chambre fermée à clé\u00a0?',
    'Je n’ai jamais cessé de te chercher.',
    'S’ils découvrent qui tu es vraiment,\nnous sommes perdus tous les deux.',
    'Ce soir, tout change.',
    'Fais-moi confiance, juste cette fois.',
    'Alors pourquoi es-tu revenu\u00a0?',
    'Ne dis rien. Ils nous écoutent.',
  ],
  dy: [
    'Du hast den Vertrag unterschrieben.\nJetzt gibt es kein Zurück.',
    'Wer hat dir von dem verschlossenen Zimmer erzählt?',
    'Ich habe nie aufgehört, dich zu suchen.',
    'Wenn sie herausfinden, wer du wirklich bist,\nsind wir beide erledigt.',
    'Heute Nacht ändert sich alles.',
    'Vertrau mir, nur dieses eine Mal.',
    'Warum bist du dann zurückgekommen?',
    'Sag nichts. Sie hören mit.',
  ],
  pt: [
    'Você assinou o contrato.\nAgora não há saída.',
    'Quem te contou sobre o quarto trancado?',
    'Eu nunca deixei de te procurar.',
    'Se descobrirem quem você é de verdade,\nestamos os dois perdidos.',
    'Esta noite tudo muda.',
    'Confie em mim, só desta vez.',
    'Então por que você voltou?',
    'Não diga nada. Eles estão ouvindo.',
  ],
};

export const DEMO_SUBTITLE_LANGS = Object.keys(EPISODE) as SubtitleLang[];

// A cue is read comfortably in about four seconds; a 20-second episode carries its title and three lines.
const SECONDS_PER_CUE = 4;
const MAX_CUES = 4;
const GAP = 0.3;

const stamp = (seconds: number) => {
  const millis = Math.round(seconds * 1000);
  const part = (value: number, digits = 2) => String(value).padStart(digits, '0');
  return `${part(Math.floor(millis / 3_600_000))}:${part(Math.floor(millis / 60_000) % 60)}:${part(Math.floor(millis / 1000) % 60)}.${part(millis % 1000, 3)}`;
};

/**
 * The WebVTT file of one demo episode in `lang`: the title card, then lines of dialogue chosen by
 * series and episode, spread evenly over the episode's `seconds`.
 */
export function demoSubtitles(lang: SubtitleLang, options: { seriesIndex: number; episodeNumber: number; seconds: number }): string {
  const { seriesIndex, episodeNumber, seconds } = options;
  const count = Math.max(1, Math.min(MAX_CUES, Math.floor(seconds / SECONDS_PER_CUE)));
  const lines = LINES[lang];
  const texts = [
    EPISODE[lang].replace('{n}', String(episodeNumber)),
    ...Array.from({ length: count - 1 }, (_, i) => lines[(seriesIndex * 3 + episodeNumber + i) % lines.length]!),
  ];
  const slot = seconds / count;
  const cues = texts.map((text, i) => `${i + 1}\n${stamp(i * slot + GAP)} --> ${stamp((i + 1) * slot - GAP)}\n${text}`);
  return `WEBVTT\n\n${cues.join('\n\n')}\n`;
}
