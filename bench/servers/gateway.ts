// The gateway as `npm start` runs it (PGlite in a fresh data dir unless DATABASE_URL is set), printing its URL when ready.
import { once } from 'node:events';
import http from 'node:http';
import { composeTarget, createPlatform, loadConfig, startPlatform, stopPlatform } from '@cliffhanger/platform';
import { tempDir } from '@cliffhanger/platform/testing';
import { registry } from '../../gateway/src/registry.ts';

const config = loadConfig({ ...process.env, DATA_DIR: process.env.DATA_DIR ?? tempDir('bench-'), DEMO: '0' });
const platform = await createPlatform(config);
const { listener } = await composeTarget(platform, registry);
await startPlatform(platform);
const server = http.createServer(listener).listen(0, '127.0.0.1');
await once(server, 'listening');
console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}`);
process.on('SIGTERM', async () => {
  server.close();
  await stopPlatform(platform);
  process.exit(0);
});
