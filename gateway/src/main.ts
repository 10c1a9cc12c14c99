import { once } from 'node:events';
import type { Server } from 'node:http';
import { ConfigError, createPlatform, loadConfig, startPlatform, stopPlatform } from '@cliffhanger/platform';
import { composeTarget } from './targets.ts';

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
const platform = await createPlatform(config);
const { logger } = platform;
const { app, startBackground } = await orStop(() => composeTarget(platform));
await startPlatform(platform);

const server: Server = app.listen(config.PORT, config.HOST);
await once(server, 'listening');
const address = server.address();
const port = typeof address === 'object' && address ? address.port : config.PORT;
logger.info(
  { database: platform.database.kind, bus: platform.bus.kind, queue: platform.queue.kind, dataDir: config.dataDir },
  `Cliffhanger (${config.TARGET}) is serving at http://${config.HOST}:${port}`,
);
const background = startBackground?.();

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  const forced = setTimeout(() => process.exit(1), 10_000).unref();
  background?.stop();
  server.close();
  server.closeAllConnections();
  await stopPlatform(platform).catch((error) => logger.error({ err: error }, 'shutdown failed'));
  clearTimeout(forced);
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
