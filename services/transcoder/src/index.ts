export { ffmpegBuilds, ffmpegPath, ffmpegTools, ffprobeEnv, ffprobePath } from './ffmpeg-paths.ts';
export { InvalidMediaError, probeMedia, type MediaInfo } from './probe.ts';
export { AUDIO, LADDER, MAX_FRAME_RATE, QUALITY_CRF, outputFrameRate, planLadder, type H264Profile, type PlannedRung, type Rung } from './ladder.ts';
export {
  ACCEPTED_FORMATS, DEFAULT_LIMITS, ladderRunLimits, limitsOf, MAX_FRAME_SIDE, UNTRUSTED_INPUT_OPTIONS, type RunLimits, type TranscodeLimits,
} from './limits.ts';
export {
  MASTER_PLAYLIST, planHlsJob, transcodeToHls, type Rendition, type TranscodeOptions, type TranscodeResult,
} from './transcode.ts';
export { AUDIO_RENDITION, buildHlsInvocation, FIRST_SEGMENT_SECONDS, posterSeconds, type HlsJob } from './hls-command.ts';
export { FfmpegError, ffmpegArgs, runFfmpeg, type FfmpegFailure, type FfmpegInvocation, type FfmpegRunOptions } from './ffmpeg-run.ts';
export {
  ladderPrefixOf, registerTranscodeWorker, SEGMENT_SECONDS, sweepCrashLeftovers, transcodeEpisode, transcodeEpisodeJob, transcodeJobIdOf,
  transcodeRequests, type TranscodeEpisode, type TranscodeRequests, type TranscodeWorkerDeps,
} from './worker.ts';
export { transcoderModule } from './module.ts';
