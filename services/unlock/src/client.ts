import { Router } from 'express';
import { z } from 'zod';
import { ok, parseInput, requiredText, type RequestContext, type ServiceClient } from '@cliffhanger/platform';
import type { EpisodeTerms, SeriesTerms } from './ports.ts';
import type { BonusGrant, Credit, OrderCredit, Refund, Standing, UnlockService, VipState } from './service.ts';

/** What other services ask the unlock service: coins, entitlements, and credits from payments. */
export interface UnlockClient {
  standingOf(userId: string): Promise<Standing>;
  mayWatch(userId: string | null, terms: EpisodeTerms): Promise<boolean>;
  /** Which of a series' episode numbers this viewer may watch. */
  watchableNumbers(userId: string | null, series: SeriesTerms): Promise<number[]>;
  unlockedNumbers(userId: string, videoId: string): Promise<number[]>;
  creditOrder(context: RequestContext, order: OrderCredit): Promise<Credit>;
  refundOrder(context: RequestContext, orderId: string): Promise<Refund | null>;
  grantBonus(context: RequestContext, grant: BonusGrant): Promise<Credit>;
  applyVip(userId: string, state: VipState | null): Promise<void>;
}

export function unlockClientInProcess(unlocks: UnlockService): UnlockClient {
  return {
    standingOf: unlocks.standingOf,
    mayWatch: unlocks.mayWatch,
    watchableNumbers: unlocks.watchableNumbers,
    unlockedNumbers: unlocks.unlockedNumbers,
    creditOrder: unlocks.creditOrder,
    refundOrder: unlocks.refundOrder,
    grantBonus: unlocks.grantBonus,
    applyVip: unlocks.applyVip,
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
const refundBody = z.object({ orderId: id('orderId') });
const grantBody = z.object({ userId: id('userId'), coins, reference: id('reference'), kind: z.enum(['bonus', 'checkin']) });
const vipBody = z.object({
  userId: id('userId'),
  vip: z.object({ planId: id('planId'), activeUntil: z.coerce.date(), cancelAtPeriodEnd: z.boolean() }).nullable(),
});

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
  router.post('/internal/unlock/refund-order', async (req, res) => {
    res.json(ok(await unlocks.refundOrder(req.context, parseInput(refundBody, req.body).orderId)));
  });
  router.post('/internal/unlock/grant-bonus', async (req, res) => {
    res.json(ok(await unlocks.grantBonus(req.context, parseInput(grantBody, req.body))));
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
    refundOrder: (context, orderId) => http.post('/internal/unlock/refund-order', { orderId }, context),
    grantBonus: (context, grant) => http.post('/internal/unlock/grant-bonus', grant, context),
    applyVip: async (userId, vip) => void (await http.post('/internal/unlock/vip', { userId, vip })),
  };
}
