import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '@cliffhanger/platform';

/** One broken rule: which invariant, and the rows that break it. */
export interface Violation {
  invariant: string;
  rows: unknown[];
}

/**
 * The money invariants of issue 25, as SQL over the payment, unlock, sandbox and outbox tables: each
 * query answers the rows that break its rule, so an empty answer is a pass.
 */
const invariants: [string, SQL][] = [
  [
    'money the provider took belongs to a paid order',
    sql`select p.id as payment_id, p.flow, p.created_at, p.order_id, o.status as order_status,
               charged.status as charged_order_status, charged.payment_id as charged_order_payment_id, charged.subscription_id, charged.period_start
          from sandbox_payments.payments p left join payment.orders o on o.payment_id = p.id
          left join payment.orders charged on charged.id = p.order_id
         where p.status = 'succeeded' and (o.id is null or o.status not in ('succeeded', 'partially_refunded', 'refunded'))`,
  ],
  [
    'every paid coin order is credited exactly once, with its coins, to its buyer or the member the buyer logged in as',
    sql`select o.id, o.user_id, o.coins, o.bonus_coins, o.unlock_synced_at, l.user_id as credited_to, l.paid_delta, l.bonus_delta
          from payment.orders o left join unlock.ledger l on l.reference = 'order:' || o.id
         where o.kind = 'coins' and o.status in ('succeeded', 'partially_refunded', 'refunded')
           and (l.id is null or o.unlock_synced_at is null or l.kind <> 'purchase'
                or l.paid_delta <> o.coins or l.bonus_delta <> coalesce(o.bonus_coins, 0)
                or (l.user_id <> o.user_id and not exists (
                      select 1 from unlock.guest_merges m where m.guest_id = l.user_id and m.member_id = o.user_id)))`,
  ],
  [
    'an order never paid credits nothing',
    sql`select o.id, o.status, l.reference from payment.orders o join unlock.ledger l on l.reference = 'order:' || o.id
         where o.status not in ('succeeded', 'partially_refunded', 'refunded')`,
  ],
  [
    'every paid VIP order reached the unlock service',
    sql`select id, user_id, status from payment.orders
         where kind = 'vip' and status in ('succeeded', 'partially_refunded', 'refunded') and unlock_synced_at is null`,
  ],
  [
    'a subscription period is paid once',
    sql`select subscription_id, period_start, count(*)::int as paid from payment.orders
         where subscription_id is not null and period_start is not null and status in ('succeeded', 'partially_refunded', 'refunded')
         group by subscription_id, period_start having count(*) > 1`,
  ],
  [
    'no refund is left pending or unsynced',
    sql`select id, order_id, status, unlock_synced_at from payment.refunds where status <> 'succeeded' or unlock_synced_at is null`,
  ],
  [
    "every refund is reversed exactly once in the wallet, taking at most its share",
    sql`select r.id, r.order_id, r.paid_coins + r.bonus_coins as share, v.paid_coins + v.bonus_coins as taken, v.state,
               -(l.paid_delta + l.bonus_delta) as ledger_taken
          from payment.refunds r join payment.orders o on o.id = r.order_id
          left join unlock.reversals v on v.reference = 'refund:' || r.id
          left join unlock.ledger l on l.reference = 'refund:' || r.id
         where r.status = 'succeeded' and o.kind = 'coins'
           and (v.reference is null or v.state <> 'reversed' or v.paid_coins + v.bonus_coins > r.paid_coins + r.bonus_coins
                or coalesce(-(l.paid_delta + l.bonus_delta), 0) <> v.paid_coins + v.bonus_coins)`,
  ],
  [
    "an order's refunds add up to its refunded amount, at most its price, and to the provider's refunds of its payment",
    sql`select o.id, o.status, o.price_amount, o.refunded_amount, ours.total as refunds, theirs.total as provider_refunds, ours.share, o.coins + coalesce(o.bonus_coins, 0) as coins
          from payment.orders o
          left join (select order_id, sum(amount)::int as total, sum(paid_coins + bonus_coins)::int as share from payment.refunds where status = 'succeeded' group by order_id) ours on ours.order_id = o.id
          left join (select payment_id, sum(amount)::int as total from sandbox_payments.refunds group by payment_id) theirs on theirs.payment_id = o.payment_id
         where coalesce(ours.total, 0) <> o.refunded_amount or coalesce(theirs.total, 0) <> o.refunded_amount or o.refunded_amount > o.price_amount
            or (o.status = 'refunded') <> (o.refunded_amount = o.price_amount and o.price_amount > 0)
            or (o.kind = 'coins' and coalesce(ours.share, 0) > o.coins + coalesce(o.bonus_coins, 0))`,
  ],
  [
    "each wallet's balance equals the sum of its ledger, and its last entry's balance",
    sql`select w.user_id, w.paid_coins, w.bonus_coins, s.paid, s.bonus, last.paid_balance, last.bonus_balance
          from unlock.wallets w
          left join (select user_id, sum(paid_delta)::int as paid, sum(bonus_delta)::int as bonus from unlock.ledger group by user_id) s on s.user_id = w.user_id
          left join lateral (select paid_balance, bonus_balance from unlock.ledger l where l.user_id = w.user_id order by id desc limit 1) last on true
         where w.paid_coins <> coalesce(s.paid, 0) or w.bonus_coins <> coalesce(s.bonus, 0)
            or (last.paid_balance is not null and (last.paid_balance <> w.paid_coins or last.bonus_balance <> w.bonus_coins))`,
  ],
  [
    'ledger entries belong to a wallet',
    sql`select distinct l.user_id from unlock.ledger l left join unlock.wallets w on w.user_id = l.user_id where w.user_id is null`,
  ],
  [
    'no balance is negative',
    sql`select 'wallet' as what, user_id, paid_coins, bonus_coins from unlock.wallets where paid_coins < 0 or bonus_coins < 0
        union all
        select 'ledger entry ' || id, user_id, paid_balance, bonus_balance from unlock.ledger where paid_balance < 0 or bonus_balance < 0`,
  ],
  [
    "a wallet's bonus coins are its bonus lots' remaining coins",
    sql`select w.user_id, w.bonus_coins, coalesce(sum(b.remaining), 0)::int as in_lots
          from unlock.wallets w left join unlock.bonus_lots b on b.user_id = w.user_id
         group by w.user_id, w.bonus_coins having w.bonus_coins <> coalesce(sum(b.remaining), 0)`,
  ],
  [
    'every ledger change has its event, once',
    sql`select l.id, l.kind, l.reference, l.user_id, count(e.id)::int as events
          from unlock.ledger l
          left join platform.outbox e on case
            when l.kind in ('purchase', 'bonus', 'checkin') then e.type = 'coins.credited' and e.data->>'reference' = l.reference
            when l.kind = 'unlock' then e.type = 'episode.unlocked' and e.data->>'reference' = l.reference
            when l.kind = 'refund' then e.type = 'order.refunded' and l.reference = 'refund:' || (e.data->>'refundId')
            when l.kind = 'revoke' then e.type = 'order.refunded' and l.reference like 'revoke:refund:' || (e.data->>'refundId') || ':%'
            when l.kind in ('merge_out', 'merge_in') then e.type = 'wallet.merged'
              and l.reference in ((e.data->>'reference') || ':out', (e.data->>'reference') || ':in')
            else false end
         where l.paid_delta <> 0 or l.bonus_delta <> 0
         group by l.id, l.kind, l.reference, l.user_id
        having count(e.id) <> 1`,
  ],
  [
    'every refund has its order.refunded event, once',
    sql`select r.id, count(e.id)::int as events from payment.refunds r
          left join platform.outbox e on e.type = 'order.refunded' and e.data->>'refundId' = r.id
         where r.status = 'succeeded' group by r.id having count(e.id) <> 1`,
  ],
  [
    'every login that brought a guest merged its purchases and its wallet, once',
    sql`select e.event_id, e.user_id, e.data->>'mergedGuestId' as guest, p.event_id as payment_merge, u.reference as wallet_merge
          from platform.outbox e
          left join payment.guest_merges p on p.event_id = e.event_id::text
          left join unlock.guest_merges u on u.reference = 'merge:' || e.event_id::text
         where e.type = 'user.logged_in' and e.data->>'mergedGuestId' is not null and e.data->>'mergedGuestId' <> e.user_id
           and (p.event_id is null or u.reference is null)`,
  ],
  ['no event is dead', sql`select consumer, event_id, error from platform.dead_events`],
  [
    "every webhook the provider owes is delivered",
    sql`select id, type, attempts, given_up_at from sandbox_payments.webhooks where delivered_at is null`,
  ],
];

