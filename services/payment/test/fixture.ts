import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  createPostgresBus,
  queryRows,
  systemContext,
  type AdminCall,
  type Mail,
  type RequestContext,
} from '@cliffhanger/platform';
import { openMigratedDatabase, silentLogger, testClock } from '@cliffhanger/platform/testing';
import { createUnlockService, unlockModule, type UnlockService } from '@cliffhanger/unlock';
import { paymentModule } from '../src/module.ts';
import type { OrderCredit, UnlockLedger, VipState } from '../src/ports.ts';
import { createSandboxProvider, signWebhook, type PaymentProvider, type SandboxPaymentProvider } from '../src/providers/index.ts';
import { createPaymentService } from '../src/service.ts';
import type { PayResult } from '../src/views.ts';

export const DAY_MS = 86_400_000;

/** An admin call made with ADMIN_TOKEN, as the admin routes pass it to the service (audited as "token"). */
export const byToken: AdminCall = { context: systemContext('admin-test'), caller: { actor: 'token', role: 'admin' } };
export const WEBHOOK_SECRET = 'whsec_paymentTestSecret0123456789';

export { TEST_CARDS as cards } from '../src/providers/index.ts';

/**
 * The unlock service's side of the port over Maps: credits by order id, reversals by reference
 * (coins only: the unlock service's own tests revoke unlocks), VIP as last reported. It counts the calls, and can be told to fail the next ones (the unlock service down).
 */
export function memoryLedger() {
  const credits = new Map<string, OrderCredit & { context: RequestContext }>();
  const reversals = new Map<string, { userId: string; coins: number; restored: boolean }>();
  const vip = new Map<string, VipState>();
  const calls = { creditOrder: 0, reverseOrder: 0, restoreReversal: 0, applyVip: 0 };
  const creditCalls = new Map<string, number>();
  let outages = 0;
  const balanceOf = (userId: string) =>
    [...credits.values()].filter((credit) => credit.userId === userId).reduce((sum, credit) => sum + credit.coins + credit.bonusCoins, 0) -
    [...reversals.values()].filter((reversal) => reversal.userId === userId && !reversal.restored).reduce((sum, reversal) => sum + reversal.coins, 0);
  const unavailable = () => {
    if (outages === 0) return;
    outages -= 1;
    throw new Error('unlock service unavailable');
  };
  const ledger: UnlockLedger = {
    async creditOrder(context, order) {
      unavailable();
      calls.creditOrder += 1;
      creditCalls.set(order.orderId, (creditCalls.get(order.orderId) ?? 0) + 1);
      const credited = !credits.has(order.orderId);
      if (credited) credits.set(order.orderId, { ...order, context });
      return { credited, balance: balanceOf(order.userId) };
    },
    async reverseOrder(_context, reversal) {
      unavailable();
      calls.reverseOrder += 1;
      const credit = credits.get(reversal.orderId)!;
      const earlier = reversals.get(reversal.reference);
      if (earlier) return { reversed: false, coinsTaken: earlier.coins, unlocksRevoked: 0, balance: balanceOf(credit.userId) };
      const coins = Math.min(reversal.paidCoins + reversal.bonusCoins, balanceOf(credit.userId));
      reversals.set(reversal.reference, { userId: credit.userId, coins, restored: false });
      return { reversed: true, coinsTaken: coins, unlocksRevoked: 0, balance: balanceOf(credit.userId) };
    },
    async restoreReversal(_context, orderId, reference) {
      unavailable();
      calls.restoreReversal += 1;
      const reversal = reversals.get(reference);
      const fresh = Boolean(reversal && !reversal.restored);
      if (reversal) reversal.restored = true;
      return { restored: fresh, coinsReturned: fresh ? reversal!.coins : 0, unlocksRestored: 0, balance: balanceOf(credits.get(orderId)!.userId) };
    },
    async applyVip(userId, state) {
      unavailable();
      calls.applyVip += 1;
      if (state) vip.set(userId, state);
      else vip.delete(userId);
    },
  };
  return { ledger, credits, reversals, vip, calls, balanceOf, creditCallsOf: (orderId: string) => creditCalls.get(orderId) ?? 0, failNext: (count: number) => void (outages = count) };
}

/**
 * The payment service on a fresh database with the real sandbox provider (no webhooks sent), a ledger
 * over Maps and a clock the test moves; with `wallets`, the real unlock service on the same database
 * and clock is its ledger instead (coins spent, unlocks revoked, VIP as the viewer sees it).
 */
