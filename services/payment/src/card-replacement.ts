import { createHash } from 'node:crypto';
import { Conflict, NotFound } from '@cliffhanger/platform';
import type { Checkout } from './checkout.ts';
import { paymentRepository as repo } from './repository.ts';
import type { MailLanguage } from './schema.ts';
import type { Core } from './core.ts';
import { RENEWAL_LEASE_MS, type Subscriptions } from './subscriptions.ts';
import { subscriptionView, type CardReplaced, type PayResult } from './views.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const paymentOf = ({ orderId, status, message, clientSecret, actionUrl }: PayResult): CardReplaced['payment'] => ({ orderId, status, message, clientSecret, actionUrl });

/**
 * `POST /api/payment/method`: the viewer of a past-due subscription gives a new card, which pays the
 * period that failed at once (on session, so 3-D Secure may ask) and is kept for the renewals after
 * it. The charge goes through checkout's pay call on the period's renewal order, keyed by the card's
 * single-use confirmation token, so a repeat of the request answers the first one's result and charges nothing.
 * 3-D Secure is taken in the page with the answer's client secret, and the payment of `payment.orderId`
 * then finished by `POST /api/payment/complete`, as at the checkout.
 * The renewal lease keeps the minute's retry of the old card away while the new one is charged.
 */
export function createCardReplacement(core: Core, checkout: Checkout, subscriptions: Subscriptions) {
  const { database, now } = core;
  const db = database.db;

  async function answer(userId: string, payment: CardReplaced['payment']): Promise<CardReplaced> {
    const latest = (await repo.latestSubscriptionOf(db, userId))!;
    return { ...subscriptionView(latest), payment };
  }

  return async function replaceCard(userId: string, paymentToken: string, origin: string, language?: MailLanguage): Promise<CardReplaced> {
    const idempotencyKey = `card:${sha256(paymentToken)}`;
    const pay = (orderId: string, email: string) =>
      checkout.pay(userId, { orderId, paymentToken, email, firstName: '', lastName: '', language }, { idempotencyKey, origin });
    const earlier = await repo.payRequest(db, userId, sha256(idempotencyKey));
    if (earlier) {
      const replayed = await pay(earlier.orderId, (await repo.orderById(db, earlier.orderId))?.email ?? '');
      return answer(userId, paymentOf(replayed));
    }

    const at = now();
    const live = await repo.liveSubscriptionOf(db, userId);
    if (!live) throw new NotFound('You have no subscription');
    if (live.status !== 'past_due') throw new Conflict('Your subscription is paid up: a new card can be given once a renewal fails');
    if (!(await repo.leaseRenewal(db, live, at, new Date(at.getTime() + RENEWAL_LEASE_MS)))) {
      throw new Conflict('Your renewal is being tried right now. Please try again in a minute.');
    }
    try {
      // A renewal charge of the old card asked and never answered (its process died) is asked again by
      // the minute's work first: paying the period with the new card meanwhile could take it twice.
      if (await repo.openRenewalCharge(db, live.id)) throw new Conflict('Your renewal is being tried right now. Please try again in a minute.');
      const order = await subscriptions.renewalOrderOf(live, at);
      const result = await pay(order.id, live.email ?? '');
      return await answer(userId, paymentOf(result));
    } finally {
      await repo.releaseRenewal(db, live.id);
    }
  };
}
