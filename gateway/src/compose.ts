import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, type Platform } from '@cliffhanger/platform';
import { createUserService, noStanding, userMigrations, userRoutes, type CatalogDirectory, type UserService } from '@cliffhanger/user';
import { catalogMigrations, createCatalog } from '@cliffhanger/catalog';
import { registerTranscodeWorker, transcodeRequests } from '@cliffhanger/transcoder';
import { analyticsRoutes, createAnalyticsService } from '@cliffhanger/analytics';
import { createGatewayApp } from './app.ts';

export const storefrontDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../storefront/dist');

export interface ComposeOptions {
  /** What the user service sees of the catalog; the real catalog's directory unless a test swaps it. */
  catalog?: CatalogDirectory;
  storefrontDir?: string | null;
}

/**
 * Every service in this process behind one gateway (TARGET=all): each service's migrations, its
 * event consumers and job workers registered on the shared platform, its routes on the gateway.
 */
export async function composeEmbedded(platform: Platform, options: ComposeOptions) {
  await migrate(platform.database, 'user', userMigrations);
  await migrate(platform.database, 'catalog', catalogMigrations);
  // The catalog and the user service ask each other; the catalog's questions wait for `users`.
  let users: UserService | undefined;
  const catalog = createCatalog(platform, {
    viewers: {
      viewerOf: (userId, videoId) => users!.viewerOf(userId, videoId),
    },
    transcoder: transcodeRequests(platform.queue),
  });
  registerTranscodeWorker({ ...platform, workDir: path.join(platform.config.dataDir, 'transcoding') });
  users = createUserService({
    database: platform.database,
    bus: platform.bus,
    mailer: platform.mailer,
    catalog: options.catalog ?? catalog.directory,
    standing: noStanding,
    publicUrl: platform.config.PUBLIC_URL ?? `http://${platform.config.HOST}:${platform.config.PORT}`,
  });
  const app = createGatewayApp({
    platform,
    authenticate: users.authenticate,
    routes: (authLimiter) => [userRoutes(users, authLimiter), ...catalog.routes(), analyticsRoutes(createAnalyticsService(platform))],
    storefrontDir: options.storefrontDir === undefined ? storefrontDist : options.storefrontDir,
    readiness: catalog.notReadyBecause,
    media: catalog.mediaRoutes(),
  });
  return { app, users, catalog };
}
