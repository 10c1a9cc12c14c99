import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, serverSecret } from '@cliffhanger/platform';
import { adminRoutes } from './admin-routes.ts';
import { createCatalogAdmin } from './admin.ts';
import { catalogClientInProcess, catalogClientOverHttp, catalogInternalRoutes, type CatalogClient } from './client.ts';
import { subscribeCatalogConsumers } from './events.ts';
import { mediaRoutes } from './media-routes.ts';
import type { EntitlementPolicy, Transcoder, ViewerLists } from './ports.ts';
import { catalogRoutes } from './routes.ts';
import { createCatalogService } from './service.ts';

export const catalogMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

/** Series, episodes, tags, the homepage, search, play counts, uploads and protected media (README.md). */
export const catalogModule = defineModule<CatalogClient>({
  name: 'catalog',
  migrations: catalogMigrations,
  publicPrefixes: ['/api/tag', '/api/homepage', '/api/video', '/api/admin', '/media'],
  needs: ['user', 'transcoder', 'unlock'],
  init({ platform, client }) {
    const { config, database, bus, storage, logger } = platform;
    const mediaSecret = serverSecret(config, 'MEDIA_SECRET');
    const service = createCatalogService({ database, entitlement: client<EntitlementPolicy>('unlock'), viewers: client<ViewerLists>('user'), mediaSecret });
    const transcoder = client<Transcoder>('transcoder');
    const admin = createCatalogAdmin({ database, bus, storage, transcoder, onChange: service.forgetCachedPages });
    // Consumers subscribe before the platform starts delivering.
    subscribeCatalogConsumers(bus, { database, storage, onChange: service.forgetCachedPages });
    return {
      client: catalogClientInProcess(service, admin),
      routes: [catalogRoutes(service), adminRoutes(admin, { adminToken: config.ADMIN_TOKEN, incomingDir: path.join(config.dataDir, 'incoming'), maxUploadBytes: config.MAX_UPLOAD_MB * 1024 ** 2 })],
      internalRoutes: [catalogInternalRoutes(service)],
      media: mediaRoutes(storage, mediaSecret),
      // A crash may have lost the queue's copy of a transcode: ask again for every pending episode.
      background() {
        const done = admin.resumeTranscodes().then(
          (resumed) => resumed && logger.info({ episodes: resumed }, 'transcodes queued again'),
          (error: unknown) => logger.error({ err: error }, 'queueing pending transcodes again failed'),
        );
        return { stop: () => done.then(() => undefined) };
      },
    };
  },
  remoteClient: ({ http }) => catalogClientOverHttp(http()),
});
