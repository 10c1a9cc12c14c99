import { once } from 'node:events';
import http, { type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeTarget, ConfigError, createPlatform, loadConfig, parseTarget, startPlatform, stopPlatform, type ClientOf } from '@cliffhanger/platform';
import type { CatalogPages } from '@cliffhanger/catalog';
import { registry } from './registry.ts';
import { storefrontHandler } from './storefront/index.ts';

const storefront = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../storefront');

// `npm start`: the whole site in one process (TARGET=all), embedded defaults unless configured;
// in the distributed deployment the same entry point runs one part, chosen by TARGET.
/** A configuration mistake stops the start with one line naming it. */
async function orStop<T>(step: () => Promise<T> | T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const config = await orStop(() => loadConfig());
await orStop(() => parseTarget(registry, config.TARGET));
const platform = await createPlatform(config);
const { logger } = platform;
const pages = (clientOf: ClientOf) =>
  storefrontHandler(path.join(storefront, 'dist'), {
    sentryDsn: config.SENTRY_DSN,
    publicUrl: config.PUBLIC_URL,
    catalog: clientOf<CatalogPages>('catalog'),
    rendererFile: path.join(storefront, 'dist-ssr', 'entry-server.js'),
    onRenderError: (error) => logger.error({ err: error }, 'the storefront server renderer failed: the page goes out for the browser to render'),
  });
const { listener, startBackground } = await orStop(() => composeTarget(platform, registry, { pages }));
await startPlatform(platform);

const server: Server = http.createServer(listener).listen(config.PORT, config.HOST);
await once(server, 'listening');
const address = server.address();
const port = typeof address === 'object' && address ? address.port : config.PORT;
logger.info(
  { database: platform.database.kind, bus: platform.bus.kind, queue: platform.queue.kind, dataDir: config.dataDir },
  `Cliffhanger (${config.TARGET}) is serving at http://${config.HOST}:${port}`,
);
const background = startBackground();

/**
 * Shutdown lets work in flight finish: /readyz answers 503 at once and every answer closes its
 * connection, while the server keeps serving for SHUTDOWN_ANNOUNCE_SECONDS (load balancers move
 * away; a request already on its way over a kept-alive connection is not reset). Then it stops
 * accepting, requests in flight (a login, a download) finish within SHUTDOWN_DRAIN_SECONDS and only
 * then are the rest cut; background work stops, running jobs finish or go back to the queue,
 * buffers are flushed, and the process exits.
 */
async function shutdown(signal: string) {
  if (platform.lifecycle.stopping) return;
  platform.lifecycle.stopping = true;
  const drainMs = config.SHUTDOWN_DRAIN_SECONDS * 1000;
  logger.info({ signal, drainSeconds: config.SHUTDOWN_DRAIN_SECONDS }, 'shutting down: finishing requests in flight');
  const forced = setTimeout(() => process.exit(1), config.SHUTDOWN_ANNOUNCE_SECONDS * 1000 + drainMs + 20_000).unref();
  await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_ANNOUNCE_SECONDS * 1000));
  const drained = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), drainMs).unref();
  await drained;
  clearTimeout(cut);
  await background.stop();
  await stopPlatform(platform).catch((error) => logger.error({ err: error }, 'shutdown failed'));
  clearTimeout(forced);
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
