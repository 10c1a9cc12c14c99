import * as media from '@cliffhanger/platform/testing';
import { ffmpegTools } from '../src/index.ts';

// The platform's media helpers with this package's ffmpeg, at 30 fps: the ladder's frame-rate rules need a rate above 24.
const tools = ffmpegTools();

export const { scratchDir, isJpeg } = media;
export const makeClip = (file: string, options: media.ClipOptions) => media.makeClip(tools, file, { rate: 30, ...options });
export const makeAudioOnly = (file: string) => media.makeAudioOnly(tools, file);
export const probeStreams = (file: string) => media.probeStreams(tools, file);
export const makeStill = (file: string) => media.makeStill(tools, file);
