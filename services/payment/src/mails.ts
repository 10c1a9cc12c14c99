import { addDays, RETRY_DAYS, REMINDER_DAYS_BEFORE } from './billing.ts';
import { mailTexts } from './mail-texts.ts';
import { paymentRepository as repo, type OrderRow, type SubscriptionRow } from './repository.ts';
import type { MailLanguage } from './schema.ts';
import type { Core, Settled } from './core.ts';
import type { Money } from './views.ts';

type MailKind = 'receipt' | 'renewal_failed' | 'renewal_reminder' | 'refund';

/**
 * The payment mails, in the buyer's interface language, each sent once: a receipt for every payment,
 * a notice when a renewal fails (with the link to replace the card), a reminder before a plan of a
 * month or more renews, and a note of every refund. A mail is claimed by its key in `mails_sent`
 * before it goes out, so a second process, a replayed event or the next minute's run sends nothing;
 * a send that fails lets the claim go and is tried again by whatever asked (the next run, a redelivery).
 */
export function createPaymentMails(core: Core) {
  const { database, mailer, logger, now } = core;
  const db = database.db;
  const shopUrl = `${core.publicUrl.replace(/\/+$/, '')}/shopping`;

  const formats = (language: MailLanguage) => {
    const texts = mailTexts[language];
    return {
      texts,
      date: (date: Date) => new Intl.DateTimeFormat(texts.locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date),
      money: ({ amount, currency }: Money) => {
        const format = new Intl.NumberFormat(texts.locale, { style: 'currency', currency });
        return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
      },
    };
  };

  /** Sends a mail under `key` unless it went out before; false when it had (or could not go now). */
  async function sendOnce(key: string, kind: MailKind, userId: string, mail: { to: string; subject: string; text: string }): Promise<boolean> {
    if (!(await repo.claimMail(db, { key, kind, userId, sentAt: now() }))) return false;
    try {
      await mailer.send(mail);
      return true;
    } catch (error) {
      await repo.releaseMail(db, key);
      logger.error({ err: error, kind }, 'payment mail not sent; tried again later');
      return false;
    }
  }

  return {
    async receipt({ order, subscription, atRegularRate }: Settled): Promise<void> {
      if (!order.email) return;
      const { texts, date, money } = formats(order.language);
      const renews = Boolean(subscription && !subscription.cancelAtPeriodEnd);
      const bought = order.kind === 'coins' ? texts.coins(order.coins ?? 0, order.bonusCoins ?? 0) : texts.vipUntil(date(subscription?.renewsAt ?? order.succeededAt!), renews);
      const text = [
        texts.receiptThanks,
        '',
        `${order.title}: ${money({ amount: order.priceAmount, currency: order.currency })}`,
        bought,
        ...(atRegularRate ? [texts.offerPaidBefore] : []),
        `${texts.order}: ${order.id}`,
        `${texts.paid}: ${date(order.succeededAt!)}`,
      ].join('\n');
      await sendOnce(`receipt:${order.id}`, 'receipt', order.userId, { to: order.email, subject: texts.receiptSubject(order.title), text });
    },

    /** The first failure of a period's renewal: access lasts through the grace period, the link replaces the card. */
    async renewalFailed(sub: SubscriptionRow, order: OrderRow): Promise<void> {
      if (!sub.email || !sub.firstFailedAt) return;
      const { texts, date, money } = formats(sub.language);
      const graceUntil = addDays(sub.renewsAt, core.graceDays);
      const lastTry = addDays(sub.firstFailedAt, RETRY_DAYS.at(-1)!);
      const text = [texts.failedBody(order.title, money({ amount: sub.priceAmount, currency: sub.currency }), date(graceUntil), date(lastTry)), '', `${texts.updateCard}: ${shopUrl}`].join('\n');
      await sendOnce(`renewal_failed:${sub.id}:${sub.renewsAt.getTime()}`, 'renewal_failed', sub.userId, { to: sub.email, subject: texts.failedSubject, text });
    },

    /** A refund's note (`order.refunded`), one per refund id. */
    async refund(order: OrderRow, refundId: string, amount: Money): Promise<void> {
      if (!order.email) return;
      const { texts, money } = formats(order.language);
      const text = [texts.refundBody(order.title, money(amount)), '', `${texts.order}: ${order.id}`].join('\n');
      await sendOnce(`refund:${refundId}`, 'refund', order.userId, { to: order.email, subject: texts.refundSubject(order.title), text });
    },

    /** Reminders of renewals of monthly and longer plans due within the next three days, each period once. */
    async sendDueReminders(at: Date): Promise<number> {
      let sent = 0;
      for (const sub of await repo.subscriptionsToRemind(db, at, addDays(at, REMINDER_DAYS_BEFORE), 100)) {
        if (!sub.email) continue;
        const { texts, date, money } = formats(sub.language);
        const plan = await repo.planById(db, sub.planId);
        const title = plan?.title ?? sub.planId;
        const text = [texts.reminderBody(title, money({ amount: sub.priceAmount, currency: sub.currency }), date(sub.renewsAt)), '', `${texts.manage}: ${shopUrl}`].join('\n');
        if (await sendOnce(reminderKey(sub), 'renewal_reminder', sub.userId, { to: sub.email, subject: texts.reminderSubject(date(sub.renewsAt)), text })) sent += 1;
      }
      return sent;
    },
  };
}

/** The reminder of one period: the repository's query finds the periods without one by the same key. */
export const reminderKey = (sub: Pick<SubscriptionRow, 'id' | 'renewsAt'>) => `renewal_reminder:${sub.id}:${sub.renewsAt.getTime()}`;

export type PaymentMails = ReturnType<typeof createPaymentMails>;
