import type { Page, RequestContext } from '@cliffhanger/platform';
import type { SavedMethod } from './providers/index.ts';
import { GRACE_DAYS_DEFAULT } from './billing.ts';
import { createCardReplacement } from './card-replacement.ts';
import { createCheckout, type PayInput, type PayOptions } from './checkout.ts';
import { createGuestMerges } from './guest-merge.ts';
import { createOrdersAdmin } from './orders-admin.ts';
import { createPlansAdmin } from './plans-admin.ts';
import { createRefunds } from './refunds.ts';
import { paymentRepository as repo } from './repository.ts';
import type { PaymentServiceDeps } from './core.ts';
import { createSettlement } from './settlement.ts';
import { createSubscriptions } from './subscriptions.ts';
import { createVipGrants } from './vip-grants.ts';
import { adminPlanView, orderView, planView, subscriptionView, type AdminPlan, type Order, type PayResult, type Plan, type Subscription } from './views.ts';

export type { PaymentServiceDeps } from './core.ts';
export type { NewPlan, PlanUpdate } from './plans-admin.ts';

/** Orders left waiting on the provider this long (a lost webhook) are asked about directly. */
const RECONCILE_AFTER_MS = 2 * 60_000;

export interface Payments extends Page<Order> {
  subscription: Subscription | null;
}

