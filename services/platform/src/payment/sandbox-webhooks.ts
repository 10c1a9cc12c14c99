import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.ts';
import { signWebhook } from './stripe-events.ts';

export interface WebhookSender {
  /** Posts the event in the background: never throws, never leaves a rejection behind. */
  send(event: { id: string; type: string } & Record<string, unknown>): void;
  /** Stops retrying and waits for deliveries under way. */
  stop(): Promise<void>;
}

export interface WebhookSenderOptions {
  url: string;
  secret: string;
  logger: Logger;
  /** Wait before each attempt; Stripe retries for days, a sandbox a few times. */
  delaysMs?: number[];
  timeoutMs?: number;
}

/**
 * Delivers the sandbox's events as Stripe does: a JSON POST signed in `Stripe-Signature`, signed
 * afresh on each attempt (a retry is not stale), retried on a network error or a non-2xx answer.
 * Fire and forget: the payment service also learns outcomes from the charge call and `retrieve`.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const delays = options.delaysMs ?? [0, 1_000, 5_000, 15_000];
  const stopping = new AbortController();
  const underway = new Set<Promise<void>>();

  async function deliver(event: { id: string; type: string }): Promise<void> {
    const body = JSON.stringify(event);
    for (const [attempt, delay] of delays.entries()) {
      if (delay > 0) await sleep(delay, undefined, { signal: stopping.signal });
      try {
        const response = await fetch(options.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': signWebhook(body, options.secret) },
          body,
          signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)]),
        });
        await response.body?.cancel();
        if (response.ok) return;
        options.logger.warn({ eventId: event.id, attempt: attempt + 1, status: response.status }, 'sandbox webhook refused');
      } catch (error) {
        if (stopping.signal.aborted) return;
        options.logger.warn({ eventId: event.id, attempt: attempt + 1, err: error }, 'sandbox webhook not delivered');
      }
    }
    options.logger.error({ eventId: event.id, type: event.type }, 'sandbox webhook given up');
  }

  return {
    send(event) {
      if (stopping.signal.aborted) return;
      const delivery = deliver(event)
        .catch(() => {})
        .finally(() => underway.delete(delivery));
      underway.add(delivery);
    },
    async stop() {
      stopping.abort();
      await Promise.all(underway);
    },
  };
}
