export { unlockModule, unlockMigrations } from './module.ts';
export { unlockClientOverHttp, type UnlockClient } from './client.ts';
export {
  BONUS_COIN_DAYS,
  createUnlockService,
  type AdminWallet,
  type BonusGrant,
  type CoinGrant,
  type Credit,
  type OrderCredit,
  type OrderReversal,
  type Restoral,
  type Reversal,
  type Standing,
  type UnlockedVideo,
  type UnlockService,
  type Vip,
  type VipState,
} from './service.ts';
export type { CatalogTerms, EpisodeOffer, EpisodeTerms, VideoCard } from './ports.ts';