export async function openPayments(options: { provider?: (sandbox: SandboxPaymentProvider) => PaymentProvider; wallets?: boolean } = {}) {
  const database = await openMigratedDatabase(paymentModule, ...(options.wallets ? [unlockModule] : []));
  const clock = testClock();
  const sandbox = createSandboxProvider(database, { publicUrl: '', webhookUrl: null, webhookSecret: WEBHOOK_SECRET, logger: silentLogger });
  const unlock = memoryLedger();
  const bus = createPostgresBus(database, silentLogger);
  const wallets: UnlockService | null = options.wallets ? createUnlockService({ database, bus, now: clock.now }) : null;
  const mails: Mail[] = [];
  const payments = createPaymentService({
    database,
    bus,
    logger: silentLogger,
    mailer: { kind: 'file', send: async (mail) => void mails.push(mail) },
    provider: options.provider?.(sandbox) ?? sandbox,
    unlock: wallets ?? unlock.ledger,
    now: clock.now,
  });
  const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(database.db, query);

  /** What the card form's createConfirmationToken gives for a card. */
  async function tokenize(number: string): Promise<string> {
    const answer = await sandbox.createConfirmationToken({
      payment_method_data: { type: 'card', card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' } },
    });
    if ('error' in answer) throw new Error(answer.error.message);
    return answer.id;
  }

  return {
    database,
    payments,
    sandbox,
    unlock,
    wallets,
    clock,
    mails,
    rows,
    tokenize,

    /** A new buyer: their id and the context of their calls, with attribution from an ad click. */
    buyer() {
      const userId = `user-${randomUUID()}`;
      const context: RequestContext = { ...systemContext(`request-${userId}`), userId, attribution: { referrerToken: 'ref-1', fbclid: 'fb-1', ttclid: null } };
      return { userId, context };
    },

    /** Pays an order with a test card under a fresh key (or the one given). */
    async pay(userId: string, orderId: string, card: string, key: string = randomUUID()): Promise<PayResult> {
      const input = { orderId, paymentToken: await tokenize(card), email: 'ada@example.com', firstName: 'Ada', lastName: 'Viewer' };
      return payments.pay(userId, input, { idempotencyKey: key, origin: 'https://shop.example' });
    },

    /** A Stripe-shaped event about a payment, signed as the provider signs it (`ageSeconds` back in time). */
    webhook(type: 'payment_intent.succeeded' | 'payment_intent.payment_failed', paymentId: string, orderId: string, options: { secret?: string; ageSeconds?: number; intent?: Record<string, unknown> } = {}) {
      const body = JSON.stringify({
        id: `evt_${randomUUID().replace(/-/g, '')}`,
        object: 'event',
        type,
        created: Math.floor(Date.now() / 1000),
        data: { object: { id: paymentId, object: 'payment_intent', metadata: { orderId }, ...options.intent } },
      });
      const timestamp = Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0);
      return { raw: Buffer.from(body), body, signature: signWebhook(body, options.secret ?? WEBHOOK_SECRET, timestamp) };
    },

    /** Any Stripe-shaped event (a charge, a dispute) signed as the provider signs it; `id` to deliver the same event again. */
    providerEvent(type: string, object: Record<string, unknown>, id = `evt_${randomUUID().replace(/-/g, '')}`) {
      const body = JSON.stringify({ id, object: 'event', type, created: Math.floor(Date.now() / 1000), livemode: false, data: { object } });
      return { id, raw: Buffer.from(body), signature: signWebhook(body, WEBHOOK_SECRET) };
    },

    orderRow: async (orderId: string) =>
      (await rows<{ status: string; payment_id: string | null; unlock_synced_at: string | Date | null; email: string | null }>(sql`select status, payment_id, unlock_synced_at, email from payment.orders where id = ${orderId}`))[0]!,
    chargesOf: async (orderId: string) =>
      Number((await rows<{ n: number }>(sql`select count(*)::int as n from sandbox_payments.payments where order_id = ${orderId}`))[0]!.n),
    eventsOf: (type: string, userId: string) =>
      rows<{ data: Record<string, any>; attribution: Record<string, unknown> }>(
        sql`select data, attribution from platform.outbox where type = ${type} and user_id = ${userId} order by id`,
      ),
    close: () => database.close(),
  };
}

export type PaymentsSite = Awaited<ReturnType<typeof openPayments>>;
