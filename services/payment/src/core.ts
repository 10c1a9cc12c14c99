import type { Database, EventBus, Logger, Mailer, Metrics } from '@cliffhanger/platform';
import type { PaymentProvider } from './providers/index.ts';
import type { UnlockLedger } from './ports.ts';
import type { OrderRow, SubscriptionRow } from './repository.ts';

/** What every part of the payment service shares: its dependencies, and what a settlement hands on. */

export interface PaymentServiceDeps {
  database: Database;
  bus: EventBus;
  logger: Logger;
  mailer: Mailer;
  provider: PaymentProvider;
  unlock: UnlockLedger;
  /** Where `payments_total` and `payments_amount_minor_total` are counted, when the process serves /metrics. */
  metrics?: Metrics;
  /** The clock: tests move it through a year of renewals. */
  now?: () => Date;
  /** Days a past-due VIP keeps access while its card is retried (`PAYMENT_GRACE_DAYS`, 7). */
  graceDays?: number;
  /** The storefront's address, for the links in mails. */
  publicUrl?: string;
}

/** The deps with the defaults settled: what every part of the service shares. */
export type Core = Omit<PaymentServiceDeps, 'now' | 'graceDays' | 'publicUrl'> & { now: () => Date; graceDays: number; publicUrl: string };

/** What a settlement changed, for the work after its commit. */
export interface Settled {
  order: OrderRow;
  subscription: SubscriptionRow | null;
  /** A first-purchase offer its buyer had paid before: settled at the regular rate instead. */
  atRegularRate: boolean;
}
