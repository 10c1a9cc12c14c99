import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import { ConfigError, migrate, TtlCache, type Config, type Platform } from '@cliffhanger/platform';
import { catalogClientOverHttp, catalogInternalRoutes, catalogMigrations, createCatalog } from '@cliffhanger/catalog';
import { registerTranscodeWorker, transcodeRequests } from '@cliffhanger/transcoder';
import { createUserService, noStanding, userClientOverHttp, userInternalRoutes, userMigrations, userRoutes } from '@cliffhanger/user';
import { analyticsRoutes, createAnalyticsService } from '@cliffhanger/analytics';
import { createGatewayApp } from './app.ts';
import { composeEmbedded, storefrontDist } from './compose.ts';
import { forwardTo } from './proxy.ts';
import { createServiceApp } from './service-app.ts';

/** What a process runs: its HTTP app, and work beside serving that starts once the platform has. */
export interface Composition {
  app: ReturnType<typeof createGatewayApp>;
  startBackground?: () => { stop(): void };
}

function required<K extends keyof Config>(config: Config, name: K): NonNullable<Config[K]> {
  const value = config[name];
  if (!value) throw new ConfigError(`config: ${name}: required when TARGET=${config.TARGET}`);
  return value as NonNullable<Config[K]>;
}

const publicUrlOf = (config: Config) => config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`;
const passThrough: RequestHandler = (_req, _res, next) => next();

/**
 * Builds the process TARGET asks for (DESIGN.md "One codebase, two deployments"): everything in
 * one process, or the gateway, one service, or the transcoder alone, reaching the others over HTTP.
 */
export async function composeTarget(platform: Platform): Promise<Composition> {
  const { config } = platform;
  switch (config.TARGET) {
    case 'all': {
      const { app, catalog } = await composeEmbedded(platform, {});
      return { app, startBackground: () => catalog.startBackground({ demo: config.DEMO }) };
    }
    case 'gateway': {
      const token = required(config, 'INTERNAL_TOKEN');
      const userUrl = required(config, 'USER_SERVICE_URL');
      const toUser = forwardTo(userUrl, token, platform.logger);
      const toCatalog = forwardTo(required(config, 'CATALOG_SERVICE_URL'), token, platform.logger);
      const users = userClientOverHttp(userUrl, token);
      // Saves a call to the user service per request; the same 5 s rule as the service's own cache.
      const sessions = new TtlCache<string, string | null>(5_000, 50_000);
      const authenticate = async (userToken: string | undefined) => {
        if (!userToken) return null;
        const cached = sessions.get(userToken);
        if (cached !== undefined) return cached;
        const userId = await users.authenticate(userToken);
        if (userId) sessions.set(userToken, userId);
        return userId;
      };
      const app = createGatewayApp({
        platform,
        authenticate,
        routes: (authLimiter) => {
          const router = Router();
          for (const guarded of ['/api/user/login', '/api/user/register', '/api/user/password/forgot', '/api/user/password/reset'])
            router.post(guarded, authLimiter);
          router.post('/api/user/logout', (req, _res, next) => {
            sessions.delete(req.get('x-user-token') ?? '');
            next();
          });
          router.use('/api/user', toUser);
          // Pixel hits are the cheapest, most frequent call: the gateway records them itself.
          router.use(analyticsRoutes(createAnalyticsService(platform)));
          router.use(['/api/tag', '/api/homepage', '/api/video', '/api/admin'], toCatalog);
          return [router];
        },
        storefrontDir: storefrontDist,
        media: Router().use('/media', toCatalog),
      });
      return { app };
    }
    case 'user': {
      await migrate(platform.database, 'user', userMigrations);
      const token = required(config, 'INTERNAL_TOKEN');
      const users = createUserService({
        ...platform,
        catalog: catalogClientOverHttp(required(config, 'CATALOG_SERVICE_URL'), token),
        standing: noStanding,
        publicUrl: publicUrlOf(config),
      });
      // Rate limits are the gateway's: every call here already passed it.
      return { app: createServiceApp(platform, token, [userRoutes(users, passThrough), userInternalRoutes(users)]) };
    }
    case 'catalog': {
      await migrate(platform.database, 'catalog', catalogMigrations);
      const token = required(config, 'INTERNAL_TOKEN');
      const catalog = createCatalog(platform, {
        viewers: userClientOverHttp(required(config, 'USER_SERVICE_URL'), token),
        transcoder: transcodeRequests(platform.queue),
      });
      return {
        app: createServiceApp(platform, token, [catalog.mediaRoutes(), ...catalog.routes(), catalogInternalRoutes(catalog.service)], catalog.notReadyBecause),
        startBackground: () => catalog.startBackground({ demo: config.DEMO }),
      };
    }
    case 'transcoder': {
      registerTranscodeWorker({ ...platform, workDir: path.join(config.dataDir, 'transcoding') });
      return { app: createServiceApp(platform, required(config, 'INTERNAL_TOKEN'), []) };
    }
  }
}
