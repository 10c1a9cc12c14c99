import * as media from '@cliffhanger/platform/testing';
import { ffmpegTools } from '../src/index.ts';

// The platform's media helpers with this package's ffmpeg. Clips come from the platform's makeClip
// with `tools` at 30 fps (`rate: 30`): the ladder's frame-rate rules need a rate above 24.
export const tools = ffmpegTools();

export const { scratchDir, isJpeg } = media;
export const makeAudioOnly = (file: string) => media.makeAudioOnly(tools, file);
export const probeStreams = (file: string) => media.probeStreams(tools, file);
export const makeStill = (file: string) => media.makeStill(tools, file);
