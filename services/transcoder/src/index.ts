export { ffmpegPath, ffprobeEnv, ffprobePath } from './ffmpeg-paths.ts';
export { InvalidMediaError, probeMedia, type MediaInfo } from './probe.ts';
export { LADDER, MAX_FRAME_RATE, QUALITY_CRF, outputFrameRate, planLadder, type H264Profile, type PlannedRung, type Rung } from './ladder.ts';
export {
  MASTER_PLAYLIST, planHlsJob, transcodeToHls, type Rendition, type TranscodeOptions, type TranscodeResult,
} from './transcode.ts';
export { buildHlsInvocation, posterSeconds, type HlsJob } from './hls-command.ts';
export { FfmpegError, ffmpegArgs, runFfmpeg, toFfmpegCommand, type FfmpegInvocation } from './ffmpeg-run.ts';
export { renderDemoCover, renderDemoEpisode, type DemoCoverOptions, type DemoEpisodeOptions } from './demo-source.ts';
export {
  ladderPrefixOf, registerTranscodeWorker, SEGMENT_SECONDS, transcodeEpisode, transcodeEpisodeJob, transcodeJobIdOf, transcodeRequests,
  type TranscodeEpisode, type TranscodeWorkerDeps,
} from './worker.ts';
