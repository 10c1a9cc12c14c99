import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, serverSecret } from '@cliffhanger/platform';
import { adminRoutes } from './admin-routes.ts';
import { createCatalogAdmin } from './admin.ts';
import { catalogClientInProcess, catalogClientOverHttp, catalogInternalRoutes, type CatalogClient } from './client.ts';
import { subscribeCatalogConsumers } from './events.ts';
import { createFeed } from './feed.ts';
import { mediaRoutes } from './media-routes.ts';
import type { EntitlementPolicy, Transcoder, ViewerLists } from './ports.ts';
import { createRankings, subscribeRankingConsumers } from './rankings.ts';
import { catalogRoutes } from './routes.ts';
import { createCatalogService } from './service.ts';
import { resumableUploads } from './resumable-uploads.ts';
import { createPlaylistRenderer } from './subtitle-playlists.ts';

/** How often unfinished resumable uploads past their expiry are looked for. */
const EXPIRED_UPLOADS_EVERY_MS = 3600_000;

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
    const service = createCatalogService({ database, entitlement: client<EntitlementPolicy>('unlock'), viewers: client<ViewerLists>('user'), mediaSecret, mediaOrigin: config.MEDIA_EDGE_URL && new URL(config.MEDIA_EDGE_URL).origin });
    const rankings = createRankings({ database, cardsOf: service.directory.cardsOf });
    const feed = createFeed({ database, cardsOf: service.directory.cardsOf, episode: (context, id) => service.episode(context, id) });
    const onChange = () => {
      service.forgetCachedPages();
      rankings.forget();
    };
    const transcoder = client<Transcoder>('transcoder');
    const admin = createCatalogAdmin({ database, bus, storage, transcoder, onChange });
    // Consumers subscribe before the platform starts delivering.
    subscribeCatalogConsumers(bus, { database, storage, onChange });
    subscribeRankingConsumers(bus);
    const incomingDir = path.join(config.dataDir, 'incoming');
    const maxUploadBytes = config.MAX_UPLOAD_MB * 1024 ** 2;
    const uploads = resumableUploads(admin, { adminToken: config.ADMIN_TOKEN, dir: path.join(incomingDir, 'tus'), maxUploadBytes });
    return {
      client: catalogClientInProcess(service, rankings, admin),
      routes: [catalogRoutes(service, { rankings, feed }), uploads.router, adminRoutes(admin, { adminToken: config.ADMIN_TOKEN, incomingDir, maxUploadBytes })],
      internalRoutes: [catalogInternalRoutes(service, rankings)],
      media: mediaRoutes(storage, mediaSecret, createPlaylistRenderer({ database, storage })),
      // A crash may have lost the queue's copy of a transcode: ask again for every pending episode.
      background() {
        const done = admin.resumeTranscodes().then(
          (resumed) => resumed && logger.info({ episodes: resumed }, 'transcodes queued again'),
          (error: unknown) => logger.error({ err: error }, 'queueing pending transcodes again failed'),
        );
        const removeExpired = () =>
          uploads.removeExpired().then(
            (removed) => removed && logger.info({ uploads: removed }, 'expired unfinished uploads removed'),
            (error: unknown) => logger.error({ err: error }, 'removing expired uploads failed'),
          );
        void removeExpired();
        const sweep = setInterval(removeExpired, EXPIRED_UPLOADS_EVERY_MS);
        return {
          stop: () => {
            clearInterval(sweep);
            return done.then(() => undefined);
          },
        };
      },
    };
  },
  remoteClient: ({ http }) => catalogClientOverHttp(http()),
});
