import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';
import type { CardOutcome, CheckedCard } from './test-cards.ts';

/** The sandbox's tables (migrations/0003_sandbox_payments.sql); the only file that knows them. */

/** A Stripe-looking id: `tok_`, `pm_`, `pi_`... and 128 random bits (a payment id is also the key to its pages). */
export const newId = (prefix: string) => `${prefix}_${randomBytes(16).toString('hex')}`;

export interface PaymentRow {
  id: string;
  idempotency_key: string;
  request: string;
  order_id: string;
  amount: number;
  currency: string;
  flow: 'card' | 'saved_card' | 'redirect';
  status: 'pending' | 'requires_action' | 'succeeded' | 'failed' | 'canceled';
  failure_code: string | null;
  decline_code: string | null;
  customer_id: string | null;
  payment_method_id: string | null;
  save_for_later: boolean;
  return_url: string | null;
  cancel_url: string | null;
}

export interface MethodRow {
  id: string;
  customer_id: string | null;
  brand: string;
  last4: string;
  outcome: CardOutcome;
}

/** A single-use card reference: a legacy token (`tok_`) or a ConfirmationToken (`ctoken_`); a charge takes either. */
export async function insertToken(db: Executor, card: CheckedCard, prefix: 'tok' | 'ctoken' = 'tok'): Promise<string> {
  const id = newId(prefix);
  await db.execute(sql`
    insert into sandbox_payments.tokens (id, brand, last4, exp_month, exp_year, outcome)
    values (${id}, ${card.brand}, ${card.last4}, ${card.expMonth}, ${card.expYear}, ${card.outcome})`);
  return id;
}

/** Takes an unused token, or answers why it cannot (Stripe's codes). */
export async function takeToken(tx: Executor, tokenId: string): Promise<CheckedCard | 'token_already_used' | 'resource_missing'> {
  const [token] = await queryRows<{ brand: string; last4: string; exp_month: number; exp_year: number; outcome: CardOutcome; used: boolean }>(
    tx,
    sql`select brand, last4, exp_month, exp_year, outcome, used_at is not null as used
          from sandbox_payments.tokens where id = ${tokenId} for update`,
  );
  if (!token) return 'resource_missing';
  if (token.used) return 'token_already_used';
  await tx.execute(sql`update sandbox_payments.tokens set used_at = now() where id = ${tokenId}`);
  return { brand: token.brand, last4: token.last4, expMonth: token.exp_month, expYear: token.exp_year, outcome: token.outcome };
}

/** The user's sandbox customer, made on first use. */
export async function customerFor(tx: Executor, userId: string): Promise<string> {
  const [row] = await queryRows<{ id: string }>(tx, sql`
    insert into sandbox_payments.customers (id, user_id) values (${newId('cus')}, ${userId})
    on conflict (user_id) do update set user_id = excluded.user_id
    returning id`);
  return row!.id;
}

export async function insertMethod(tx: Executor, card: CheckedCard): Promise<string> {
  const id = newId('pm');
  await tx.execute(sql`
    insert into sandbox_payments.payment_methods (id, brand, last4, exp_month, exp_year, outcome)
    values (${id}, ${card.brand}, ${card.last4}, ${card.expMonth}, ${card.expYear}, ${card.outcome})`);
  return id;
}

export async function attachMethod(tx: Executor, methodId: string, customerId: string): Promise<void> {
  await tx.execute(sql`update sandbox_payments.payment_methods set customer_id = ${customerId} where id = ${methodId}`);
}

export async function setMethodOutcome(db: Executor, methodId: string, outcome: CardOutcome): Promise<boolean> {
  const rows = await queryRows(db, sql`update sandbox_payments.payment_methods set outcome = ${outcome} where id = ${methodId} returning id`);
  return rows.length > 0;
}

export async function findMethod(tx: Executor, methodId: string): Promise<MethodRow | null> {
  const [row] = await queryRows<MethodRow>(
    tx,
    sql`select id, customer_id, brand, last4, outcome from sandbox_payments.payment_methods where id = ${methodId}`,
  );
  return row ?? null;
}

export interface NewPayment {
  idempotencyKey: string;
  request: string;
  orderId: string;
  amount: number;
  currency: string;
  flow: PaymentRow['flow'];
  returnUrl?: string;
  cancelUrl?: string;
  saveForLater?: boolean;
}

/**
 * Claims the idempotency key with a pending payment. Null when the key is taken: a concurrent
 * holder makes this wait on the unique constraint until it commits, so the caller can then read
 * the first payment's settled row.
 */
export async function claimPayment(tx: Executor, payment: NewPayment): Promise<string | null> {
  const [row] = await queryRows<{ id: string }>(tx, sql`
    insert into sandbox_payments.payments
      (id, idempotency_key, request, order_id, amount, currency, flow, status, return_url, cancel_url, save_for_later)
    values (${newId('pi')}, ${payment.idempotencyKey}, ${payment.request}, ${payment.orderId}, ${payment.amount},
            ${payment.currency}, ${payment.flow}, 'pending', ${payment.returnUrl ?? null}, ${payment.cancelUrl ?? null},
            ${payment.saveForLater ?? false})
    on conflict (idempotency_key) do nothing
    returning id`);
  return row?.id ?? null;
}

const paymentColumns = sql`id, idempotency_key, request, order_id, amount, currency, flow, status, failure_code, decline_code,
  customer_id, payment_method_id, save_for_later, return_url, cancel_url`;

export async function paymentByKey(tx: Executor, idempotencyKey: string): Promise<PaymentRow | null> {
  const [row] = await queryRows<PaymentRow>(tx, sql`select ${paymentColumns} from sandbox_payments.payments where idempotency_key = ${idempotencyKey}`);
  return row ?? null;
}

