import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appendEvent,
  appendEventBatch,
  listDeadEvents,
  queryRows,
  requestReplay,
  type BusEvent,
  type Database,
  type DeliveryPolicy,
  type EventBus,
  type RequestContext,
} from '../src/index.ts';
import { eventually, openMigratedDatabase } from '../src/testing/index.ts';

const context: RequestContext = {
  requestId: 'r1',
  userId: 'u1',
  attribution: { referrerToken: 'ref-1', fbclid: 'fb-1', ttclid: 'tt-1' },
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};

/** Retries fast enough for a test; the default policy's minutes are for production. */
// How long a delivery may take before a test calls it lost: generous, since on a loaded machine a Kafka
// consumer group's join and rebalance alone can take tens of seconds; a passing test never waits it out.
const DELIVERY_MS = 60_000;

export const fastDelivery: DeliveryPolicy = { maxAttempts: 4, backoffMs: () => 20 };

/** The bus contract: every EventBus adapter passes these, built with `fastDelivery`. */
export function busContract(adapter: string, makeBus: (database: Database) => EventBus, skip?: string) {
  describe.skipIf(Boolean(skip))(`event bus contract: ${adapter}`, { timeout: 4 * DELIVERY_MS }, () => {
    let database: Database;
    const buses: EventBus[] = [];
    const bus = () => {
      const created = makeBus(database);
      buses.push(created);
      return created;
    };

    beforeEach(async () => {
      database = await openMigratedDatabase();
      await database.db.execute(sql`create table effects (event_id uuid primary key, consumer text not null)`);
    });
    afterEach(async () => {
      await Promise.all(buses.splice(0).map((b) => b.stop()));
      await database.close();
    });

    const effects = (consumer: string) =>
      queryRows<{ event_id: string }>(database.db, sql`select event_id from effects where consumer = ${consumer}`);

    // Payloads must match proto/: `n` travels as a favorite's video id.
    async function publish(type: 'user.registered' | 'favorite.changed', n = 0) {
      const data = type === 'favorite.changed' ? { videoId: String(n), favorite: true } : { email: `${n}@example.com`, wasGuest: false };
      return database.transaction((tx) => appendEvent(tx, context, type, data));
    }
    const numberOf = (event: BusEvent) => Number(event.type === 'favorite.changed' ? event.data.videoId : String(event.data.email).split('@')[0]);

    it('delivers a committed event once, with its user, attribution and trace context', async () => {
      const seen: BusEvent[] = [];
      const b = bus();
      b.subscribe('test-consumer', ['user.registered'], async (event) => void seen.push(event));
      await b.start();
      const sent = await publish('user.registered', 7);
      b.nudge();
      await eventually(() => seen.length === 1, DELIVERY_MS, 'delivery');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        id: sent.id,
        type: 'user.registered',
        userId: 'u1',
        attribution: context.attribution,
        data: { email: '7@example.com', wasGuest: false },
        traceparent: context.traceparent,
      });
    });

    it('never delivers an event whose transaction rolled back', async () => {
      const seen: string[] = [];
      const b = bus();
      b.subscribe('test-consumer', ['user.registered', 'favorite.changed'], async (event) => void seen.push(event.type));
      await b.start();
      await expect(
        database.transaction(async (tx) => {
          await appendEvent(tx, context, 'user.registered', { email: 'x@example.com' });
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      await publish('favorite.changed');
      await eventually(() => seen.length === 1, DELIVERY_MS, 'delivery');
      expect(seen).toEqual(['favorite.changed']);
    });

    // Kafka orders one key within a topic (a user's events of one family), so order is asserted per type.
    it('delivers each type in commit order to every consumer, skipping types they did not ask for', async () => {
      const first: number[] = [];
      const second: number[] = [];
      const secondOther: number[] = [];
      const b = bus();
      b.subscribe('first', ['favorite.changed'], async (event) => void first.push(numberOf(event)));
      b.subscribe('second', ['favorite.changed', 'user.registered'], async (event) =>
        void (event.type === 'favorite.changed' ? second : secondOther).push(numberOf(event)),
      );
      await b.start();
      for (let n = 1; n <= 5; n++) await publish(n % 2 ? 'favorite.changed' : 'user.registered', n);
      await eventually(() => second.length + secondOther.length === 5 && first.length === 3, DELIVERY_MS, 'delivery');
      expect(first).toEqual([1, 3, 5]);
      expect(second).toEqual([1, 3, 5]);
      expect(secondOther).toEqual([2, 4]);
    });

    it('retries a failing handler, and its writes land exactly once', async () => {
      let calls = 0;
      const b = bus();
      b.subscribe('flaky', ['user.registered'], async (event, tx) => {
        calls += 1;
        await tx.execute(sql`insert into effects (event_id, consumer) values (${event.id}, 'flaky')`);
        if (calls < 3) throw new Error('temporary failure');
      });
      await b.start();
      await publish('user.registered');
      await eventually(async () => (await effects('flaky')).length === 1, DELIVERY_MS, 'the effect');
      expect(calls).toBe(3);
    });

    it('applies a batch handler\'s events each once, in order, and sets aside only the one that keeps failing', async () => {
      let broken = true;
      const applied: number[] = [];
      const b = bus();
      b.subscribeBatch('batched', ['favorite.changed'], async (events, tx, effects) => {
        if (broken && events.some((event) => numberOf(event) === 3)) throw new Error('cannot apply 3');
        // One statement for the batch, as a set-based handler writes.
        await tx.execute(sql`insert into effects (event_id, consumer) select id, 'batched' from unnest(${sql.param(events.map((event) => event.id))}::uuid[]) as id`);
        effects.afterCommit(() => applied.push(...events.map(numberOf)));
      });
      await b.start();
      for (let n = 1; n <= 5; n++) await publish('favorite.changed', n);
      b.nudge();
      const dead = () => queryRows<{ event_id: string }>(database.db, sql`select event_id from platform.dead_events where consumer = 'batched'`);
      await eventually(async () => (await effects('batched')).length === 4 && (await dead()).length === 1, DELIVERY_MS, 'the four and the dead letter');
      expect(applied).toEqual([1, 2, 4, 5]);
      broken = false;
      expect(await requestReplay(database.db, (await dead()).map((row) => row.event_id))).toBe(1);
      b.nudge();
      await eventually(() => applied.length === 5, DELIVERY_MS, 'the replay');
      expect(applied).toEqual([1, 2, 4, 5, 3]);
      expect(await effects('batched')).toHaveLength(5);
    });

    it('runs after-commit work once its event is committed, and never for a try that rolled back', async () => {
      const done: string[] = [];
      let tries = 0;
      const b = bus();
      b.subscribe('effects', ['user.registered'], async (event, tx, effects) => {
        tries += 1;
        await tx.execute(sql`insert into effects (event_id, consumer) values (${event.id}, 'effects')`);
        effects.afterCommit(() => done.push(`${event.id}:${tries}`));
        if (tries === 1) throw new Error('first try fails after asking for its effect');
      });
      await b.start();
      const event = await publish('user.registered');
      await eventually(() => done.length === 1, DELIVERY_MS, 'the after-commit work');
      expect(done).toEqual([`${event.id}:2`]);
      expect(await effects('effects')).toHaveLength(1);
    });

    it('sets a poisoned event aside and keeps delivering the ones after it', async () => {
      const delivered: number[] = [];
      let poisonAttempts = 0;
      const b = bus();
      // What is not written through tx is an after-commit effect (EventHandler): a handler may run
      // again when its delivery's transaction rolls back, its committed effects happen once.
      b.subscribe('picky', ['favorite.changed'], async (event, _tx, effects) => {
        if (numberOf(event) === 666) {
          poisonAttempts += 1;
          throw new Error('cannot apply');
        }
        effects.afterCommit(() => delivered.push(numberOf(event)));
      });
      await b.start();
      const poisoned = await publish('favorite.changed', 666);
      await publish('favorite.changed', 2);
      await eventually(() => delivered.length === 1, 60_000, 'the event after the poisoned one');
      expect(delivered).toEqual([2]);
      // The handler ran inside the delivery transaction; its dead letter shows once that commits.
      const dead = await eventually(async () => {
        const rows = await queryRows<{ event_id: string; error: string }>(database.db, sql`select event_id, error from platform.dead_events`);
        return rows.length > 0 ? rows : null;
      }, 10_000, 'the dead letter');
      expect(dead).toEqual([{ event_id: poisoned.id, error: 'Error: cannot apply' }]);
      expect(poisonAttempts).toBe(fastDelivery.maxAttempts);
    });

    it('replays a set-aside event once an operator asks, and applies it once', async () => {
      let broken = true;
      const b = bus();
      b.subscribe('mended', ['favorite.changed'], async (event, tx) => {
        if (broken) throw new Error('dependency down');
        await tx.execute(sql`insert into effects (event_id, consumer) values (${event.id}, 'mended')`);
      });
      await b.start();
      const event = await publish('favorite.changed', 7);
      await eventually(async () => (await queryRows(database.db, sql`select 1 from platform.dead_events where event_id = ${event.id}`)).length === 1, DELIVERY_MS, 'the dead letter');
      broken = false;
      expect(await requestReplay(database.db, [event.id])).toBe(1);
      b.nudge();
      await eventually(async () => (await effects('mended')).length === 1, DELIVERY_MS, 'the replayed effect');
      await eventually(async () => (await queryRows(database.db, sql`select 1 from platform.dead_events`)).length === 0, DELIVERY_MS, 'the dead letter to go');
      expect(await requestReplay(database.db)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await effects('mended')).toHaveLength(1);
    });

    // The pixel writes its hits as one row per batch: each still arrives as an event of its own.
    const batch = (numbers: number[], userOf = (n: number) => `user-${n % 3}`) =>
      database.transaction((tx) =>
        appendEventBatch(
          tx,
          'favorite.changed',
          numbers.map((n) => ({
            data: { videoId: String(n), favorite: true },
            userId: userOf(n),
            attribution: { referrerToken: null, fbclid: `fb-${n}`, ttclid: null },
            ...(n === 1 && { traceparent: context.traceparent }),
            time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
          })),
        ),
      );

    it('hands on each event of a batch row once, in order, with its own id, user, time, attribution and trace', async () => {
      const seen: BusEvent[] = [];
      const others: BusEvent[] = [];
      const b = bus();
      b.subscribe('batches', ['favorite.changed'], async (event, tx) => {
        seen.push(event);
        await tx.execute(sql`insert into effects (event_id, consumer) values (${event.id}, 'batches')`);
      });
      b.subscribe('not-hits', ['user.registered'], async (event) => void others.push(event));
      await b.start();
      // One user's events share a key on Kafka, hence an order: all of them go to one user here.
      await batch([1, 2, 3, 4, 5], () => 'user-1');
      await batch([6, 7], () => 'user-1');
      await publish('user.registered', 8);
      b.nudge();
      await eventually(() => seen.length === 7 && others.length === 1, DELIVERY_MS, 'the batched events');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen.map(numberOf)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(new Set(seen.map((event) => event.id)).size).toBe(7);
      expect(await effects('batches')).toHaveLength(7);
      expect(seen[0]).toMatchObject({
        type: 'favorite.changed',
        userId: 'user-1',
        time: '2026-01-01T00:00:01.000Z',
        attribution: { referrerToken: null, fbclid: 'fb-1', ttclid: null },
        traceparent: context.traceparent,
      });
      expect(seen[1]!.traceparent).toBeUndefined();
    });

    it('sets aside one poisoned event of a batch row, delivers the rest, and replays it from its row', async () => {
      let broken = true;
      const delivered: number[] = [];
      const b = bus();
      b.subscribe('batch-picky', ['favorite.changed'], async (event, tx, effects) => {
        if (numberOf(event) === 2 && broken) throw new Error('cannot apply 2');
        effects.afterCommit(() => delivered.push(numberOf(event)));
        await tx.execute(sql`insert into effects (event_id, consumer) values (${event.id}, 'batch-picky')`);
      });
      await b.start();
      await batch([1, 2, 3], () => 'user-1');
      await eventually(() => delivered.length === 2, 60_000, 'the events around the poisoned one');
      expect(delivered).toEqual([1, 3]);
      const [dead] = await eventually(async () => {
        const rows = await listDeadEvents(database.db);
        return rows.length > 0 ? rows : null;
      }, 10_000, 'the dead letter');
      expect(dead).toMatchObject({ consumer: 'batch-picky', type: 'favorite.changed', occurredAt: '2026-01-01T00:00:02.000Z', error: 'Error: cannot apply 2' });
      broken = false;
      expect(await requestReplay(database.db, [dead!.eventId])).toBe(1);
      b.nudge();
      await eventually(async () => (await effects('batch-picky')).length === 3, DELIVERY_MS, 'the replayed effect');
      await eventually(async () => (await listDeadEvents(database.db)).length === 0, DELIVERY_MS, 'the dead letter to go');
      expect(delivered).toEqual([1, 3, 2]);
    });

    it('applies each event once per consumer when two processes deliver side by side', async () => {
      const handler = async (event: BusEvent, tx: Parameters<Parameters<EventBus['subscribe']>[2]>[1]) => {
        await tx.execute(sql`insert into effects (event_id, consumer) values (${event.id}, 'shared')`);
      };
      const one = bus();
      const two = bus();
      one.subscribe('shared', ['user.registered'], handler);
      two.subscribe('shared', ['user.registered'], handler);
      await Promise.all([one.start(), two.start()]);
      for (let n = 0; n < 20; n++) await publish('user.registered', n);
      // Two members joining one Kafka consumer group rebalance first: a member that joins while the
      // other's join is under way waits for it, up to kafkajs's rebalance timeout (60 s) on a loaded machine.
      await eventually(async () => (await effects('shared')).length === 20, 2 * DELIVERY_MS, 'all effects');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await effects('shared')).toHaveLength(20);
    });
  });
}