export async function moneyViolations(db: Executor): Promise<Violation[]> {
  const found: Violation[] = [];
  for (const [invariant, query] of invariants) {
    const rows = await queryRows<unknown>(db, query);
    if (rows.length > 0) found.push({ invariant, rows: rows.slice(0, 20) });
  }
  return found;
}

/**
 * What is still owed, part by part (each a count of rows, all 0 once everything settled): events not
 * relayed or not consumed, paid orders the unlock service was not told of, payments the provider
 * answered that their order does not show, renewal charges asked and never answered, refunds pending
 * or not reversed in the wallet, renewal leases still held, subscriptions due and not renewed, and
 * the provider's webhooks not yet delivered.
 */
export async function moneyOwed(db: Executor): Promise<Record<string, number>> {
  const [row] = await queryRows<Record<string, number>>(
    db,
    sql`select (select count(*) from platform.outbox where seq is null)::int as events_not_relayed,
               (select count(*) from platform.consumer_offsets where seq < (select coalesce(max(seq), 0) from platform.outbox))::int as consumers_behind,
               (select count(*) from payment.orders where status in ('succeeded', 'partially_refunded', 'refunded') and unlock_synced_at is null)::int as paid_orders_not_synced,
               (select count(*) from payment.orders o join sandbox_payments.payments p on p.id = o.payment_id
                 where o.status = 'created' and p.status in ('succeeded', 'failed'))::int as answered_payments_not_settled,
               (select count(*) from payment.orders where status = 'created' and payment_key is not null)::int as renewal_charges_unanswered,
               (select count(*) from payment.refunds where status = 'pending')::int as refunds_pending,
               (select count(*) from payment.refunds where status <> 'pending' and unlock_synced_at is null)::int as refunds_not_synced,
               (select count(*) from payment.subscriptions where renewal_lease_until > now())::int as renewal_leases_held,
               (select count(*) from payment.subscriptions where status = 'active' and renews_at <= now())::int as subscriptions_due,
               (select count(*) from sandbox_payments.webhooks where delivered_at is null and given_up_at is null)::int as provider_webhooks_unsent`,
  );
  return Object.fromEntries(Object.entries(row!).map(([part, count]) => [part, Number(count)]));
}

