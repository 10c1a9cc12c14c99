import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../db/database.ts';
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

export async function insertToken(db: Executor, card: CheckedCard): Promise<string> {
  const id = newId('tok');
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
