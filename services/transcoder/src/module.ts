import path from 'node:path';
import { defineModule } from '@cliffhanger/platform';
import { ffmpegBuilds } from './ffmpeg-paths.ts';
import { limitsOf } from './limits.ts';
import { registerTranscodeWorker, sweepCrashLeftovers, transcodeEpisodeJob, transcodeRequests, type TranscodeRequests } from './worker.ts';

/**
 * The transcode worker: takes transcode jobs from the queue and writes HLS ladders. Others reach
 * it through the queue, never over HTTP, so its client is the queue side wherever they run.
 */
export const transcoderModule = defineModule<TranscodeRequests>({
  name: 'transcoder',
  queues: [transcodeEpisodeJob.queue],
  init({ platform }) {
    const deps = { ...platform, workDir: path.join(platform.config.dataDir, 'transcoding'), limits: limitsOf(platform.config) };
    registerTranscodeWorker(deps);
    platform.logger.info(ffmpegBuilds(), 'transcoding with these ffmpeg builds');
    return {
      client: transcodeRequests(platform.queue),
      background() {
        const done = sweepCrashLeftovers(deps).then(
          (removed) => (removed.scratch || removed.staging) && platform.logger.info(removed, 'removed what crashed transcodes left'),
          (error: unknown) => platform.logger.error({ err: error }, 'removing what crashed transcodes left failed'),
        );
        return { stop: () => done.then(() => undefined) };
      },
    };
  },
  remoteClient: ({ platform }) => transcodeRequests(platform.queue),
});
