import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, type Background, type Logger } from '@cliffhanger/platform';
import { unlockClientInProcess, unlockClientOverHttp, unlockInternalRoutes, type UnlockClient } from './client.ts';
import { subscribeUnlockConsumers } from './events.ts';
import type { CatalogTerms } from './ports.ts';
import { unlockRoutes } from './routes.ts';
import { createUnlockService, type UnlockService } from './service.ts';

export const unlockMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

const SWEEP_EVERY_MS = 60 * 60_000;

/** Expires lapsed bonus coins now and every hour; lapsed lots are unspendable meanwhile, so the hour only delays the ledger entry. */
function sweepBonusCoins(unlocks: UnlockService, logger: Logger): Background {
  let running = Promise.resolve();
  const sweep = () => {
    running = running
      .then(() => unlocks.expireBonusCoins())
      .then(
        (coins) => {
          if (coins) logger.info({ coins }, 'bonus coins expired');
        },
        (error: unknown) => logger.error({ err: error }, 'expiring bonus coins failed'),
      );
  };
  sweep();
  const timer = setInterval(sweep, SWEEP_EVERY_MS).unref();
  return {
    stop: () => {
      clearInterval(timer);
      return running;
    },
  };
}

/** Coin wallets, their ledger, episode unlocks and who may watch what (README.md). */
export const unlockModule = defineModule<UnlockClient>({
  name: 'unlock',
  migrations: unlockMigrations,
  // The check-in pays from the wallet in the same transaction, so this service answers it; a gateway
  // routes it here ahead of the user service's `/api/user` (longest prefix first).
  publicPrefixes: ['/api/video/unlock', '/api/video/unlocked', '/api/user/checkin'],
  needs: ['catalog'],
  init({ platform, client }) {
    const unlocks = createUnlockService(platform);
    // Consumers subscribe before the platform starts delivering.
    subscribeUnlockConsumers(platform.bus, unlocks);
    return {
      client: unlockClientInProcess(unlocks),
      routes: [unlockRoutes(unlocks, client<CatalogTerms>('catalog'))],
      internalRoutes: [unlockInternalRoutes(unlocks)],
      background: () => sweepBonusCoins(unlocks, platform.logger),
    };
  },
  remoteClient: ({ http }) => unlockClientOverHttp(http()),
});