/** The rows behind the parts of `owed` that name rows: the subscriptions due and the renewal charges unanswered. */
export async function owedRows(db: Executor): Promise<unknown[]> {
  return queryRows<unknown>(
    db,
    sql`select 'subscription due' as what, s.id, s.user_id, s.status, s.renews_at, s.retry_count, s.renewal_lease_until, s.cancel_at_period_end,
               (select json_agg(json_build_object('id', o.id, 'status', o.status, 'period_start', o.period_start, 'payment_id', o.payment_id, 'payment_key', o.payment_key) order by o.created_at)
                  from payment.orders o where o.subscription_id = s.id) as orders
          from payment.subscriptions s where s.status = 'active' and s.renews_at <= now()
        union all
        select 'renewal charge unanswered', o.id, o.user_id, o.status, o.period_start, null, null, null, json_build_object('subscription_id', o.subscription_id, 'payment_key', o.payment_key)
          from payment.orders o where o.status = 'created' and o.payment_key is not null
        limit 20`,
  );
}

/** The parts of `owed` not yet settled (all of them 0: nothing is owed). */
export const stillOwed = (owed: Record<string, number>) => Object.fromEntries(Object.entries(owed).filter(([, count]) => count !== 0));

/** True once nothing is owed: the outbox relayed and consumed, payments and refunds settled and synced. */
export async function moneySettled(db: Executor): Promise<boolean> {
  return Object.keys(stillOwed(await moneyOwed(db))).length === 0;
}

/**
 * The minutes a real site would wait before its sweeps take a stuck row up again (a payment waiting on
 * a lost webhook, a refund whose provider call died with the process, a renewal lease, a renewal charge
 * left unanswered, an unlock call owed, a pay call's claim, the provider's next try of a webhook or
 * the claim of one by a killed process), passed at once: the next sweep, at the site's start, takes them up.
 */
export async function letMinutesPass(db: Executor): Promise<void> {
  await db.execute(sql`update payment.orders set updated_at = updated_at - interval '10 minutes'
                        where (status = 'created' and (payment_id is not null or payment_key is not null)) or unlock_synced_at is null`);
  await db.execute(sql`update payment.refunds set created_at = created_at - interval '10 minutes', succeeded_at = succeeded_at - interval '10 minutes'
                        where status = 'pending' or unlock_synced_at is null`);
  await db.execute(sql`update payment.subscriptions set renewal_lease_until = renewal_lease_until - interval '10 minutes' where renewal_lease_until is not null`);
  // A pay call's claim held by a process that died: stale, so the buyer's Pay pressed again takes it over.
  await db.execute(sql`update payment.pay_requests set claimed_at = claimed_at - interval '10 minutes' where state = 'in_flight'`);
  await db.execute(sql`update sandbox_payments.webhooks set next_attempt_at = next_attempt_at - interval '10 minutes' where delivered_at is null and given_up_at is null`);
}

/**
 * A week passes for some VIPs: their renewal falls due, and the next sweep charges the saved card. The
 * time is whole milliseconds, as the site writes it (a JavaScript Date): the renewal lease and the
 * period's order find the subscription by its exact renews_at, which now()'s microseconds would never match.
 */
export async function renewalsFallDue(db: Executor, share: number): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update payment.subscriptions set renews_at = date_trunc('milliseconds', now() - interval '1 minute')
         where id in (select id from payment.subscriptions where status = 'active' and not cancel_at_period_end and renews_at > now()
                       order by md5(id) limit greatest(1, (select count(*) from payment.subscriptions where status = 'active') * ${share}::float8)::int)
        returning id`,
  );
  return rows.length;
}
