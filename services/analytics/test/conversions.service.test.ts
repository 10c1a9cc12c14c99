import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendEvent,
  createPostgresBus,
  noAttribution,
  queryRows,
  type Attribution,
  type Background,
  type BusEvent,
  type Database,
  type EventBus,
  type EventType,
} from '@cliffhanger/platform';
import { eventually, openMigratedDatabase, silentLogger, testConfig } from '@cliffhanger/platform/testing';
import type { SenderOptions } from '../src/conversion-sender.ts';
import { forwardConversions, majorUnits } from '../src/conversions.ts';
import { subscribeAnalyticsConsumers } from '../src/events.ts';
import { analyticsModule } from '../src/index.ts';
import { FACEBOOK_PIXEL, FACEBOOK_TOKEN, facebookStandIn, TIKTOK_PIXEL, TIKTOK_TOKEN, tiktokStandIn } from './conversion-stand-ins.ts';

// The conversions consumer and its sender on a real database and bus (PGlite, or PostgreSQL in npm
// test's second pass), sending over HTTP to local servers that stand in for Facebook's and TikTok's APIs.
const facebook = facebookStandIn();
const tiktok = tiktokStandIn();
const urls = { facebook: '', tiktok: '' };
const SITE = 'https://cliffhanger.example';

// Fast enough for a test: a poll every 50 ms, a backoff of 30 ms. A call's timeout of 3 s, which a
// local stand-in's answer never needs even on a loaded machine (at 300 ms one was cut and sent twice).
const fast: SenderOptions = { pollMs: 50, batch: 20, maxAttempts: 4, timeoutMs: 3_000, leaseMs: 10_000, backoffMs: () => 30 };

/** The browser pixels' ids and where each API is, without which no token works. */
const pixels = () => ({ FACEBOOK_PIXEL_ID: FACEBOOK_PIXEL, FACEBOOK_GRAPH_URL: urls.facebook, TIKTOK_PIXEL_ID: TIKTOK_PIXEL, TIKTOK_EVENTS_URL: urls.tiktok, PUBLIC_URL: SITE });
const tokens = () => ({ ...pixels(), FACEBOOK_CAPI_TOKEN: FACEBOOK_TOKEN, TIKTOK_EVENTS_TOKEN: TIKTOK_TOKEN });

/** Every log line, to show no token is ever written. */
const logLines: string[] = [];
const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });

/** One process's part: its bus with the conversions consumer (and the aggregates beside it), its sender when started. */
async function startForwarding(database: Database, env: Record<string, string>, options: { send: boolean }) {
  const bus = createPostgresBus(database, silentLogger, { pollMs: 50 });
  const config = testConfig(env);
  const forwarding = forwardConversions({ config, database, bus, logger }, fast);
  subscribeAnalyticsConsumers(bus, silentLogger);
  await bus.start();
  const sender: Background | null = options.send && forwarding ? forwarding.background() : null;
  return {
    bus,
    forwarding,
    async stop() {
      await sender?.stop();
      await bus.stop();
    },
  };
}

const openDatabase = (): Promise<Database> => openMigratedDatabase(analyticsModule);

