import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate, type Platform } from '@cliffhanger/platform';
import { createUserService, noStanding, userMigrations, userRoutes, type CatalogDirectory } from '@cliffhanger/user';
import { createGatewayApp } from './app.ts';

export const storefrontDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../storefront/dist');

export interface ComposeOptions {
  catalog: CatalogDirectory;
  storefrontDir?: string | null;
}

/**
 * Every service in this process behind one gateway (TARGET=all): each service's migrations, its
 * event consumers and job workers registered on the shared platform, its routes on the gateway.
 */
export async function composeEmbedded(platform: Platform, options: ComposeOptions) {
  await migrate(platform.database, 'user', userMigrations);
  const users = createUserService({
    database: platform.database,
    bus: platform.bus,
    mailer: platform.mailer,
    catalog: options.catalog,
    standing: noStanding,
    publicUrl: platform.config.PUBLIC_URL ?? `http://${platform.config.HOST}:${platform.config.PORT}`,
  });
  const app = createGatewayApp({
    platform,
    authenticate: users.authenticate,
    routes: (authLimiter) => [userRoutes(users, authLimiter)],
    storefrontDir: options.storefrontDir === undefined ? storefrontDist : options.storefrontDir,
  });
  return { app, users };
}
