// GET /api/statics.png through the gateway process as the distributed deployment runs it
// (TARGET=gateway: the pixel edge, its bounded buffer and its batch writes to the outbox, on PGlite
// here) against bare node:http answering the same PNG, in this run. The services it would forward
// other calls to are never asked. In one process with every module (`npm start`), the same hits
// are also aggregated on that process's embedded database, which is a laptop's share, not a
// gateway's.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registry } from '../gateway/src/registry.ts';
import { interleaved, report, startServer } from './lib.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');
const QUERY = '/api/statics.png?event=page_view&path=%2Fvideo%2Fv1&videoId=v1&fbclid=fb-bench&lang=en';

if (process.env.BENCH_ROLE === 'bare') {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length), 'cache-control': 'no-store' });
    res.end(PNG);
  });
  server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  const script = path.relative(path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url));
  const apart = {
    TARGET: 'gateway',
    INTERNAL_TOKEN: 'bench-internal-token-0123',
    MEDIA_SECRET: 'bench-media-secret-0123456789abcdef',
    ...Object.fromEntries(registry.modules.map((module) => [`${module.name.toUpperCase()}_SERVICE_URL`, 'http://127.0.0.1:9'])),
  };
  const [gateway, bare] = await Promise.all([startServer('servers/gateway.ts', apart), startServer(script, { BENCH_ROLE: 'bare' })]);
  const headers = { 'user-agent': 'Mozilla/5.0 (bench)' };
  const [gatewayRps, bareRps] = await interleaved([
    { url: gateway.url + QUERY, headers },
    { url: bare.url + QUERY, headers },
  ]);
  await Promise.all([gateway.stop(), bare.stop()]);
  report('statics.png', ['gateway', gatewayRps!], ['bare node:http', bareRps!], 0.7);
}
