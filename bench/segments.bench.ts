// One HLS segment through the whole gateway's /media (grant check, storage port, range-aware
// handler) against bare node:http streaming the same file. One file plays three roles: the
// bench, and, when spawned with BENCH_ROLE, each server in its own process.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeTarget, createPlatform, loadConfig, serverSecret } from '@cliffhanger/platform';
import { tempDir } from '@cliffhanger/platform/testing';
import { issuePlaybackGrant } from '@cliffhanger/catalog';
import { registry } from '../gateway/src/registry.ts';
import { interleaved, report, startServer } from './lib.ts';

const role = process.env.BENCH_ROLE;
const script = path.relative(path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url));
const EPISODE = 'bench-episode';
const SEGMENT_KEY = `episodes/${EPISODE}/hls/480p/seg_000.ts`;

if (role === 'gateway') {
  const config = loadConfig({ ...process.env, DEMO: '0' });
  const platform = await createPlatform(config);
  const { app } = await composeTarget(platform, registry);
  const grant = issuePlaybackGrant(serverSecret(config, 'MEDIA_SECRET'), EPISODE).token;
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}/media/g/${grant}/${SEGMENT_KEY}`);
  process.on('SIGTERM', () => process.exit(0));
} else if (role === 'bare') {
  const file = process.env.BENCH_FILE!;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp2t', 'content-length': fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}/seg_000.ts`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  // A 4 s 480p segment of the demo ladder weighs about 700 KB.
  const dataDir = tempDir('bench-segments-');
  const file = path.join(dataDir, 'media', SEGMENT_KEY);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, randomBytes(700 * 1024));

  const gateway = await startServer(script, { BENCH_ROLE: 'gateway', DATA_DIR: dataDir });
  const bare = await startServer(script, { BENCH_ROLE: 'bare', BENCH_FILE: file });
  const [gatewayRps, bareRps] = await interleaved([{ url: gateway.url }, { url: bare.url }]);
  await Promise.all([gateway.stop(), bare.stop()]);
  report('segments', ['gateway', gatewayRps!], ['bare node:http', bareRps!], 0.8);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
