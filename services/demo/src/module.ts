import { ConfigError, defineModule } from '@cliffhanger/platform';
import type { LocalCatalogClient } from '@cliffhanger/catalog';
import { seedDemoCatalog } from './seed.ts';

/**
 * The demo catalog of `npm start` (DEMO=1): renders series covers and episodes with ffmpeg and
 * uploads them through the catalog's own upload path, first episodes first. It seeds through the
 * catalog's operator side, so it runs in the catalog's process.
 */
export const demoModule = defineModule<never>({
  name: 'demo',
  needs: ['catalog'],
  init({ platform, client, runsHere }) {
    const { config, logger } = platform;
    if (!config.DEMO) return {};
    if (!runsHere('catalog')) throw new ConfigError(`config: TARGET: demo seeds through the catalog's operator side: run it with catalog (TARGET=catalog,demo) or set DEMO=0`);
    const catalog = client<LocalCatalogClient>('catalog');
    return {
      // A demo site with nothing to play is still starting: ready once the first episode is transcoded.
      readiness: async () => ((await catalog.admin.hasReadyEpisode()) ? null : 'the demo catalog is preparing its first episode'),
      background() {
        const abort = new AbortController();
        const done = seedDemoCatalog({ admin: catalog.admin, logger, signal: abort.signal, episodes: config.DEMO_EPISODES }).catch((error: unknown) => {
          if (!abort.signal.aborted) logger.error({ err: error }, 'demo catalog failed');
        });
        return {
          stop: () => {
            abort.abort();
            return done;
          },
        };
      },
    };
  },
});
