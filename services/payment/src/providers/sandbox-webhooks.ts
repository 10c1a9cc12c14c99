import type { Database, Executor, Logger } from '@cliffhanger/platform';
import * as store from './sandbox-store.ts';
import { signWebhook } from './stripe-events.ts';

export interface WebhookSender {
  /**
   * Writes the event in the caller's transaction (the one that settles what it announces): once that
   * commits, the event is sent, and sent again after a crash or a refusal, until it is answered.
   */
  record(tx: Executor, event: { id: string; type: string } & Record<string, unknown>): Promise<void>;
  /** Starts sending: what earlier processes left now, retries and lapsed claims as they fall due. */
  start(): void;
  /** Sends what is due now, in the background (after a commit that recorded an event), once started: never throws. */
  kick(): void;
  /** Stops sending and waits for attempts under way; what is unsent stays for the next process. */
  stop(): Promise<void>;
}

export interface WebhookSenderOptions {
  url: string;
  secret: string;
  logger: Logger;
  /** Wait before each attempt, the first one's included; the event is given up after the last. */
  delaysMs?: number[];
  timeoutMs?: number;
  /** How often the table is looked at for events due (a retry's time, one a dead process left). */
  pollMs?: number;
}

/** Stripe retries for three days with a growing back-off; so does the sandbox, a little faster at first. */
const DELAYS_MS = [0, 1_000, 5_000, 30_000, 2 * 60_000, 10 * 60_000, 60 * 60_000, 6 * 60 * 60_000, 24 * 60 * 60_000, 48 * 60 * 60_000];
const CLAIMED_AT_ONCE = 20;

/**
 * Delivers the sandbox's events as Stripe does: durably (each is a row of sandbox_payments.webhooks
 * written with the change it announces), as a JSON POST signed in `Stripe-Signature` afresh on each
 * attempt (a retry is not stale), retried on a network error or a non-2xx answer, from whichever
 * process looks first (claims skip each other's rows). The payment service also learns outcomes from
 * the charge call and `retrieve`; a webhook is what settles a payment whose caller died.
 */
export function createWebhookSender(database: Database, options: WebhookSenderOptions): WebhookSender {
  const delays = options.delaysMs ?? DELAYS_MS;
  const timeoutMs = options.timeoutMs ?? 10_000;
  // An attempt outlives its claim by no more than its timeout: then another process may try again.
  const leaseMs = timeoutMs + 5_000;
  const pollMs = options.pollMs ?? 1_000;
  const stopping = new AbortController();
  /** Retries due sooner than the next look at the table. */
  const soon = new Set<NodeJS.Timeout>();
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> | null = null;
  let again = false;

  async function deliver(event: store.WebhookRow): Promise<void> {
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signWebhook(event.payload, options.secret) },
        body: event.payload,
        signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(timeoutMs)]),
      });
      await response.body?.cancel();
      if (response.ok) return store.webhookDelivered(database.db, event.id);
      options.logger.warn({ eventId: event.id, attempt: event.attempts, status: response.status }, 'sandbox webhook refused');
    } catch (error) {
      if (stopping.signal.aborted) return store.releaseWebhook(database.db, event.id);
      options.logger.warn({ eventId: event.id, attempt: event.attempts, err: error }, 'sandbox webhook not delivered');
    }
    const delay = delays[event.attempts];
    if (delay === undefined) options.logger.error({ eventId: event.id, type: event.type }, 'sandbox webhook given up');
    await store.webhookFailed(database.db, event.id, delay ?? null);
    if (delay !== undefined && delay < pollMs) {
      const timer = setTimeout(() => {
        soon.delete(timer);
        kick();
      }, delay).unref();
      soon.add(timer);
    }
  }

  async function sweep(): Promise<void> {
    while (!stopping.signal.aborted) {
      const due = await store.claimDueWebhooks(database.db, leaseMs, CLAIMED_AT_ONCE);
      if (due.length === 0) return;
      await Promise.all(due.map((event) => deliver(event).catch((error: unknown) => options.logger.warn({ eventId: event.id, err: error }, 'sandbox webhook attempt not recorded'))));
    }
  }

  function kick(): void {
    if (!timer || stopping.signal.aborted) return;
    if (sweeping) {
      again = true;
      return;
    }
    sweeping = sweep()
      .catch((error: unknown) => options.logger.warn({ err: error }, 'sandbox webhooks not swept'))
      .finally(() => {
        sweeping = null;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  return {
    async record(tx, event) {
      await store.insertWebhook(tx, { id: event.id, type: event.type, payload: JSON.stringify(event) }, delays[0] ?? 0);
    },
    start() {
      if (timer || stopping.signal.aborted) return;
      timer = setInterval(kick, pollMs).unref();
      kick();
    },
    kick,
    async stop() {
      if (timer) clearInterval(timer);
      for (const retry of soon) clearTimeout(retry);
      stopping.abort();
      await sweeping;
    },
  };
}
