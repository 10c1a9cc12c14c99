import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverSecret, type Platform } from '@cliffhanger/platform';
import { adminRoutes } from './admin-routes.ts';
import { createCatalogAdmin } from './admin.ts';
import { catalogClientInProcess } from './client.ts';
import { seedDemoCatalog } from './demo.ts';
import { subscribeCatalogConsumers } from './events.ts';
import { mediaRoutes } from './media-routes.ts';
import { freeEpisodesOnly, type EntitlementPolicy, type Transcoder, type ViewerLists } from './ports.ts';
import { catalogRepository } from './repository.ts';
import { catalogRoutes } from './routes.ts';
import { createCatalogService } from './service.ts';

export { createCatalogAdmin, transcodePriorityOf, type AdminEpisode, type AdminVideo, type CatalogAdmin } from './admin.ts';
export { adminRoutes, MAX_UPLOAD_BYTES } from './admin-routes.ts';
export { catalogClientInProcess, catalogClientOverHttp, catalogInternalRoutes, type CatalogClient } from './client.ts';
export { demoCatalog, type DemoCatalog, type DemoSeries } from './demo-catalog.ts';
export { seedDemoCatalog } from './demo.ts';
export type { HistoryRecorded, TranscodeCompleted, TranscodeFailed, UploadReceived } from './events.ts';
export { GRANT_TTL_SECONDS, grantAllows, issuePlaybackGrant } from './grants.ts';
export { mediaRoutes, parseRange } from './media-routes.ts';
export { freeEpisodesOnly, type EntitlementPolicy, type Transcoder, type ViewerLists, type WatchableEpisode } from './ports.ts';
export { catalogRoutes, MAX_KEYWORD_LENGTH } from './routes.ts';
export { CAROUSEL_TITLE, createCatalogService, type CatalogService, type Episode, type Homepage, type Video, type VideoCard } from './service.ts';

export const catalogMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

export interface CatalogPorts {
  viewers: ViewerLists;
  transcoder: Transcoder;
  entitlement?: EntitlementPolicy;
}

/**
 * The catalog on a platform: its service, its operator side, its consumers (subscribed here, so
 * call this before the platform starts) and its routers.
 */
export function createCatalog(platform: Platform, ports: CatalogPorts) {
  const { config, database, bus, storage, logger } = platform;
  const mediaSecret = serverSecret(config, 'MEDIA_SECRET');
  const service = createCatalogService({ database, entitlement: ports.entitlement ?? freeEpisodesOnly, viewers: ports.viewers, mediaSecret });
  const admin = createCatalogAdmin({ database, bus, storage, transcoder: ports.transcoder, onChange: service.forgetCachedPages });
  subscribeCatalogConsumers(bus, { storage, onChange: service.forgetCachedPages });

  return {
    service,
    admin,
    directory: catalogClientInProcess(service),

    /**
     * Why this catalog cannot serve viewers yet, or null. With the demo on, a site with nothing
     * to play is still starting: ready once the first episode has been transcoded.
     */
    async notReadyBecause(): Promise<string | null> {
      if (!config.DEMO || (await catalogRepository.hasReadyEpisode(database.db))) return null;
      return 'the demo catalog is preparing its first episode';
    },
    routes: () => [catalogRoutes(service), adminRoutes(admin, { adminToken: config.ADMIN_TOKEN, incomingDir: path.join(config.dataDir, 'incoming') })],
    /** /media: covers, playlists and segments, the hottest path of the site. */
    mediaRoutes: () => mediaRoutes(storage, mediaSecret),

    /**
     * Work that runs beside serving, once the platform has started: queue again any transcode a
     * crash may have lost, and with DEMO on, fill an empty catalog. Answers how to stop it.
     */
    startBackground(options: { demo: boolean }) {
      const abort = new AbortController();
      const done = (async () => {
        const resumed = await admin.resumeTranscodes();
        if (resumed) logger.info({ episodes: resumed }, 'transcodes queued again');
        if (options.demo) await seedDemoCatalog({ database, admin, logger, signal: abort.signal });
      })().catch((error: unknown) => {
        if (!abort.signal.aborted) logger.error({ err: error }, 'catalog background work failed');
      });
      return {
        done,
        stop: () => abort.abort(),
      };
    },
  };
}

export type Catalog = ReturnType<typeof createCatalog>;