export async function paymentById(tx: Executor, id: string): Promise<PaymentRow | null> {
  const [row] = await queryRows<PaymentRow>(tx, sql`select ${paymentColumns} from sandbox_payments.payments where id = ${id}`);
  return row ?? null;
}

export interface PaymentChange {
  status: Exclude<PaymentRow['status'], 'pending'>;
  failureCode?: string;
  declineCode?: string;
  customerId?: string;
  paymentMethodId?: string;
}

/** Sets the payment's state; `from` guards the transition, so a payment settles once. Null when it was not in `from`. */
export async function changePayment(tx: Executor, id: string, from: PaymentRow['status'], change: PaymentChange): Promise<PaymentRow | null> {
  const settled = change.status !== 'requires_action';
  const [row] = await queryRows<PaymentRow>(tx, sql`
    update sandbox_payments.payments
       set status = ${change.status},
           failure_code = ${change.failureCode ?? null},
           decline_code = ${change.declineCode ?? null},
           customer_id = coalesce(${change.customerId ?? null}, customer_id),
           payment_method_id = coalesce(${change.paymentMethodId ?? null}, payment_method_id),
           settled_at = ${settled ? sql`now()` : sql`null`}
     where id = ${id} and status = ${from}
     returning ${paymentColumns}`);
  return row ?? null;
}

export interface RefundRow {
  id: string;
  request: string;
  payment_id: string;
  amount: number;
  currency: string;
}

/** The payment locked for a refund, with what its refunds returned so far. */
export async function lockForRefund(tx: Executor, paymentId: string): Promise<(PaymentRow & { refunded: number }) | null> {
  const [row] = await queryRows<PaymentRow>(tx, sql`select ${paymentColumns} from sandbox_payments.payments where id = ${paymentId} for update`);
  if (!row) return null;
  const [sum] = await queryRows<{ refunded: number }>(
    tx,
    sql`select coalesce(sum(amount), 0)::int as refunded from sandbox_payments.refunds where payment_id = ${paymentId}`,
  );
  return { ...row, refunded: sum!.refunded };
}

export async function refundByKey(tx: Executor, idempotencyKey: string): Promise<RefundRow | null> {
  const [row] = await queryRows<RefundRow>(
    tx,
    sql`select id, request, payment_id, amount, currency from sandbox_payments.refunds where idempotency_key = ${idempotencyKey}`,
  );
  return row ?? null;
}

export async function insertRefund(
  tx: Executor,
  refund: { idempotencyKey: string; request: string; paymentId: string; amount: number; currency: string; orderId: string; refundRef: string },
): Promise<RefundRow> {
  const [row] = await queryRows<RefundRow>(tx, sql`
    insert into sandbox_payments.refunds (id, idempotency_key, request, payment_id, amount, currency, order_id, refund_ref)
    values (${newId('re')}, ${refund.idempotencyKey}, ${refund.request}, ${refund.paymentId}, ${refund.amount}, ${refund.currency},
            ${refund.orderId}, ${refund.refundRef})
    returning id, request, payment_id, amount, currency`);
  return row!;
}

export interface WebhookRow {
  id: string;
  type: string;
  payload: string;
  /** Attempts claimed so far, this one included. */
  attempts: number;
}

/** Writes an event to send, in the transaction of what it announces; first sent after `delayMs`. */
export async function insertWebhook(tx: Executor, event: { id: string; type: string; payload: string }, delayMs: number): Promise<void> {
  await tx.execute(sql`
    insert into sandbox_payments.webhooks (id, type, payload, next_attempt_at)
    values (${event.id}, ${event.type}, ${event.payload}, now() + ${delayMs}::float8 * interval '1 millisecond')`);
}

/**
 * Claims up to `limit` events due for an attempt, oldest due first, skipping those another process
 * is claiming: each claim counts an attempt and holds the event for `leaseMs`, so an attempt cut by
 * a crash is made again once the lease has run out.
 */
export async function claimDueWebhooks(db: Executor, leaseMs: number, limit: number): Promise<WebhookRow[]> {
  return queryRows<WebhookRow>(db, sql`
    update sandbox_payments.webhooks w
       set attempts = w.attempts + 1, next_attempt_at = now() + ${leaseMs}::float8 * interval '1 millisecond'
      from (select id from sandbox_payments.webhooks
             where delivered_at is null and given_up_at is null and next_attempt_at <= now()
             order by next_attempt_at limit ${limit} for update skip locked) due
     where w.id = due.id
     returning w.id, w.type, w.payload, w.attempts`);
}

export async function webhookDelivered(db: Executor, id: string): Promise<void> {
  await db.execute(sql`update sandbox_payments.webhooks set delivered_at = now() where id = ${id}`);
}

/** The attempt failed: the next one after `delayMs`, or none (null: given up). */
export async function webhookFailed(db: Executor, id: string, delayMs: number | null): Promise<void> {
  await db.execute(
    delayMs === null
      ? sql`update sandbox_payments.webhooks set given_up_at = now() where id = ${id}`
      : sql`update sandbox_payments.webhooks set next_attempt_at = now() + ${delayMs}::float8 * interval '1 millisecond' where id = ${id}`,
  );
}

/** An attempt cut short by a stop: not counted, and due again at once for the next process. */
export async function releaseWebhook(db: Executor, id: string): Promise<void> {
  await db.execute(sql`update sandbox_payments.webhooks set attempts = attempts - 1, next_attempt_at = now() where id = ${id}`);
}
