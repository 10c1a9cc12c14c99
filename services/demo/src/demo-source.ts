import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFfmpeg } from '@cliffhanger/transcoder';

const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';
const MONO_FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf';
// Drama is shot at 24 fps, and 20% fewer frames than 30 make every demo render and transcode faster.
const DEMO_FRAME_RATE = 24;

export interface DemoEpisodeOptions {
  outFile: string;
  seriesTitle: string;
  episodeNumber: number;
  seconds: number;
  width?: number;
  height?: number;
  /** Series colour, 0-360 degrees on the colour wheel. */
  hue: number;
}

export interface DemoCoverOptions {
  outFile: string;
  title: string;
  hue: number;
  width?: number;
  height?: number;
}

/** A real, playable MP4 source (H.264 + AAC) standing in for an uploaded episode. */
export async function renderDemoEpisode(options: DemoEpisodeOptions): Promise<void> {
  const { outFile, seriesTitle, episodeNumber, seconds, width = 480, height = 854, hue } = options;
  if (width % 2 || height % 2) throw new RangeError(`H.264 4:2:0 needs even sizes, got ${width}x${height}`);
  const lines = wrapWords(seriesTitle, 14);
  await withTextFiles([`Episode ${episodeNumber}`, ...lines], async ([episodeFile, ...titleFiles]) => {
    const titleSize = fontSizeFor(seriesTitle, 14, width, 0.1);
    const episodeSize = Math.round(width * 0.06);
    const lineHeight = Math.round(titleSize * 1.2);
    const blockHeight = lines.length * lineHeight + Math.round(episodeSize * 1.8);
    const top = Math.round(height * 0.66 - blockHeight / 2);
    const pad = Math.round(height * 0.03);
    const filters = [
      gradient(hue, width, height, `Y/H+0.25*sin(2*PI*(X/W+T/7))`),
      `drawbox=x=0:y=${top - pad}:w=iw:h=${blockHeight + 2 * pad}:color=black@0.35:t=fill`,
      ...titleFiles.map((file, i) => drawText(file, titleSize, `${top + i * lineHeight}`)),
      drawText(episodeFile!, episodeSize, `${top + lines.length * lineHeight + Math.round(episodeSize * 0.6)}`),
      // A running clock makes stalls, seeks and rung switches visible while testing the player.
      `drawtext=fontfile=${MONO_FONT}:text='%{pts\\:hms}':fontsize=${Math.round(width * 0.045)}` +
        `:fontcolor=white@0.85:x=(w-text_w)/2:y=h-text_h-${Math.round(height * 0.04)}`,
    ];
    await runFfmpeg({
      inputs: [
        { source: `color=c=black:s=${gradientSize(width, height)}:r=${DEMO_FRAME_RATE}:d=${seconds}`, options: ['-f', 'lavfi'] },
        { source: `sine=frequency=${220 + Math.round(hue)}:sample_rate=48000:d=${seconds}`, options: ['-f', 'lavfi'] },
      ],
      filterComplex: `[0:v]${filters.join(',')}[v];[1:a]volume=0.12[a]`,
      outputs: [{
        target: outFile,
        options: [
          // ultrafast at a low CRF: a big but clean intermediate, since the ladder re-encodes it anyway.
          '-map', '[v]', '-map', '[a]', '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '18', '-pix_fmt', 'yuv420p',
          '-c:a', 'aac', '-b:a', '128k', '-movflags', '+faststart',
        ],
      }],
    });
  });
}

/** A poster-style JPEG: the series colour lit from above, fading dark under a large title. */
export async function renderDemoCover(options: DemoCoverOptions): Promise<void> {
  const { outFile, title, hue, width = 540, height = 960 } = options;
  const lines = wrapWords(title, 12);
  await withTextFiles([...lines, 'CLIFFHANGER'], async (files) => {
    const brandFile = files.pop()!;
    const size = fontSizeFor(title, 12, width, 0.12);
    const top = Math.round(height * 0.68 - (lines.length * size * 1.2) / 2);
    const accent = hsl(hue + 35, 0.85, 0.62).map((c) => c.toString(16).padStart(2, '0')).join('');
    const filters = [
      gradient(hue, width, height, `1.4*Y/H-0.3+0.5*hypot(X/W-0.5,Y/H-0.25)`),
      ...files.map((file, i) => drawText(file, size, `${top + i * Math.round(size * 1.2)}`)),
      `drawbox=x=(iw-iw/5)/2:y=${top - Math.round(size * 0.6)}:w=iw/5:h=${Math.max(2, Math.round(height * 0.006))}:color=0x${accent}:t=fill`,
      drawText(brandFile, Math.round(width * 0.04), `${Math.round(height * 0.05)}`),
    ];
    await runFfmpeg({
      inputs: [{ source: `color=c=black:s=${gradientSize(width, height)}:d=1`, options: ['-f', 'lavfi'] }],
      filterComplex: `[0:v]${filters.join(',')}[v]`,
      // -update 1: the image muxer would otherwise read a "%" in the file name as a frame-number pattern.
      outputs: [{ target: outFile, options: ['-map', '[v]', '-frames:v', '1', '-q:v', '2', '-update', '1'] }],
    });
  });
}

// geq evaluates its expression per pixel and is slow, so the gradient is computed at 1/16 size;
// the bicubic upscale is what makes it smooth. `darkness` runs 0 (series colour) to 1 (near black).
function gradient(hue: number, width: number, height: number, darkness: string): string {
  const [light, dark] = [hsl(hue, 0.65, 0.5), hsl(hue + 35, 0.7, 0.1)];
  const mix = `clip(${darkness},0,1)`;
  const channel = (i: number) => `${light[i]}+(${dark[i]! - light[i]!})*${mix}`;
  return `format=rgb24,geq=r='${channel(0)}':g='${channel(1)}':b='${channel(2)}',scale=${width}:${height}:flags=bicubic,format=yuv420p`;
}

function gradientSize(width: number, height: number): string {
  return `${Math.max(2, width >> 4)}x${Math.max(2, height >> 4)}`;
}

// Text reaches drawtext through files: titles hold quotes, colons and percent signs that would
// need two layers of filtergraph escaping inline.
function drawText(file: string, fontSize: number, y: string): string {
  return (
    `drawtext=fontfile=${FONT}:textfile=${file}:expansion=none:fontsize=${fontSize}:fontcolor=white` +
    `:shadowcolor=black@0.6:shadowx=2:shadowy=2:x=(w-text_w)/2:y=${y}`
  );
}

async function withTextFiles<T>(texts: string[], use: (files: string[]) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'cliffhanger-text-'));
  try {
    const files = texts.map((_, i) => join(dir, `${i}.txt`));
    await Promise.all(texts.map((text, i) => writeFile(files[i]!, text)));
    return await use(files);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function wrapWords(text: string, maxChars: number): string[] {
  const lines: string[] = [];
  for (const word of text.trim().split(/\s+/)) {
    const last = lines[lines.length - 1];
    if (last !== undefined && `${last} ${word}`.length <= maxChars) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

// DejaVu Sans Bold glyphs average ~0.65 em: shrink so the longest line fits 90% of the width.
function fontSizeFor(text: string, maxChars: number, width: number, preferred: number): number {
  const longest = Math.max(...wrapWords(text, maxChars).map((l) => l.length));
  return Math.round(Math.min(width * preferred, (width * 0.9) / (longest * 0.65)));
}

function hsl(hue: number, saturation: number, lightness: number): number[] {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const f = (n: number) => {
    const k = (n + hue / 30) % 12;
    return Math.round(255 * (lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}
