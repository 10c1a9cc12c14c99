import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  createPostgresBus,
  createSandboxProvider,
  migrate,
  platformMigrations,
  queryRows,
  signWebhook,
  systemContext,
  type Mail,
  type PaymentProvider,
  type RequestContext,
  type SandboxPaymentProvider,
} from '@cliffhanger/platform';
import { openTestDatabase, silentLogger } from '@cliffhanger/platform/testing';
import { paymentMigrations } from '../src/module.ts';
import type { OrderCredit, UnlockLedger, VipState } from '../src/ports.ts';
import { createPaymentService } from '../src/service.ts';
import type { PayResult } from '../src/views.ts';

export const DAY_MS = 86_400_000;
export const WEBHOOK_SECRET = 'whsec_paymentTestSecret0123456789';

export { TEST_CARDS as cards } from '@cliffhanger/platform';

/**
 * The unlock service's side of the port over Maps: credits and refunds by order id, VIP as last
 * reported. It counts the calls, and can be told to fail the next ones (the unlock service down).
 */
export function memoryLedger() {
  const credits = new Map<string, OrderCredit & { context: RequestContext }>();
  const refunded = new Set<string>();
  const vip = new Map<string, VipState>();
  const calls = { creditOrder: 0, refundOrder: 0, applyVip: 0 };
  const creditCalls = new Map<string, number>();
  let outages = 0;
  const balanceOf = (userId: string) =>
    [...credits.values()].filter((credit) => credit.userId === userId && !refunded.has(credit.orderId)).reduce((sum, credit) => sum + credit.coins + credit.bonusCoins, 0);
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
    async refundOrder(_context, orderId) {
      unavailable();
      calls.refundOrder += 1;
      const credit = credits.get(orderId);
      if (!credit) return null;
      const fresh = !refunded.has(orderId);
      refunded.add(orderId);
      return { refunded: fresh, paidCoins: credit.coins, bonusCoins: credit.bonusCoins, balance: balanceOf(credit.userId) };
    },
    async applyVip(userId, state) {
      unavailable();
      calls.applyVip += 1;
      if (state) vip.set(userId, state);
      else vip.delete(userId);
    },
  };
  return { ledger, credits, vip, calls, balanceOf, creditCallsOf: (orderId: string) => creditCalls.get(orderId) ?? 0, failNext: (count: number) => void (outages = count) };
}

/** The payment service on a fresh database with the real sandbox provider (no webhooks sent), a ledger over Maps and a clock the test moves. */
export async function openPayments(options: { provider?: (sandbox: SandboxPaymentProvider) => PaymentProvider } = {}) {
  const database = await openTestDatabase();
  await migrate(database, 'platform', platformMigrations);
  await migrate(database, 'payment', paymentMigrations);
  const clock = {
    time: new Date('2025-03-01T12:00:00Z'),
    advance(ms: number) {
      clock.time = new Date(clock.time.getTime() + ms);
    },
  };
  const sandbox = createSandboxProvider(database, { publicUrl: '', webhookUrl: null, webhookSecret: WEBHOOK_SECRET, logger: silentLogger });
  const unlock = memoryLedger();
  const mails: Mail[] = [];
  const payments = createPaymentService({
    database,
    bus: createPostgresBus(database, silentLogger),
    logger: silentLogger,
    mailer: { kind: 'file', send: async (mail) => void mails.push(mail) },
    provider: options.provider?.(sandbox) ?? sandbox,
    unlock: unlock.ledger,
    now: () => clock.time,
  });
  const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(database.db, query);

  async function tokenize(number: string): Promise<string> {
    const answer = await sandbox.tokenize({ card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' } });
    if ('error' in answer) throw new Error(answer.error.message);
    return answer.id;
  }

  return {
    database,
    payments,
    sandbox,
    unlock,
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