export function createPaymentService(deps: PaymentServiceDeps) {
  const core = { ...deps, now: deps.now ?? (() => new Date()), graceDays: deps.graceDays ?? GRACE_DAYS_DEFAULT, publicUrl: deps.publicUrl ?? 'http://localhost:8080' };
  const { database, bus, logger, provider, now } = core;
  const db = database.db;
  const settlement = createSettlement(core);
  const checkout = createCheckout(core, settlement);
  const subscriptions = createSubscriptions(core, settlement);
  const merges = createGuestMerges(core, settlement);
  const replaceCard = createCardReplacement(core, checkout, subscriptions);
  const refunds = createRefunds(core, settlement);
  const plansAdmin = createPlansAdmin(core);
  const ordersAdmin = createOrdersAdmin(core);
  const vipGrants = createVipGrants(core, settlement);

  return {
    /** The plans on sale; the first-purchase offer only to a caller who never paid (and to anonymous ones). */
    async listPlans(userId: string | null): Promise<Plan[]> {
      const rows = await repo.plans(db, { activeOnly: true });
      const paid = userId ? await repo.hasPaid(db, userId) : false;
      return rows.filter((row) => !(paid && row.firstPurchaseOnly)).map(planView);
    },

    createOrder: (context: RequestContext, userId: string, planId: string): Promise<Order> => checkout.createOrder(context, userId, planId),
    pay: (userId: string, input: PayInput, options: PayOptions): Promise<PayResult> => checkout.pay(userId, input, options),
    /** `POST /api/payment/complete`: a payment after the page's 3-D Secure challenge, settled now (checkout.ts). */
    completePayment: (userId: string, orderId: string): Promise<PayResult> => checkout.complete(userId, orderId),
    startRedirect: checkout.startRedirect,
    cancelRedirect: checkout.cancelRedirect,

    async listPayments(userId: string, page: number, size: number): Promise<Payments> {
      const [rows, latest] = await Promise.all([repo.ordersPage(db, userId, (page - 1) * size, size + 1), repo.latestSubscriptionOf(db, userId)]);
      return { items: rows.slice(0, size).map(orderView), page, size, hasMore: rows.length > size, subscription: latest && subscriptionView(latest) };
    },

    async subscriptionOf(userId: string): Promise<Subscription | null> {
      const latest = await repo.latestSubscriptionOf(db, userId);
      return latest && subscriptionView(latest);
    },

    cancelSubscription: subscriptions.cancel,
    resumeSubscription: subscriptions.resume,
    renewDueSubscriptions: subscriptions.renewDueSubscriptions,
    renewEarly: subscriptions.renewEarly,
    /** `POST /api/payment/method`: a new card for a past-due subscription, charged at once (card-replacement.ts). */
    replaceCard,
    sendDueReminders: settlement.mails.sendDueReminders,
    /** The buyer's note of a refund (`order.refunded`), once per refund. */
    async mailRefund(orderId: string, refundId: string, amount: { amount: number; currency: string }): Promise<void> {
      const order = await repo.orderById(db, orderId);
      if (order) await settlement.mails.refund(order, refundId, amount);
    },
    settleOrder: (orderId: string, paymentId: string, savedMethod: SavedMethod | null): Promise<boolean> => settlement.settleOrder(orderId, paymentId, savedMethod),

    /** `user.logged_in` with a guest: its orders and subscriptions to the member, in the consumer's transaction (guest-merge.ts). */
    mergeGuestPurchases: merges.mergeGuestPurchases,
    afterGuestMerge: merges.afterGuestMerge,

    /**
     * A provider webhook, verified on its raw body (throws WebhookSignatureError). Its event id is
     * recorded in the transaction of its effect, so a redelivery changes nothing.
     */
    async receiveWebhook(rawBody: Buffer, signature: string | undefined): Promise<void> {
      const event = provider.parseWebhook(rawBody, signature);
      if (!event) return;
      const at = now();
      const orderId = 'orderId' in event ? event.orderId : null;
      const outcome = await database.transaction(async (tx) => {
        if (!(await repo.markWebhookProcessed(tx, event.id, event.type, orderId, at))) return null;
        switch (event.type) {
          case 'payment.succeeded':
            return { settled: await settlement.settleInTx(tx, event.orderId, event.paymentId, event.savedMethod, at) };
          case 'payment.failed': {
            const failed = await repo.failPendingPayment(tx, event.orderId, event.paymentId, event.reason, at);
            if (failed) await settlement.paymentFailedEvent(tx, failed, event.reason);
            return null;
          }
          case 'payment.refunded':
            return { changed: await refunds.providerRefundedInTx(tx, event, at), disputeId: null };
          default:
            return { changed: await refunds.disputeInTx(tx, event, at), disputeId: event.disputeId };
        }
      });
      bus.nudge();
      if (outcome && 'settled' in outcome && outcome.settled) await settlement.afterSettled(outcome.settled);
      if (outcome && 'changed' in outcome && outcome.changed) await refunds.afterProviderChange(outcome.changed, outcome.disputeId);
    },

    /** An operator's refund through the provider, whole or in part, and what it reversed (refunds.ts). */
    refundOrder: refunds.refundOrder,

    adminPlans: async (): Promise<AdminPlan[]> => (await repo.plans(db, { activeOnly: false })).map(adminPlanView),

    /** Plans as operators create, change and retire them (plans-admin.ts). */
    ...plansAdmin,
    /** The operators' order search (orders-admin.ts). */
    findOrders: ordersAdmin.findOrders,
    /** VIP days an operator grants with a reason, audited (vip-grants.ts). */
    grantVipDays: vipGrants.grantVipDays,

    /**
     * The work of every minute: renewals due, orders left waiting on the provider (a lost webhook),
     * and orders whose unlock side is still owed (a crash after commit).
     */
    async runDueWork(at: Date = now()): Promise<void> {
      await subscriptions.renewDueSubscriptions(at);
      await subscriptions.settleOpenCharges(at);
      await settlement.mails.sendDueReminders(at).catch((error: unknown) => logger.error({ err: error }, 'renewal reminders not sent; tried again on the next run'));
      for (const order of await repo.waitingOrders(db, new Date(at.getTime() - RECONCILE_AFTER_MS), 50)) {
        try {
          const payment = await provider.retrieve(order.paymentId!);
          if (payment.status === 'succeeded') await settlement.settleOrder(order.id, payment.paymentId, payment.savedMethod);
          if (payment.status === 'failed') {
            await database.transaction(async (tx) => {
              const failed = await repo.failPendingPayment(tx, order.id, payment.paymentId ?? order.paymentId!, payment.reason, at);
              if (failed) await settlement.paymentFailedEvent(tx, failed, payment.reason);
            });
          }
          // Still waiting: asked again a few minutes on, not on every run.
          if (payment.status === 'requires_action' || payment.status === 'processing') await repo.setOrderFields(db, order.id, { updatedAt: at });
        } catch (error) {
          logger.warn({ err: error, orderId: order.id }, 'waiting payment not reconciled');
        }
      }
      await settlement.syncPendingOrders(at);
      await refunds.runDueWork(at);
    },
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
