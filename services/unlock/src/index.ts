export { unlockModule, unlockMigrations } from './module.ts';
export { unlockClientOverHttp, type UnlockClient } from './client.ts';
export {
  BONUS_COIN_DAYS,
  createUnlockService,
  type BonusGrant,
  type Credit,
  type OrderCredit,
  type Refund,
  type Standing,
  type UnlockedVideo,
  type UnlockService,
  type Vip,
  type VipState,
} from './service.ts';
export type { CatalogTerms, EpisodeOffer, EpisodeTerms, VideoCard } from './ports.ts';
