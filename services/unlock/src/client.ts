import { Router } from 'express';
import { z } from 'zod';
import { ok, pagingSchema, parseInput, requiredText, roles, type AdminCall, type RequestContext, type ServiceClient } from '@cliffhanger/platform';
import type { EpisodeTerms, SeriesTerms } from './ports.ts';
import type { AdminWallet, BonusGrant, CoinGrant, Credit, OrderCredit, OrderReversal, Restoral, Reversal, Standing, UnlockService, VipState } from './service.ts';

/** What other services ask the unlock service: coins, entitlements, and credits from payments. */
export interface UnlockClient {
  standingOf(userId: string): Promise<Standing>;
  mayWatch(userId: string | null, terms: EpisodeTerms): Promise<boolean>;
  /** Which of a series' episode numbers this viewer may watch. */
  watchableNumbers(userId: string | null, series: SeriesTerms): Promise<number[]>;
  unlockedNumbers(userId: string, videoId: string): Promise<number[]>;
  creditOrder(context: RequestContext, order: OrderCredit): Promise<Credit>;
  /** A refund's or dispute's share of an order's coins back, once per reference. */
  reverseOrder(context: RequestContext, reversal: OrderReversal): Promise<Reversal>;
  /** A dispute won: what its reversal took back returned, once. */
  restoreReversal(context: RequestContext, orderId: string, reference: string): Promise<Restoral>;
  grantBonus(context: RequestContext, grant: BonusGrant): Promise<Credit>;
  applyVip(userId: string, state: VipState | null): Promise<void>;
  /** An operator's grant of bonus coins with its reason, audited (the admin API's grants). */
  grantCoins(grant: CoinGrant, by: AdminCall): Promise<{ reference: string; coins: number; balance: number }>;
  /** A wallet as an operator sees it: balances, bonus lots, a ledger page, the latest unlocks. */
  walletOf(userId: string, page: number, size: number): Promise<AdminWallet>;
}

export function unlockClientInProcess(unlocks: UnlockService): UnlockClient {
  return {
    standingOf: unlocks.standingOf,
    mayWatch: unlocks.mayWatch,
    watchableNumbers: unlocks.watchableNumbers,
    unlockedNumbers: unlocks.unlockedNumbers,
    creditOrder: unlocks.creditOrder,
    reverseOrder: unlocks.reverseOrder,
    restoreReversal: unlocks.restoreReversal,
    grantBonus: unlocks.grantBonus,
    applyVip: unlocks.applyVip,
    grantCoins: unlocks.grantCoins,
    walletOf: unlocks.walletOf,
  };
}

const id = (name: string) => requiredText(`${name} is required`, 200);
const coins = z.coerce.number().int().min(0).max(1_000_000);

const userQuery = z.object({ userId: id('userId') });
const numbersQuery = z.object({ userId: id('userId'), videoId: id('videoId') });
const termsQuery = z.object({
  userId: z.string().max(200).optional(),
  episodeId: id('episodeId'),
  videoId: id('videoId'),
  number: z.coerce.number().int().min(1),
  freeEpisodes: coins,
  priceCoins: coins,
});
const seriesBody = z.object({
  userId: z.string().max(200).nullable().optional(),
  videoId: id('videoId'),
  freeEpisodes: coins,
  numbers: z.array(z.number().int().min(1)).max(10_000),
});
const orderBody = z.object({ orderId: id('orderId'), userId: id('userId'), coins, bonusCoins: coins });
const reversalBody = z.object({ orderId: id('orderId'), reference: id('reference'), paidCoins: coins, bonusCoins: coins });
const restoreBody = z.object({ orderId: id('orderId'), reference: id('reference') });
const grantBody = z.object({ userId: id('userId'), coins, reference: id('reference'), kind: z.enum(['bonus', 'checkin']) });
const vipBody = z.object({
  userId: id('userId'),
  vip: z.object({ planId: id('planId'), activeUntil: z.coerce.date(), cancelAtPeriodEnd: z.boolean() }).nullable(),
});

const coinGrantBody = z.object({
  userId: id('userId'),
  coins: coins.min(1),
  reason: requiredText('reason is required', 500),
  caller: z.object({ actor: id('actor'), role: z.enum(roles) }),
});
const walletQuery = pagingSchema.extend({ userId: id('userId') });

