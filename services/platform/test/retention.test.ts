import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendEvent, pruneOnce, queryRows, systemContext, type Database } from '../src/index.ts';
import { openMigratedDatabase } from '../src/testing/index.ts';

let database: Database;
beforeEach(async () => {
  database = await openMigratedDatabase();
});
afterEach(() => database.close());

const publish = async (daysAgo: number, seq: number | null) => {
  const event = await database.transaction((tx) => appendEvent(tx, systemContext(), 'favorite.changed', { videoId: `v${seq}`, favorite: true }, 'u1'));
  await database.db.execute(sql`update platform.outbox set occurred_at = now() - make_interval(days => ${daysAgo}), seq = ${seq} where event_id = ${event.id}`);
  return event.id;
};
const remaining = async () => (await queryRows<{ seq: number }>(database.db, sql`select seq::int as seq from platform.outbox order by seq`)).map((row) => row.seq);

describe('retention', () => {
  it('deletes old events every consumer is past, but keeps the newest, the unread and the dead-lettered', async () => {
    await publish(30, 1);
    await publish(30, 2);
    const dead = await publish(30, 3);
    await publish(30, 4); // old, but a consumer has not read it yet
    await publish(30, 5); // the newest: the relay numbers on from it
    await database.db.execute(sql`insert into platform.consumer_offsets (consumer, seq) values ('slow', 3), ('fast', 5)`);
    await database.db.execute(sql`insert into platform.dead_events (consumer, event_id, error) values ('slow', ${dead}, 'Error: x')`);
    expect(await pruneOnce(database, { eventDays: 7, markDays: 7, jobDays: 7 })).toMatchObject({ outbox: 2 });
    expect(await remaining()).toEqual([3, 4, 5]);
  });

  it('deletes old events Kafka has (published, never numbered), and keeps the unpublished', async () => {
    const published = await publish(30, null);
    await publish(30, null);
    await database.db.execute(sql`update platform.outbox set published_at = now() - interval '30 days' where event_id = ${published}`);
    expect(await pruneOnce(database, { eventDays: 7, markDays: 7, jobDays: 7 })).toMatchObject({ outbox: 1 });
    const left = await queryRows<{ event_id: string }>(database.db, sql`select event_id from platform.outbox`);
    expect(left.map((row) => row.event_id)).not.toContain(published);
    expect(left).toHaveLength(1);
  });

  it('keeps recent events, and deletes old processed marks and finished jobs only', async () => {
    await publish(1, 1);
    await publish(1, 2);
    await database.db.execute(sql`insert into platform.consumer_offsets (consumer, seq) values ('fast', 2)`);
    await database.db.execute(sql`
      insert into platform.processed_events (consumer, event_id, processed_at) values
        ('c', gen_random_uuid(), now() - interval '30 days'), ('c', gen_random_uuid(), now())`);
    await database.db.execute(sql`
      insert into platform.jobs (id, queue, data, status, max_attempts, backoff_ms, finished_at) values
        ('old-done', 'q', '{}', 'completed', 3, 10, now() - interval '30 days'),
        ('old-dead', 'q', '{}', 'dead', 3, 10, now() - interval '30 days'),
        ('new-done', 'q', '{}', 'completed', 3, 10, now()),
        ('waiting', 'q', '{}', 'waiting', 3, 10, null)`);
    expect(await pruneOnce(database, { eventDays: 7, markDays: 7, jobDays: 7 })).toEqual({ outbox: 0, processedEvents: 1, jobs: 2 });
    expect(await remaining()).toEqual([1, 2]);
    const jobs = await queryRows<{ id: string }>(database.db, sql`select id from platform.jobs order by id`);
    expect(jobs.map((job) => job.id)).toEqual(['new-done', 'waiting']);
  });
});
