import { createHash } from 'node:crypto';
import type { Background, BusEvent, Config, Database, EventBus, EventType, Executor, Logger } from '@cliffhanger/platform';
import { destinationsOf, type Conversion } from './conversion-destinations.ts';
import { conversionRepository as repo } from './conversion-repository.ts';
import { createConversionSender, defaultSenderOptions, type SenderOptions } from './conversion-sender.ts';

/**
 * Server-side conversions: each paid order becomes a Purchase and each registration a
 * CompleteRegistration at Facebook's Conversions API and TikTok's Events API, whichever have a token.
 * The consumer only queues them (analytics.conversions, in the delivery's transaction); the sender
 * makes the calls afterwards.
 */

export const conversionTypes = ['payment.succeeded', 'user.registered'] as const satisfies readonly EventType[];

/**
 * The event id of a paid order's Purchase, which the storefront's pixel sends as its eventID too: the
 * order is paid once, however many payment events tell of it, and the browser knows its id.
 */
export const purchaseEventId = (orderId: string) => `order:${orderId}`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The email as the advertisers hash it: trimmed and lower-cased. */
export const emailSha256 = (email: string) => sha256(email.trim().toLowerCase());

/** Minor units (499) as the major units the APIs take (4.99), by the currency's own decimals (JPY has none). */
export function majorUnits(amount: number, currency: string): number {
  let decimals = 2;
  try {
    decimals = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // Not a well-formed currency code: two decimals, like most currencies.
  }
  return Number((amount / 10 ** decimals).toFixed(decimals));
}

const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);

/** What `event` tells the advertisers; null when it tells them nothing. Remembers a registration's email hash. */
async function conversionOf(tx: Executor, event: BusEvent, siteUrl: string): Promise<Conversion | null> {
  const userId = event.userId;
  const clicks = { fbclid: text(event.attribution?.fbclid), ttclid: text(event.attribution?.ttclid) };
  const person = { externalIdSha256: userId ? sha256(userId) : null };
  if (event.type === 'user.registered') {
    const email = text(event.data.email);
    const hashed = email ? emailSha256(email) : null;
    if (userId && hashed) await repo.rememberEmail(tx, userId, hashed);
    // A browser cannot know this event's id: a registration is the server's to report alone.
    return { kind: 'registration', eventId: event.id, time: event.time, ...person, emailSha256: hashed, ...clicks, value: null, url: `${siteUrl}/register` };
  }
  const orderId = text(event.data.orderId);
  if (!orderId) return null;
  const money = (event.data.amount ?? {}) as { amount?: unknown; currency?: unknown };
  const currency = text(money.currency) ?? 'USD';
  return {
    kind: 'purchase',
    eventId: purchaseEventId(orderId),
    time: event.time,
    ...person,
    // Known when the buyer registered before paying (on Kafka, when that event was read first).
    emailSha256: userId ? await repo.emailOf(tx, userId) : null,
    ...clicks,
    value: { amount: majorUnits(Number(money.amount) || 0, currency), currency },
    url: `${siteUrl}/order/result`,
  };
}

export interface ConversionDeps {
  config: Config;
  database: Pick<Database, 'db'>;
  bus: EventBus;
  logger: Logger;
}

/**
 * Subscribes the consumer analytics.conversions when a destination is configured, and answers the
 * background work that sends what it queues; null when neither token is set (nothing subscribes).
 */
export function forwardConversions({ config, database, bus, logger }: ConversionDeps, options: SenderOptions = defaultSenderOptions): { background: () => Background } | null {
  const destinations = destinationsOf(config);
  if (destinations.length === 0) return null;
  const siteUrl = (config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`).replace(/\/+$/, '');
  const sender = createConversionSender({ database, logger }, destinations, options);
  bus.subscribe('analytics.conversions', conversionTypes, async (event, tx, effects) => {
    const conversion = await conversionOf(tx, event, siteUrl);
    if (!conversion) return;
    // Unique per destination and event id: a payment told twice, or an event delivered again, queues nothing new.
    await repo.record(
      tx,
      destinations.map((destination) => ({ destination: destination.name, eventId: conversion.eventId, payload: destination.entryOf(conversion) })),
    );
    effects.afterCommit(sender.nudge);
  });
  logger.info({ destinations: destinations.map((destination) => destination.name) }, 'server-side conversions forwarded');
  return { background: () => sender.start() };
}
