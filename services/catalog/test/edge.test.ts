// The playback grant suite on the nginx edge (edge/): the same answers as Node's, from disk. The
// playlists the catalog renders (master, subtitles) reach Node's /media through the edge.
import path from 'node:path';
import { describe, it } from 'vitest';
import { tempDir } from '@cliffhanger/platform/testing';
import { edgeMissing, startEdge } from './edge.ts';
import { mediaGrantContract, SECRET, startNodeMedia, writeLadder } from './media-grants.contract.ts';

const missing = edgeMissing();

if (missing && process.env.CI === 'true') {
  describe('the nginx edge', () => {
    it('runs under CI', () => {
      throw new Error(`the edge's suite needs nginx with its JavaScript module, and CI must have it: ${missing}`);
    });
  });
} else if (missing) {
  describe.skip(`the nginx edge (skipped: ${missing})`, () => {
    it('answers playback grants as Node does', () => undefined);
  });
} else {
  mediaGrantContract('the nginx edge', async () => {
    const mediaRoot = path.join(tempDir(), 'media');
    writeLadder(mediaRoot);
    const origin = await startNodeMedia(mediaRoot);
    const edge = await startEdge({ mediaRoot, origin: origin.url, mediaSecret: SECRET });
    return {
      url: edge.url,
      async close() {
        await edge.close();
        await origin.close();
      },
    };
  });
}
