// The playback grant suite on Node's /media over disk storage: the embedded default.
import path from 'node:path';
import { tempDir } from '@cliffhanger/platform/testing';
import { mediaGrantContract, startNodeMedia, writeLadder } from './media-grants.contract.ts';

mediaGrantContract('Node', async () => {
  const mediaRoot = path.join(tempDir(), 'media');
  writeLadder(mediaRoot);
  return startNodeMedia(mediaRoot);
});
