import { once } from 'node:events';
import type { Server } from 'node:http';
import { ConfigError, createPlatform, loadConfig, startPlatform, stopPlatform } from '@cliffhanger/platform';
import { composeEmbedded } from './compose.ts';

// `npm start`: the whole site in one process (TARGET=all), embedded defaults unless configured.
let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const platform = await createPlatform(config);
const { logger } = platform;
const { app, catalog } = await composeEmbedded(platform, {});
await startPlatform(platform);

const server: Server = app.listen(config.PORT, config.HOST);
await once(server, 'listening');
const address = server.address();
const port = typeof address === 'object' && address ? address.port : config.PORT;
logger.info(
  { database: platform.database.kind, bus: platform.bus.kind, queue: platform.queue.kind, dataDir: config.dataDir },
  `Cliffhanger is serving at http://${config.HOST}:${port}`,
);
const catalogWork = catalog.startBackground({ demo: config.DEMO });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  const forced = setTimeout(() => process.exit(1), 10_000).unref();
  catalogWork.stop();
  server.close();
  server.closeAllConnections();
  await stopPlatform(platform).catch((error) => logger.error({ err: error }, 'shutdown failed'));
  clearTimeout(forced);
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