async function publish(database: Database, bus: EventBus, type: EventType, data: Record<string, unknown>, userId: string, attribution: Partial<Attribution> = {}): Promise<BusEvent> {
  const context = { requestId: 'test', userId, attribution: { ...noAttribution, ...attribution } };
  const event = await database.transaction((tx) => appendEvent(tx, context, type, data, userId));
  bus.nudge();
  return event;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

interface ConversionState {
  destination: string;
  attempts: number;
  sent: boolean;
  failed: boolean;
  last_error: string | null;
}
const stateOf = (database: Database, eventId: string) =>
  queryRows<ConversionState>(
    database.db,
    sql`select destination, attempts, sent_at is not null as sent, failed_at is not null as failed, last_error
          from analytics.conversions where event_id = ${eventId} order by destination`,
  );
/** Waits until every destination's conversion of `eventId` is sent or failed. */
const settled = (database: Database, eventId: string, destinations = 2) =>
  eventually(async () => {
    const rows = await stateOf(database, eventId);
    return rows.length === destinations && rows.every((row) => row.sent || row.failed) ? rows : null;
  }, 30_000, `conversion ${eventId} settled`);
/** Long enough for a sender polling every 50 ms to have sent anything more it was going to. */
const quietly = () => new Promise((resolve) => setTimeout(resolve, 400));

beforeAll(async () => {
  urls.facebook = await facebook.listen();
  urls.tiktok = await tiktok.listen();
});
afterAll(() => {
  facebook.close();
  tiktok.close();
});

describe('server-side conversions with both tokens', () => {
  let database: Database;
  let site: Awaited<ReturnType<typeof startForwarding>>;
  beforeAll(async () => {
    database = await openDatabase();
    site = await startForwarding(database, tokens(), { send: true });
  });
  afterAll(async () => {
    await site?.stop();
    await database?.close();
  });

  const paid = (userId: string, orderId: string, attribution: Partial<Attribution> = {}, amount = 499, currency = 'USD') =>
    publish(database, site.bus, 'payment.succeeded', { orderId, paymentId: `pay-${orderId}`, amount: { amount, currency } }, userId, attribution);

  it('sends a paid order with an fbclid to Facebook once, as a Purchase with the fbc of that fbclid and the order as its event id', async () => {
    const [buyer, orderId, fbclid] = [randomUUID(), randomUUID(), `IwAR-${randomUUID()}`];
    const event = await paid(buyer, orderId, { fbclid });
    const eventId = `order:${orderId}`;
    expect((await settled(database, eventId)).map((row) => [row.destination, row.sent, row.attempts])).toEqual([
      ['facebook', true, 1],
      ['tiktok', true, 1],
    ]);
    await quietly();

    const [request, ...more] = facebook.of(eventId);
    expect(more).toEqual([]);
    expect(request!.path).toBe(`/v21.0/${FACEBOOK_PIXEL}/events`);
    expect(request!.query.get('access_token')).toBe(FACEBOOK_TOKEN);
    expect(request!.entry).toEqual({
      event_name: 'Purchase',
      event_time: seconds(event.time),
      event_id: eventId,
      action_source: 'website',
      event_source_url: `${SITE}/order/result`,
      user_data: { external_id: sha256(buyer), fbc: `fb.1.${Date.parse(event.time)}.${fbclid}` },
      custom_data: { value: 4.99, currency: 'USD' },
    });
    // TikTok hears of the purchase too, without a click id of its own.
    expect(tiktok.of(eventId).map((sent) => sent.entry)).toEqual([
      {
        event: 'CompletePayment',
        event_time: seconds(event.time),
        event_id: eventId,
        user: { external_id: sha256(buyer) },
        page: { url: `${SITE}/order/result` },
        properties: { value: 4.99, currency: 'USD' },
      },
    ]);
  });

  it("sends a registration with a ttclid to TikTok under the event's id, and the buyer's email hash with their later purchase", async () => {
    const [user, orderId, ttclid] = [randomUUID(), randomUUID(), `E.C.P.${randomUUID()}`];
    const registered = await publish(database, site.bus, 'user.registered', { email: '  Ada.Viewer@Example.COM ', wasGuest: true }, user, { ttclid });
    await settled(database, registered.id);
    const email = sha256('ada.viewer@example.com');

    const [request] = tiktok.of(registered.id);
    expect(request!.headers['access-token']).toBe(TIKTOK_TOKEN);
    expect(request!.entry).toEqual({
      event: 'CompleteRegistration',
      event_time: seconds(registered.time),
      event_id: registered.id,
      user: { ttclid, external_id: sha256(user), email },
      page: { url: `${SITE}/register` },
    });
    expect(facebook.of(registered.id).map((sent) => sent.entry)).toEqual([
      expect.objectContaining({ event_name: 'CompleteRegistration', event_id: registered.id, user_data: { em: email, external_id: sha256(user) } }),
    ]);

    await paid(user, orderId, { ttclid }, 1999);
    await settled(database, `order:${orderId}`);
    expect(tiktok.of(`order:${orderId}`).map((sent) => sent.entry.user)).toEqual([{ ttclid, external_id: sha256(user), email }]);
    expect(facebook.of(`order:${orderId}`).map((sent) => sent.entry.user_data)).toEqual([{ em: email, external_id: sha256(user) }]);
  });

  it('tries a destination answering 500 twice again until it takes the conversion, and sends it once more only', async () => {
    const orderId = randomUUID();
    const eventId = `order:${orderId}`;
    facebook.script(eventId, { status: 500, body: { error: { message: 'An unexpected error has occurred', code: 2, is_transient: true } } }, { status: 503, body: {} });
    await paid(randomUUID(), orderId, { fbclid: 'fb-retry' });

    const rows = await settled(database, eventId);
    await quietly();
    expect(rows.map((row) => [row.destination, row.sent, row.attempts, row.last_error])).toEqual([
      ['facebook', true, 3, null],
      ['tiktok', true, 1, null],
    ]);
    expect(facebook.of(eventId)).toHaveLength(3);
    expect(new Set(facebook.of(eventId).map((sent) => JSON.stringify(sent.entry))).size).toBe(1);
    expect(tiktok.of(eventId)).toHaveLength(1);
  });

  it('tries again after a call that gets no answer within its timeout, or is throttled', async () => {
    const orderId = randomUUID();
    const eventId = `order:${orderId}`;
    facebook.script(eventId, { hangMs: 20_000 });
    tiktok.script(eventId, { status: 200, body: { code: 40100, message: 'Too many requests' } }, { status: 429, body: { code: 40100, message: 'Too many requests' } });
    await paid(randomUUID(), orderId);

    expect((await settled(database, eventId)).map((row) => [row.destination, row.sent, row.attempts])).toEqual([
      ['facebook', true, 2],
      ['tiktok', true, 3],
    ]);
  });

  it('does not try a 400 again: the conversion is recorded as failed with the reason, and no token reaches a log', async () => {
    const orderId = randomUUID();
    const eventId = `order:${orderId}`;
    facebook.script(eventId, { status: 400, body: { error: { message: 'Invalid parameter', type: 'OAuthException', code: 100, fbtrace_id: 'x' } } });
    tiktok.script(eventId, { status: 200, body: { code: 40002, message: 'Invalid value for field event_time' } });
    await paid(randomUUID(), orderId);

    const rows = await settled(database, eventId);
    await quietly();
    expect(rows).toEqual([
      { destination: 'facebook', attempts: 1, sent: false, failed: true, last_error: 'HTTP 400: Invalid parameter (code 100)' },
      { destination: 'tiktok', attempts: 1, sent: false, failed: true, last_error: 'code 40002: Invalid value for field event_time' },
    ]);
    expect(facebook.of(eventId)).toHaveLength(1);
    expect(tiktok.of(eventId)).toHaveLength(1);
    expect(logLines.some((line) => line.includes(eventId) && line.includes('refused'))).toBe(true);
    expect(logLines.filter((line) => line.includes(FACEBOOK_TOKEN) || line.includes(TIKTOK_TOKEN))).toEqual([]);
  });

  it('sends nothing new when the bus delivers the events again, or a second payment event tells of the same order', async () => {
    const orderId = randomUUID();
    const eventId = `order:${orderId}`;
    const buyer = randomUUID();
    await paid(buyer, orderId, { fbclid: 'fb-once' });
    await settled(database, eventId);
    await paid(buyer, orderId, { fbclid: 'fb-once' });

    // As Kafka does after a rebalance, once the processed marks are pruned: the consumer reads the
    // whole log again and applies every event anew.
    await database.db.execute(sql`delete from platform.processed_events where consumer = 'analytics.conversions'`);
    await database.db.execute(sql`update platform.consumer_offsets set seq = 0 where consumer = 'analytics.conversions'`);
    site.bus.nudge();
    await eventually(async () => {
      const [behind] = await queryRows<{ n: number }>(
        database.db,
        sql`select count(*)::int as n from platform.consumer_offsets where consumer = 'analytics.conversions' and seq < (select max(seq) from platform.outbox)`,
      );
      return behind!.n === 0;
    }, 10_000, 'the consumer to catch up again');
    await quietly();

    expect(facebook.of(eventId)).toHaveLength(1);
    expect(tiktok.of(eventId)).toHaveLength(1);
    expect(await stateOf(database, eventId)).toHaveLength(2);
  });

  it('sends the value in major units of its currency', async () => {
    const orderId = randomUUID();
    await paid(randomUUID(), orderId, {}, 1500, 'JPY');
    await settled(database, `order:${orderId}`);
    expect(facebook.of(`order:${orderId}`)[0]!.entry.custom_data).toEqual({ value: 1500, currency: 'JPY' });
    expect([majorUnits(499, 'USD'), majorUnits(1, 'EUR'), majorUnits(12345, 'KWD'), majorUnits(700, 'XXY')]).toEqual([4.99, 0.01, 12.345, 7]);
  });
});

describe('server-side conversions across a restart and without tokens', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase();
  });
  afterAll(() => database?.close());

  it('sends after a restart what was queued but not sent before it', async () => {
    const orderId = randomUUID();
    const eventId = `order:${orderId}`;
    // A process that queued the conversion and stopped before its sender ran.
    const before = await startForwarding(database, tokens(), { send: false });
    await publish(database, before.bus, 'payment.succeeded', { orderId, paymentId: 'pay-restart', amount: { amount: 299, currency: 'USD' } }, randomUUID());
    await eventually(async () => (await stateOf(database, eventId)).length === 2, 10_000, 'the conversion queued');
    await before.stop();
    expect(facebook.of(eventId)).toEqual([]);

    const after = await startForwarding(database, tokens(), { send: true });
    try {
      expect((await settled(database, eventId)).every((row) => row.sent)).toBe(true);
      expect(facebook.of(eventId)).toHaveLength(1);
      expect(tiktok.of(eventId)).toHaveLength(1);
    } finally {
      await after.stop();
    }
  });

  it('subscribes no consumer and sends nothing without a token, the pixel ids alone being the browser\'s', async () => {
    const before = facebook.received.length + tiktok.received.length;
    const untokened = await startForwarding(database, pixels(), { send: true });
    try {
      expect(untokened.forwarding).toBeNull();
      const event = await publish(database, untokened.bus, 'payment.succeeded', { orderId: randomUUID(), paymentId: 'pay-none', amount: { amount: 499, currency: 'USD' } }, randomUUID(), { fbclid: 'fb-none' });
      // The aggregates beside it read the event: had a conversions consumer been there, it would have too.
      await eventually(async () => (await queryRows(database.db, sql`select 1 from platform.processed_events where event_id = ${event.id}`)).length > 0, 10_000, 'the event read');
      await quietly();
      expect(await queryRows(database.db, sql`select consumer from platform.processed_events where event_id = ${event.id}`)).toEqual([{ consumer: 'analytics.aggregates' }]);
      expect(await stateOf(database, `order:${event.data.orderId}`)).toEqual([]);
      expect(facebook.received.length + tiktok.received.length).toBe(before);
    } finally {
      await untokened.stop();
    }
  });

  it('refuses to start with a token but not its pixel id', () => {
    const bus = createPostgresBus(database, silentLogger);
    expect(() => forwardConversions({ config: testConfig({ FACEBOOK_CAPI_TOKEN: FACEBOOK_TOKEN }), database, bus, logger: silentLogger })).toThrow(
      'config: FACEBOOK_PIXEL_ID: required with FACEBOOK_CAPI_TOKEN',
    );
    expect(() => forwardConversions({ config: testConfig({ TIKTOK_EVENTS_TOKEN: TIKTOK_TOKEN }), database, bus, logger: silentLogger })).toThrow(
      'config: TIKTOK_PIXEL_ID: required with TIKTOK_EVENTS_TOKEN',
    );
  });
});
