import { Conflict, Invalid, NotFound, type Page, type RequestContext, type SavedMethod } from '@cliffhanger/platform';
import { createCheckout, type PayInput, type PayOptions } from './checkout.ts';
import { createGuestMerges } from './guest-merge.ts';
import { paymentRepository as repo, type PlanChanges } from './repository.ts';
import { createSettlement, type PaymentServiceDeps } from './settlement.ts';
import { createSubscriptions } from './subscriptions.ts';
import { adminPlanView, orderView, planView, subscriptionView, type AdminPlan, type Order, type PayResult, type Plan, type Subscription } from './views.ts';

export type { PaymentServiceDeps } from './settlement.ts';

/** Orders left waiting on the provider this long (a lost webhook) are asked about directly. */
const RECONCILE_AFTER_MS = 2 * 60_000;

export interface Payments extends Page<Order> {
  subscription: Subscription | null;
}

/** An operator's change to a plan: any of these fields, checked against the plan's kind. */
export interface PlanUpdate {
  title?: string;
  priceAmount?: number;
  coins?: number;
  bonusCoins?: number;
  periodDays?: number;
  active?: boolean;
  position?: number;
}

export function createPaymentService(deps: PaymentServiceDeps) {
  const core = { ...deps, now: deps.now ?? (() => new Date()) };
  const { database, bus, logger, provider, now } = core;
  const db = database.db;
  const settlement = createSettlement(core);
  const checkout = createCheckout(core, settlement);
  const subscriptions = createSubscriptions(core, settlement);
  const merges = createGuestMerges(core, settlement);

  return {
    /** The plans on sale; the first-purchase offer only to a caller who never paid (and to anonymous ones). */
    async listPlans(userId: string | null): Promise<Plan[]> {
      const rows = await repo.plans(db, { activeOnly: true });
      const paid = userId ? await repo.hasPaid(db, userId) : false;
      return rows.filter((row) => !(paid && row.firstPurchaseOnly)).map(planView);
    },

    createOrder: (context: RequestContext, userId: string, planId: string): Promise<Order> => checkout.createOrder(context, userId, planId),
    pay: (userId: string, input: PayInput, options: PayOptions): Promise<PayResult> => checkout.pay(userId, input, options),
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
      const settled = await database.transaction(async (tx) => {
        if (!(await repo.markWebhookProcessed(tx, event.id, event.type, event.orderId, at))) return null;
        if (event.type === 'payment.succeeded') return settlement.settleInTx(tx, event.orderId, event.paymentId, event.savedMethod ?? null, at);
        const reason = event.reason ?? 'card_declined';
        const failed = await repo.failPendingPayment(tx, event.orderId, event.paymentId, reason, at);
        if (failed) await settlement.paymentFailedEvent(tx, failed, reason);
        return null;
      });
      bus.nudge();
      if (settled) await settlement.afterSettled(settled);
    },

    /** Refunds a paid order (the money goes back outside this port): its coins clawed back, the VIP it bought ended. */
    async refundOrder(orderId: string, reason: string | null): Promise<Order> {
      const at = now();
      const { order, fresh } = await database.transaction(async (tx) => {
        const current = await repo.orderById(tx, orderId);
        if (!current) throw new NotFound('No such order');
        if (current.status === 'refunded') return { order: current, fresh: false };
        if (current.status !== 'succeeded') throw new Conflict('Only a paid order can be refunded');
        const refunded = await repo.moveOrder(tx, orderId, ['succeeded'], { status: 'refunded', refundedAt: at, refundReason: reason, updatedAt: at, unlockSyncedAt: null });
        if (!refunded) throw new Conflict('This order changed meanwhile: try again');
        if (refunded.kind === 'vip' && refunded.subscriptionId) {
          await repo.lockSubscriptionsOf(tx, refunded.userId);
          const ended = await repo.changeLiveSubscription(tx, refunded.subscriptionId, {}, { status: 'canceled', endedAt: at, nextRetryAt: null, updatedAt: at });
          if (ended) await settlement.subscriptionEvent(tx, 'subscription.canceled', ended);
        }
        return { order: refunded, fresh: true };
      });
      if (fresh) {
        bus.nudge();
        await settlement.syncOrder(orderId).catch((error: unknown) => logger.error({ err: error, orderId }, 'refund not applied by the unlock service yet; the sweep retries'));
      }
      return orderView(order);
    },

    adminPlans: async (): Promise<AdminPlan[]> => (await repo.plans(db, { activeOnly: false })).map(adminPlanView),

    /** Changes a plan at once for new orders; orders already placed keep the terms they copied. */
    async updatePlan(id: string, update: PlanUpdate): Promise<AdminPlan> {
      const plan = await repo.planById(db, id);
      if (!plan) throw new NotFound('No such plan');
      const wrongKind: Record<string, string> = {};
      if (plan.kind === 'vip') {
        if (update.coins !== undefined) wrongKind.coins = 'A VIP plan has no coins';
        if (update.bonusCoins !== undefined) wrongKind.bonusCoins = 'A VIP plan has no bonus coins';
      } else {
        if (update.periodDays !== undefined) wrongKind.periodDays = 'A coin pack has no period';
        if (update.coins === 0) wrongKind.coins = 'A coin pack needs at least 1 coin';
      }
      if (Object.keys(wrongKind).length) throw new Invalid(wrongKind);
      const changes: PlanChanges = Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined));
      return adminPlanView((await repo.updatePlan(db, id, changes, now()))!);
    },

    /**
     * The work of every minute: renewals due, orders left waiting on the provider (a lost webhook),
     * and orders whose unlock side is still owed (a crash after commit).
     */
    async runDueWork(at: Date = now()): Promise<void> {
      await subscriptions.renewDueSubscriptions(at);
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
    },
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