/** The unlock service's internal endpoints, behind the INTERNAL_TOKEN check of the service process. */
export function unlockInternalRoutes(unlocks: UnlockService): Router {
  const router = Router();
  router.get('/internal/unlock/standing', async (req, res) => {
    res.json(ok(await unlocks.standingOf(parseInput(userQuery, req.query).userId)));
  });
  router.get('/internal/unlock/may-watch', async (req, res) => {
    const { userId, ...terms } = parseInput(termsQuery, req.query);
    res.json(ok({ allowed: await unlocks.mayWatch(userId || null, terms) }));
  });
  router.post('/internal/unlock/watchable-numbers', async (req, res) => {
    const { userId, ...series } = parseInput(seriesBody, req.body);
    res.json(ok(await unlocks.watchableNumbers(userId ?? null, series)));
  });
  router.get('/internal/unlock/unlocked-numbers', async (req, res) => {
    const { userId, videoId } = parseInput(numbersQuery, req.query);
    res.json(ok(await unlocks.unlockedNumbers(userId, videoId)));
  });
  router.post('/internal/unlock/credit-order', async (req, res) => {
    res.json(ok(await unlocks.creditOrder(req.context, parseInput(orderBody, req.body))));
  });
  router.post('/internal/unlock/reverse-order', async (req, res) => {
    res.json(ok(await unlocks.reverseOrder(req.context, parseInput(reversalBody, req.body))));
  });
  router.post('/internal/unlock/restore-reversal', async (req, res) => {
    const { orderId, reference } = parseInput(restoreBody, req.body);
    res.json(ok(await unlocks.restoreReversal(req.context, orderId, reference)));
  });
  router.post('/internal/unlock/grant-bonus', async (req, res) => {
    res.json(ok(await unlocks.grantBonus(req.context, parseInput(grantBody, req.body))));
  });
  router.post('/internal/unlock/grant-coins', async (req, res) => {
    const { caller, ...grant } = parseInput(coinGrantBody, req.body);
    res.json(ok(await unlocks.grantCoins(grant, { context: req.context, caller })));
  });
  router.get('/internal/unlock/wallet', async (req, res) => {
    const { userId, page, size } = parseInput(walletQuery, req.query);
    res.json(ok(await unlocks.walletOf(userId, page, size)));
  });
  router.post('/internal/unlock/vip', async (req, res) => {
    const { userId, vip } = parseInput(vipBody, req.body);
    await unlocks.applyVip(userId, vip);
    res.json(ok(null));
  });
  return router;
}

const termsAsQuery = (terms: EpisodeTerms): Record<string, string> => ({
  episodeId: terms.episodeId,
  videoId: terms.videoId,
  number: String(terms.number),
  freeEpisodes: String(terms.freeEpisodes),
  priceCoins: String(terms.priceCoins),
});

/** The unlock service over HTTP, for a process it does not run in. */
export function unlockClientOverHttp(http: ServiceClient): UnlockClient {
  return {
    standingOf: (userId) => http.get('/internal/unlock/standing', { userId }),
    mayWatch: async (userId, terms) =>
      (await http.get<{ allowed: boolean }>('/internal/unlock/may-watch', { ...termsAsQuery(terms), ...(userId ? { userId } : {}) })).allowed,
    watchableNumbers: (userId, series) => http.post('/internal/unlock/watchable-numbers', { userId, ...series }),
    unlockedNumbers: (userId, videoId) => http.get('/internal/unlock/unlocked-numbers', { userId, videoId }),
    creditOrder: (context, order) => http.post('/internal/unlock/credit-order', order, context),
    reverseOrder: (context, reversal) => http.post('/internal/unlock/reverse-order', reversal, context),
    restoreReversal: (context, orderId, reference) => http.post('/internal/unlock/restore-reversal', { orderId, reference }, context),
    grantBonus: (context, grant) => http.post('/internal/unlock/grant-bonus', grant, context),
    applyVip: async (userId, vip) => void (await http.post('/internal/unlock/vip', { userId, vip })),
    grantCoins: (grant, { context, caller }: AdminCall) => http.post('/internal/unlock/grant-coins', { ...grant, caller }, context),
    walletOf: (userId, page, size) => http.get('/internal/unlock/wallet', { userId, page: String(page), size: String(size) }),
  };
}
