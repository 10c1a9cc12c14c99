// GET /api/homepage through the whole gateway (PGlite, a catalog shaped like the demo's) against
// bare Express answering the very same JSON. One file plays three roles: the bench, and, when
// spawned with BENCH_ROLE, each server in its own process.
import fs from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { composeTarget, createPlatform, loadConfig, systemContext } from '@cliffhanger/platform';
import { tempDir } from '@cliffhanger/platform/testing';
import type { LocalCatalogClient } from '@cliffhanger/catalog';
import { demoCatalog } from '@cliffhanger/demo';
import { registry } from '../gateway/src/registry.ts';
import { interleaved, report, startServer } from './lib.ts';

const role = process.env.BENCH_ROLE;
const script = path.relative(path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url));

if (role === 'gateway') {
  const platform = await createPlatform(loadConfig({ ...process.env, DATA_DIR: tempDir('bench-homepage-'), DEMO: '0' }));
  const { app, instances } = await composeTarget(platform, registry);
  const catalog = instances.get('catalog')!.client as LocalCatalogClient;
  // Episodes are added but never transcoded: the platform's queue is not started, and the
  // homepage only counts them.
  const source = path.join(tempDir('bench-source-'), 'source.mp4');
  fs.writeFileSync(source, 'a placeholder source');
  for (const series of demoCatalog.series) {
    await catalog.admin.createSeries(series);
    for (let number = 1; number <= series.episodes; number++)
      await catalog.admin.addEpisode(systemContext(), series.id, { file: source, number });
  }
  for (const [position, section] of demoCatalog.sections.entries()) await catalog.admin.putSection(section.id, { ...section, position });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}/api/homepage`);
  process.on('SIGTERM', () => process.exit(0));
} else if (role === 'bare') {
  const payload = JSON.parse(fs.readFileSync(process.env.BENCH_PAYLOAD!, 'utf8'));
  const app = express();
  app.get('/api/homepage', (_req, res) => {
    res.json(payload);
  });
  const server = app.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}/api/homepage`));
  process.on('SIGTERM', () => process.exit(0));
} else {
  const gateway = await startServer(script, { BENCH_ROLE: 'gateway' });
  const payloadFile = path.join(tempDir('bench-payload-'), 'homepage.json');
  fs.writeFileSync(payloadFile, await (await fetch(gateway.url)).text());
  const bare = await startServer(script, { BENCH_ROLE: 'bare', BENCH_PAYLOAD: payloadFile });
  const [gatewayRps, bareRps] = await interleaved([{ url: gateway.url }, { url: bare.url }]);
  await Promise.all([gateway.stop(), bare.stop()]);
  report('homepage', ['gateway', gatewayRps!], ['bare express', bareRps!], 0.8);
}
